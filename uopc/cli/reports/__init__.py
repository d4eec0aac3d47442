"""What the commands print: explorations as text, JSON and Graphviz DOT (``exploration``), sampled runs (``sampled``),
firings (``firings``), and any command's JSON as one offline page (``html``, written by ``page`` with the hand-written
viewer in ``static/``); a report's own cut by time and memory (``cut``), and the output of a command stopped before any
result (``stopped``)."""
