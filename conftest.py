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


def pytest_configure(config):
    """Under ``pytest -n N`` (pytest-xdist), each worker runs on one core of its own, with
    BLAS and kmeviz's thread pools at one thread: two workers with two threads each on a
    2-core machine ran the notebooks 2-4x slower than one process. The kernels, servers
    and command lines a test starts inherit the core."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if not worker or count < 2 or not hasattr(os, "sched_setaffinity"):
        return
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        return
    os.sched_setaffinity(0, {cores[int(worker.removeprefix("gw")) % len(cores)]})
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = "1"  # the processes a test starts
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
