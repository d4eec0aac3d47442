"""The explorer's command-line front end (``uopc explore ...``) and its reports.

The folder ``explore/`` installs as the package ``uopc.explore`` (never as a top-level
``explore``). Its commands are rows of ``uopc.commands.COMMANDS``, each naming its function
here (``uopc.explore.cli:cmd_reachable``, ``uopc.explore.search_cli:cmd_search``, ...);
``uopc.explore.report`` formats explorations as text, JSON and Graphviz DOT, and
``uopc.explore.html`` as pages (``uopc.page`` writes them). The explorer itself is ``uopc.relational``, which never
imports this package.
"""
