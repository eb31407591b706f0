"""``python -m straggler``: the ``straggler`` command."""

import sys

from .cli import main

sys.exit(main())
