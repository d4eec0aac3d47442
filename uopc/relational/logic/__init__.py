"""The kanren bridge: a UOp as ``(head . sources)`` for unification (``bridge``), rules as relations and
``stepo``/``reacho``/``normalo`` as goals (``goals``, ``patterns``), and target patterns (``target``)."""
