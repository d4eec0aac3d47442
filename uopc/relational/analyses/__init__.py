"""What the explorer answers: rule-order forks (``order``, with ``verdicts``), critical pairs (``overlaps``,
``pair_instances``, ``pairs``, ``joinable``), shortest rewrite paths (``search``, ``meet``, ``replay``) and
the cheapest reachable graph (``best``)."""
