"""The state space: states and steps (``states``, ``step``), the one exploration loop (``stream``,
``explore``), its reduction policy (``reduction``), cycles, the canonical engine's path through it
(``engine_path``) and saved explorations (``saved``)."""
