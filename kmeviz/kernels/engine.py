"""The tile engine: every Gram pass is a list of tiles, each reduced where it is computed.

Tiles are square blocks of ``tile_rows`` (config) rows and columns, computed in
``n_threads`` Python threads with BLAS limited to one thread inside them (numpy releases
the GIL in BLAS and ufuncs, so threads run in parallel). Each tile is reduced in its
worker (a sum, a weighted sum, a product with a matrix) and the results are added in task
order, so the value does not depend on the number of threads. With ``dtype="float32"``
tiles are computed in float32 and reduced into float64.
"""

from __future__ import annotations

import collections
import contextlib
import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import ThreadpoolController

from ..budget import check_budget
from ..config import get_config, working_memory_or_default


def prepared_rows(prepared: tuple, sl: slice) -> tuple:
    """The rows ``sl`` of a prepared sample (a NamedTuple of per-row arrays or None)."""
    return prepared._make(None if f is None else f[sl] for f in prepared)


def rows_within(n_cols: int, working_memory: int | None = None) -> int:
    """Rows of a (rows, n_cols) float64 block that fits ``working_memory`` bytes."""
    working_memory = working_memory_or_default(working_memory)
    return max(1, min(int(working_memory // (8 * max(n_cols, 1))), 1 << 20))


def tile_side(working_memory: int | None = None) -> int:
    """The side of square tiles of at most ``working_memory`` bytes each (float64), capped
    by the configured ``tile_rows``: what a function with a ``working_memory`` argument
    passes to the engine as ``side``."""
    if working_memory is None:
        return get_config()["tile_rows"]
    return max(64, min(get_config()["tile_rows"],
                       int(np.sqrt(working_memory_or_default(working_memory) / 8))))


def cast_prepared(prepared: tuple, dtype) -> tuple:
    """A prepared sample with its float arrays in ``dtype`` (no copy when already so;
    integer fields, such as a precomputed kernel's indices, stay as they are)."""
    return prepared._make(
        f if f is None or f.dtype == dtype or f.dtype.kind != "f"
        else f.astype(dtype, copy=False) for f in prepared)


def column_sums(T: np.ndarray) -> np.ndarray:
    """1ᵀT as float64, by BLAS (3× faster than ``T.sum(axis=0)``)."""
    return (np.ones(T.shape[0], dtype=T.dtype) @ T).astype(np.float64, copy=False)


def row_sums(T: np.ndarray) -> np.ndarray:
    """T1 as float64, by BLAS."""
    return (T @ np.ones(T.shape[1], dtype=T.dtype)).astype(np.float64, copy=False)


_scratch = threading.local()
#: the largest work array a thread keeps for its next tile (a float64 tile of 1024²):
#: a larger one (a whole m × m Stein Gram of 2000 landmarks: five of 32 MB) was kept by
#: every server thread that once computed it, and never given back
SCRATCH_KEPT_BYTES = 8 * 1024**2


def scratch(name: str, shape: tuple, dtype) -> np.ndarray:
    """A per-thread work array reused across tiles (contents undefined).

    Fresh tile-sized temporaries are page-faulted in by the allocator on every tile; that
    doubled the time of a Stein tile. Each call site uses its own ``name``, and a tile's
    result must be reduced before the same thread computes the next tile.
    """
    buffers = _scratch.__dict__
    size = int(np.prod(shape))
    dtype = np.dtype(dtype)
    if size * dtype.itemsize > SCRATCH_KEPT_BYTES:  # a whole Gram, not a tile: not kept
        return np.empty(shape, dtype=dtype)
    key = (name, dtype.str)
    if key not in buffers or buffers[key].size < size:
        buffers[key] = np.empty(size, dtype=dtype)
    return buffers[key][:size].reshape(shape)


_controller = {}
_controller_lock = threading.Lock()
_pools: dict = {}
_in_worker = threading.local()


def _mark_worker():
    _in_worker.active = True


def _shared_pool(n_threads: int) -> ThreadPoolExecutor:
    """One persistent pool per thread count and process: starting threads for every pass
    cost milliseconds (a tenth of a 0.1 s permutation test). Keyed by pid so a forked
    server worker gets its own threads."""
    key = (os.getpid(), n_threads)
    with _controller_lock:
        if key not in _pools:
            _pools[key] = ThreadPoolExecutor(n_threads, thread_name_prefix="kmeviz-engine",
                                             initializer=_mark_worker)
        return _pools[key]


def _blas_threads(controller) -> int:
    """The BLAS libraries' current thread count (their largest)."""
    return max((lib.num_threads for lib in controller.select(user_api="blas").lib_controllers),
               default=1)


@contextlib.contextmanager
def single_threaded_blas():
    """BLAS held to one thread in this block (process-wide, as threadpoolctl does).

    For a computation whose heavy work runs in the engine's workers: the small BLAS calls
    around the passes (a landmark Gram, a 400 × 400 factorization) would wake the BLAS
    library's own threads, which then spin against the workers (measured on the Nyström
    KSD test, n = 10⁴: median 0.156 s with them, 0.100 s without).
    The BLAS libraries are inspected once per process (``ThreadpoolController``), so
    entering the block costs microseconds, not the milliseconds of a fresh inspection.
    Where BLAS already runs one thread (a server with ``--compute-threads 1``, or inside
    another block) the block does not touch the library: no call to race another
    thread's BLAS call (OpenBLAS documents setting its thread count then as unsafe), and
    no restore that would undo an enclosing block's limit. The limit is restored in the
    thread that set it: OpenBLAS 0.3.31 ignores a restore from another thread (measured).
    """
    with _controller_lock:  # threadpoolctl changes process-wide settings: one at a time
        if "blas" not in _controller:
            _controller["blas"] = ThreadpoolController()
        limiter = (_controller["blas"].limit(limits=1, user_api="blas")
                   if _blas_threads(_controller["blas"]) > 1 else None)
    try:
        yield
    finally:
        if limiter is not None:
            with _controller_lock:
                limiter.restore_original_limits()


#: Tasks kept in flight per thread when their results are small (a tile's sums): the
#: main thread then wakes once per many tiles. With 2 per thread, a float32 tile (about
#: 0.5 ms) often finished before the main thread, waiting for the GIL, submitted the
#: next, and the workers idled (issue 46).
SMALL_RESULTS_IN_FLIGHT = 16


@contextlib.contextmanager
def worker_pool(n_threads: int, *, in_flight: int = 2):
    """A ``map`` over ``n_threads`` threads with BLAS held to one thread inside them, at
    most ``in_flight · n_threads`` tasks submitted ahead (2: results may be tile-sized)
    (``single_threaded_blas`` for the block).
    A pass started from inside an engine worker runs in that worker (no nested pools,
    so no deadlock).
    """
    serial = n_threads <= 1 or getattr(_in_worker, "active", False)
    pool = None if serial else _shared_pool(n_threads)

    def bounded_map(fn, items):
        """Results in order, with at most in_flight·n_threads tasks in flight (lazy in
        ``items``)."""
        pending = collections.deque()
        try:
            for item in items:
                check_budget()
                pending.append(pool.submit(fn, item))
                if len(pending) >= in_flight * n_threads:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:  # a failed or abandoned pass leaves no task of its own running
            for future in pending:
                future.cancel()
            for future in pending:
                if not future.cancelled():
                    future.exception()

    def checked_map(fn, items):
        for item in items:
            check_budget()
            yield fn(item)

    with single_threaded_blas():
        yield checked_map if serial else bounded_map


def run_tasks(work: Callable, tasks: Iterable, n_threads: int) -> list:
    """``[work(t) for t in tasks]`` in ``n_threads`` threads, BLAS single-threaded inside;
    for works whose results are small (``SMALL_RESULTS_IN_FLIGHT`` per thread ahead)."""
    with worker_pool(n_threads, in_flight=SMALL_RESULTS_IN_FLIGHT) as pmap:
        return list(pmap(work, tasks))


def tile_sums(kernel, parts: list, *, cross_only: bool = False, side: int | None = None):
    """Sums of the Gram blocks between prepared samples in one threaded pass.

    The samples are stacked and walked in square tiles on or above the diagonal, so each
    pair of points is computed once. Returns ``(S, tr)``: ``S[p, q]`` (p ≤ q) is
    Σ_ij k(parts[p]_i, parts[q]_j) and ``tr[p]`` the trace of ``S[p, p]``. With
    ``cross_only`` (two parts) only ``S[0, 1]`` is computed. ``side`` is the tile side
    (default: the configured ``tile_rows``).
    """
    config = get_config()
    dtype = np.dtype(config["dtype"])
    side = side or config["tile_rows"]
    parts = [cast_prepared(p, dtype) for p in parts]
    blocks = [(p, slice(i, min(i + side, part[0].shape[0])))
              for p, part in enumerate(parts) for i in range(0, part[0].shape[0], side)]
    tasks = [(u, v) for u in range(len(blocks)) for v in range(u, len(blocks))
             if not cross_only or blocks[u][0] != blocks[v][0]]
    ones = np.ones(side, dtype=dtype)  # read only, shared by the workers

    def work(task):
        (p, rows), (q, cols) = blocks[task[0]], blocks[task[1]]
        shape = (rows.stop - rows.start, cols.stop - cols.start)
        tile = kernel.tile_into(prepared_rows(parts[p], rows), prepared_rows(parts[q], cols),
                            scratch("engine.sums", shape, dtype))
        # 1ᵀT1 by BLAS (3× faster than tile.sum() in float32); tiles are added in float64
        s = float(ones[: shape[0]] @ tile @ ones[: shape[1]])
        if task[0] == task[1]:
            return p, q, s, float(np.trace(tile, dtype=np.float64))
        return p, q, (2.0 * s if p == q else s), 0.0

    S, tr = np.zeros((len(parts), len(parts))), np.zeros(len(parts))
    for p, q, s, t in run_tasks(work, tasks, config["n_threads"]):
        S[p, q] += s
        tr[p] += t
    return S, tr


def row_block_results(kernel, a, b_full: tuple, work: Callable, *,
                      inputs: Callable | None = None, working_memory: int | None = None):
    """Yield ``work(rows, tile, extra)`` for each block of ``tile_rows`` rows of ``a``
    against all of ``b``, in row order, the tiles computed in ``n_threads`` threads.

    ``a`` is a raw (n, d) array (each block is prepared in its worker, so nothing of size
    n is copied) or a prepared sample. ``inputs(rows)``, if given, is called in this
    thread, in row order, for each block's extra argument (e.g. the next bootstrap
    signs of a stream). At most ``2 n_threads`` blocks are in flight, so memory is
    O(n_threads · tile_rows · n_b) whatever n is; ``working_memory`` (bytes, default
    the configured one) caps the rows of a block further, as for ``gram_blocks``.
    The tile handed to ``work`` is a reused per-thread buffer: reduce it, do not keep it.
    """
    config = get_config()
    dtype = np.dtype(config["dtype"])
    n_threads = config["n_threads"]
    b_full = cast_prepared(b_full, dtype)
    raw = isinstance(a, np.ndarray)
    n_a = a.shape[0] if raw else a[0].shape[0]
    slices = kernel.row_slices(n_a, b_full[0].shape[0], working_memory,
                                max_rows=config["tile_rows"])

    def task(args):
        rows, extra = args
        block = cast_prepared(kernel.prepare_validated(a[rows]) if raw else prepared_rows(a, rows),
                              dtype)
        out = scratch("engine.rows", (block[0].shape[0], b_full[0].shape[0]), dtype)
        return work(rows, kernel.tile_into(block, b_full, out), extra)

    with worker_pool(n_threads) as pmap:  # inputs(rows) runs here, in row order
        yield from pmap(task, ((rows, None if inputs is None else inputs(rows))
                               for rows in slices))


def gram_pass(kernel, A, B, work: Callable, *, inputs: Callable | None = None,
              working_memory: int | None = None):
    """``row_block_results`` of the Gram K(A, B) on raw (validated) arrays: B is prepared
    once, each block of A in its worker."""
    return row_block_results(kernel, A, kernel.prepare_validated(B), work, inputs=inputs,
                             working_memory=working_memory)


def symmetric_quadratic_forms(kernel, Z, U: np.ndarray, *, side: int | None = None):
    """(uᵀKu for each column u of U, K1, diag K) for the Gram K of a validated sample Z (an
    array, or a sample the kernel prepared already), in one threaded pass over the tiles
    on or above the diagonal: half the flops of K·U (``collection_quadratic_forms`` with
    one kernel: the upper-triangle pass is written once).

    The per-column quadratic forms of a tile are formed in the tile's dtype and added
    across tiles in float64. ``side`` is the tile side (default: the configured
    ``tile_rows``).
    """
    config = get_config()
    dtype = np.dtype(config["dtype"])
    prepared = cast_prepared(
        kernel.prepare_validated(Z) if isinstance(Z, np.ndarray) else Z, dtype)
    forms, k1, diag = collection_quadratic_forms(
        lambda rows, cols: (prepared_rows(prepared, rows), prepared_rows(prepared, cols)),
        lambda _, parts, out: kernel.tile_into(*parts, out), 1, prepared[0].shape[0], U,
        side=side or config["tile_rows"])
    return forms[0], k1[0], diag[0]


def collection_quadratic_forms(shared: Callable, kernel_tile: Callable, n_kernels: int,
                               n: int, U: np.ndarray, *, side: int | None = None,
                               squares: bool = False):
    """(uᵀK_k u for each kernel k and column u of U, K_k 1, diag K_k) for a collection of
    kernels on one sample of n points, in one threaded pass over the tiles on or above
    the diagonal (half the flops of every K_k·U).

    ``shared(rows, cols)`` computes once per tile what every kernel's tile reads (the
    distances); ``kernel_tile(k, parts, out)`` writes kernel k's tile from it into
    ``out``. The forms are formed in the configured dtype and added across tiles in
    float64, in task order, so they do not depend on the thread count. ``side`` defaults
    to a quarter of n (a multiple of 64, at least 128), at most ``tile_rows``. Returns arrays of
    shape (n_kernels, U.shape[1]), (n_kernels, n) and (n_kernels, n); with ``squares``,
    a fourth, Σ_ij K_k[i, j]² for each kernel (n_kernels,), from the same tiles.
    """
    config = get_config()
    dtype = np.dtype(config["dtype"])
    # at least four tiles a side (the upper triangle is then 10/16 of the square, not 3/4
    # of it with two), each at least 128 wide for BLAS
    side = side or min(config["tile_rows"], max(128, -(-n // 256) * 64))
    U = U.astype(dtype, copy=False)
    starts = range(0, n, side)
    tasks = [(i, j) for i in starts for j in starts if j >= i]

    def work(task):
        rows, cols = (slice(s, min(s + side, n)) for s in task)
        shape = (rows.stop - rows.start, cols.stop - cols.start)
        parts = shared(rows, cols)
        tile = scratch("engine.collection", shape, dtype)
        product = scratch("engine.collection_product", (shape[0], U.shape[1]), dtype)
        forms = np.empty((n_kernels, U.shape[1]))
        sums = np.empty((n_kernels, shape[0])), np.empty((n_kernels, shape[1]))
        diagonal = np.empty((n_kernels, shape[0])) if task[0] == task[1] else None
        square = np.zeros(n_kernels)
        for k in range(n_kernels):
            T = kernel_tile(k, parts, tile)
            np.matmul(T, U[cols], out=product)
            forms[k] = np.einsum("ib,ib->b", U[rows], product)
            sums[0][k], sums[1][k] = row_sums(T), column_sums(T)
            if squares:
                square[k] = np.vdot(T, T)
            if diagonal is not None:
                diagonal[k] = np.diagonal(T)
        twice = 1.0 if diagonal is not None else 2.0  # an off-diagonal tile stands for two
        return rows, cols, twice * forms, sums, diagonal, twice * square

    forms, k1, diag = (np.zeros((n_kernels, U.shape[1])), np.zeros((n_kernels, n)),
                       np.zeros((n_kernels, n)))
    total_squares = np.zeros(n_kernels)
    for rows, cols, q, (r, c), d, sq in run_tasks(work, tasks, config["n_threads"]):
        forms += q
        total_squares += sq
        k1[:, rows] += r
        if d is None:
            k1[:, cols] += c
        else:
            diag[:, rows] = d
    return (forms, k1, diag, total_squares) if squares else (forms, k1, diag)
