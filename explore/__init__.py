"""The explorer's command-line front end (``uopc explore ...``, ``uopc saturate``) and its reports.

The folder ``explore/`` installs as the package ``uopc.explore`` (never as a top-level
``explore``). ``uopc.explore.cli`` registers the ``explore`` command with ``uopc.cli``;
``uopc.explore.report`` formats explorations as text, JSON and Graphviz DOT, and
``uopc.explore.html`` as pages. The explorer itself is ``uopc.relational``, which never
imports this package.
"""
