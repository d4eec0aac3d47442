"""The explorer's command-line front end (``uopc explore ...``) and its reports.

``explore.cli`` registers the ``explore`` command with ``uopc.cli``; ``explore.report``
formats explorations as text, JSON and Graphviz DOT. The explorer itself is
``uopc.relational``, which never imports this package.
"""
