"""``python -m kmeviz_apps serve``: the same as the ``kmeviz`` command."""

import sys

from .cli import main

sys.exit(main())
