"""``python -m expand``: the same as the ``expand`` command (coreutils also installs an ``expand``)."""

import sys

from expand.cli import main

sys.exit(main())
