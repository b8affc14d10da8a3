"""Loaded by pytest before any test module: the course under nbval
(``tests/nbval_course.py``), and dask as an optional extra.

``KMEVIZ_WITHOUT_DASK=1 python -m pytest`` runs the suite as on a machine without dask
(``import dask`` fails), to check that the core and every non-dask test work there; the
dask tests and the dask-only doctests are then skipped.
"""

import os
import sys

try:  # ``pytest --nbval-lax`` runs the course notebooks from their jupytext sources
    import nbval  # noqa: F401  (the test extra; absent in the floors run, .ci/floors)
except ImportError:
    collect_ignore = ["tests/nbval_course.py", "tests/test_course_nbval.py"]
else:
    pytest_plugins = ["tests.nbval_course"]
    collect_ignore = []

if os.environ.get("KMEVIZ_WITHOUT_DASK"):
    sys.modules.update(dask=None, distributed=None)  # import dask -> ImportError

try:
    import dask  # noqa: F401
except ImportError:
    collect_ignore.append("kmeviz/chunked.py")  # its doctests draw dask arrays
