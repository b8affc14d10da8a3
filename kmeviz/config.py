"""Global settings of the compute engine, in the style of ``sklearn.config_context``.

- ``dtype``: ``"float64"`` (default) or ``"float32"``, the precision of Gram tiles;
  reductions are accumulated in float64 either way.
- ``n_threads``: worker threads over tiles (default: the usable cores). BLAS runs with one
  thread inside them, and tile results are summed in a fixed order, so a value does not
  depend on ``n_threads``.
- ``tile_rows``: rows (and columns) of a square Gram tile; 512 keeps a float64 tile (2 MB)
  in cache, where 2048 (32 MB) spilled and ran 2× slower (see ``benchmarks/bench_engine``).
- ``working_memory``: bytes one block of a Gram pass may take with its temporaries
  (default 32 MiB), the bound on extra memory of every O(n)-memory estimator; an
  estimator's own ``working_memory`` argument overrides it.

``config_context``'s settings live in a ``ContextVar``: they hold in its ``with`` block
and in the work it hands to other threads through ``contextvars.copy_context()`` (a
dashboard's job threads), and nowhere else, so one dashboard session's settings never
change another's computations. ``set_config`` changes the defaults of every thread.

Examples
--------
>>> import kmeviz
>>> with kmeviz.config_context(dtype="float32"):
...     kmeviz.get_config()["dtype"]
'float32'
>>> kmeviz.get_config()["dtype"]
'float64'
"""

from __future__ import annotations

import contextlib
import contextvars
import os

DTYPES = ("float64", "float32")


def usable_cores() -> int:
    """Cores this process may run on (the affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows
        return max(1, os.cpu_count() or 1)


#: Bytes one block of a Gram pass may take (the default of ``working_memory``).
DEFAULT_WORKING_MEMORY = 32 * 2**20

_global = {"dtype": "float64", "n_threads": usable_cores(), "tile_rows": 512,
           "working_memory": DEFAULT_WORKING_MEMORY}
#: ``config_context``'s settings in force in this context (None: the defaults)
_overrides: contextvars.ContextVar[dict | None] = contextvars.ContextVar(
    "kmeviz_config", default=None)


def _current() -> dict:
    return {**_global, **(_overrides.get() or {})}


def get_config() -> dict:
    """A copy of the settings in force here (this context: a ``config_context`` block, or
    work handed over from one).

    Returns
    -------
    dict
        ``dtype``, ``n_threads``, ``tile_rows`` and ``working_memory`` in force here.
    """
    return dict(_current())


def _checked(dtype, n_threads, tile_rows, working_memory=None) -> dict:
    out = {}
    if dtype is not None:
        if str(dtype) not in DTYPES:
            raise ValueError(f"dtype must be one of {DTYPES}, got {dtype!r}")
        out["dtype"] = str(dtype)
    for name, value in (("n_threads", n_threads), ("tile_rows", tile_rows),
                        ("working_memory", working_memory)):
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
            out[name] = value
    return out


def set_config(*, dtype: str | None = None, n_threads: int | None = None,
               tile_rows: int | None = None, working_memory: int | None = None) -> None:
    """Change the default settings, for every thread.

    Parameters
    ----------
    dtype : {"float64", "float32"}, optional
        Precision of the Gram tiles (sums stay in float64).
    n_threads : int, optional
        Engine threads over tiles.
    tile_rows : int, optional
        Side of a square Gram tile.
    working_memory : int, optional
        Bytes one block of a Gram pass may take.

    Returns
    -------
    None
    """
    changes = _checked(dtype, n_threads, tile_rows, working_memory)
    _global.update(changes)
    if _overrides.get():  # inside a config_context block the new value holds there too
        _overrides.set({**_overrides.get(), **changes})


@contextlib.contextmanager
def config_context(*, dtype: str | None = None, n_threads: int | None = None,
                   tile_rows: int | None = None, working_memory: int | None = None):
    """Settings in force inside the ``with`` block, restored after: in this context only,
    and in the work handed from it to another thread with ``contextvars.copy_context()``.

    Parameters
    ----------
    dtype, n_threads, tile_rows, working_memory : optional
        As in ``set_config``; the ones not given keep their values.

    Yields
    ------
    dict
        The settings in force inside the block.
    """
    changes = _checked(dtype, n_threads, tile_rows, working_memory)
    token = _overrides.set({**(_overrides.get() or {}), **changes})
    try:
        yield get_config()
    finally:
        _overrides.reset(token)


def working_memory_or_default(value) -> int:
    """An estimator's ``working_memory`` argument, or the configured one when it is None."""
    if value is None:
        return _current()["working_memory"]
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 1:
        raise ValueError(f"working_memory must be a positive number of bytes, got {value!r}")
    return int(value)
