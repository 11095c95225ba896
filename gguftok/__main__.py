"""``python -m gguftok``: the same as the ``gguftok`` command."""

import sys

from .cli import main

sys.exit(main())
