"""What a registered test costs before it runs: one core's matrix-product speed (the unit)
and a test's estimated seconds from its registered ``work`` (``kmeviz.compare``'s budget
reads them; ``benchmarks/bench_budget`` checks them against measured time)."""

from __future__ import annotations

import math
import time

import numpy as np

from .kernels.engine import single_threaded_blas
from .registry import TestSpec

#: the fastest matrix-product speed measured in this process (``flops_per_second``)
_FASTEST = {"flops": 0.0}


def flops_per_second() -> float:
    """One core's float64 matrix-product speed, the unit of the cost estimates: the best
    of three 384³ products (a few milliseconds) with BLAS on one thread, timed by this
    thread's CPU clock, so that time spent waiting for a CPU that other processes hold
    does not count (measured here with two CPU-burning processes beside it: 36–44
    GFLOP/s idle and busy alike, where the wall clock gave 7–63). The fastest of every
    call so far counts. The registered ``work`` formulas are fitted to this unit
    (``benchmarks/bench_budget``), parallel speed-ups included."""
    A = np.random.default_rng(0).random((384, 384))
    best = math.inf
    with single_threaded_blas():
        for _ in range(3):
            t0 = time.thread_time()
            A @ A
            best = min(best, time.thread_time() - t0)
    _FASTEST["flops"] = max(_FASTEST["flops"], 2 * 384**3 / max(best, 1e-6))
    return _FASTEST["flops"]


def estimated_seconds(spec: TestSpec, N: int, d: int, B: int,
                      flops: float | None = None) -> float:
    """About how long ``spec`` takes on N pooled points in d dimensions with B replicates
    (its registered ``work`` over ``flops``, default ``flops_per_second()``; kernel tiles
    run at a fraction of a plain product's speed, which the ``work`` formulas include)."""
    return spec.estimated_work(N, d, B) / (flops or flops_per_second())
