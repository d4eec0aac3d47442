"""The ``uopc`` command line: everything a command needs and nothing the library does.

``main`` (``uopc.cli.main``) builds the parser from the table of commands (``uopc.cli.commands.COMMANDS``, rows of
``uopc.cli.spec.Command``), enters the command's ``Budget`` (``uopc.cli.budget``: time, memory, signals) and runs one
command module of ``uopc.cli.commands``: the canonical engine's (``run``, ``simplify``, ``trace``, ``saturate``), the C
backend's (``backend``: ``emit-c``, ``check-rules``) and the explorer's (``explore``, ``order``, ``pairs``, ``search``,
``best``). The options several commands take are declared once (``uopc.cli.options``); what commands share when they
run is ``uopc.cli.support`` (exit codes, argument types, loading programs and rules) and, for the explorer's,
``uopc.cli.explore_support``. ``uopc.cli.reports`` formats results: text, JSON, DOT and offline pages.

The library (the engine, the backend, the e-graph, the explorer) never imports this package.
"""
