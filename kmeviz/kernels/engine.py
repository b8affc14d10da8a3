"""The tile engine: every Gram pass is a list of tiles, each reduced where it is computed.

Tiles are square blocks of ``tile_rows`` (config) rows and columns, computed in
``n_threads`` Python threads with BLAS limited to one thread inside them (numpy releases
the GIL in BLAS and ufuncs, so threads run in parallel). Each tile is reduced in its
worker (a sum, a weighted sum, a product with a matrix) and the results are added in task
order, so the value does not depend on the number of threads. With ``dtype="float32"``
tiles are computed in float32 and reduced into float64.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import threadpool_limits

from ..config import get_config

_limits_lock = threading.Lock()


def cast_prepared(prepared: tuple, dtype) -> tuple:
    """A prepared sample with its float arrays in ``dtype`` (no copy when already so)."""
    return prepared._make(
        f if f is None or f.dtype == dtype else f.astype(dtype, copy=False) for f in prepared)


def run_tasks(work: Callable, tasks: Iterable, n_threads: int) -> list:
    """``[work(t) for t in tasks]`` in ``n_threads`` threads, BLAS single-threaded inside."""
    tasks = list(tasks)
    with _limits_lock:  # threadpoolctl changes process-wide settings: one change at a time
        limiter = threadpool_limits(limits=1, user_api="blas")
    try:
        if n_threads == 1 or len(tasks) <= 1:
            return [work(t) for t in tasks]
        with ThreadPoolExecutor(min(n_threads, len(tasks))) as pool:
            return list(pool.map(work, tasks))
    finally:
        with _limits_lock:
            limiter.restore_original_limits()


def tile_sum(kernel, a_full: tuple, b_full: tuple | None) -> tuple[float, float]:
    """(Σ_ij k(a_i, b_j), trace) over square tiles; with ``b_full=None`` the Gram of a with
    itself, using its symmetry (tiles on or above the diagonal only)."""
    from .base import prepared_rows

    config = get_config()
    dtype = np.dtype(config["dtype"])
    side = config["tile_rows"]
    symmetric = b_full is None
    a_full = cast_prepared(a_full, dtype)
    b_full = a_full if symmetric else cast_prepared(b_full, dtype)
    n_a, n_b = a_full[0].shape[0], b_full[0].shape[0]
    tasks = [(i, j) for i in range(0, n_a, side) for j in range(0, n_b, side)
             if not symmetric or j >= i]
    buffers = threading.local()

    def work(task):
        i, j = task
        rows, cols = slice(i, min(i + side, n_a)), slice(j, min(j + side, n_b))
        shape = (rows.stop - rows.start, cols.stop - cols.start)
        if getattr(buffers, "tile", None) is None:
            buffers.tile = np.empty(side * side, dtype=dtype)
        tile = kernel._tile(prepared_rows(a_full, rows), prepared_rows(b_full, cols),
                            buffers.tile[: shape[0] * shape[1]].reshape(shape))
        s = float(tile.sum(dtype=np.float64))
        if symmetric and i == j:
            return s, float(np.trace(tile, dtype=np.float64))
        return (2.0 * s if symmetric else s), 0.0

    total = trace = 0.0
    for s, t in run_tasks(work, tasks, config["n_threads"]):
        total += s
        trace += t
    return total, trace


def row_block_results(kernel, a, b_full: tuple, work: Callable, *,
                      inputs: Callable | None = None, working_memory: int | None = None):
    """Yield ``work(rows, tile, extra)`` for each block of ``tile_rows`` rows of ``a``
    against all of ``b``, in row order, the tiles computed in ``n_threads`` threads.

    ``a`` is a raw (n, d) array (each block is prepared in its worker, so nothing of size
    n is copied) or a prepared sample. ``inputs(rows)``, if given, is called in this
    thread, in row order, for each block's extra argument (e.g. the next bootstrap
    signs of a stream). At most ``2 n_threads`` blocks are in flight, so memory is
    O(n_threads · tile_rows · n_b) whatever n is; ``working_memory`` (bytes, default
    ``DEFAULT_WORKING_MEMORY``) caps the rows of a block further, as for ``gram_blocks``.
    """
    from .base import prepared_rows

    config = get_config()
    dtype = np.dtype(config["dtype"])
    n_threads = config["n_threads"]
    b_full = cast_prepared(b_full, dtype)
    raw = isinstance(a, np.ndarray)
    n_a = a.shape[0] if raw else a[0].shape[0]
    if working_memory is None:
        from .base import DEFAULT_WORKING_MEMORY as working_memory
    n_b = b_full[0].shape[0]
    step = max(1, min(config["tile_rows"],
                      working_memory // (8 * kernel.tile_temporaries * max(n_b, 1))))
    slices = [slice(i, min(i + step, n_a)) for i in range(0, n_a, step)]

    def task(args):
        rows, extra = args
        block = kernel._prepare(a[rows]) if raw else prepared_rows(a, rows)
        return work(rows, kernel.tile(cast_prepared(block, dtype), b_full), extra)

    window = 2 * n_threads
    for start in range(0, len(slices), window):
        chunk = slices[start : start + window]
        args = [(rows, None if inputs is None else inputs(rows)) for rows in chunk]
        yield from run_tasks(task, args, n_threads)


def gram_pass(kernel, A, B, work: Callable, *, inputs: Callable | None = None,
              working_memory: int | None = None):
    """``row_block_results`` of the Gram K(A, B) on raw (validated) arrays: B is prepared
    once, each block of A in its worker."""
    return row_block_results(kernel, A, kernel._prepare(B), work, inputs=inputs,
                             working_memory=working_memory)
