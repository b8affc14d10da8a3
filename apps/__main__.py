"""``python -m kmeviz_apps serve``: the same as the ``kmeviz`` command."""

import sys

from kmeviz_apps.cli import main

sys.exit(main())
