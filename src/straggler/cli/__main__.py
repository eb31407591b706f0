"""``python -m straggler.cli``: the ``straggler`` command."""

import sys

from . import main

sys.exit(main())
