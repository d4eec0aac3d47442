"""``python -m uopc``: the ``uopc`` command line, under its supervisor (``uopc_launch``)."""
import sys

from uopc_launch import main

sys.exit(main())
