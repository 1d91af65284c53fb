"""``python -m expand``: the same as the ``expand`` command (coreutils also installs an ``expand``)."""

import sys

from .cli import main

sys.exit(main())
