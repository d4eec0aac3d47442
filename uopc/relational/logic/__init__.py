"""The kanren bridge: a UOp as ``(head . sources)`` for unification (``bridge``), rules as relations and
``stepo``/``reacho``/``normalo`` as goals (``goals``, ``patterns``), rule patterns as etuple terms with domains
(``encoding``) and target patterns (``target``). Nothing here imports ``analyses``, which builds on it."""
