"""``python -m uopc``: the ``uopc`` command line."""
import sys

from uopc.cli import main

sys.exit(main())
