"""``compare_tests`` on a user's data: every registered test within the default 10 s
budget (issue 26). ``python -m benchmarks.bench_compare [--quick]``.

Baseline, in the same run: the loop a user wrote before, every registered (estimator,
null) pair through ``mmd_test`` one by one, with no budget. At 10⁵ + 10⁵ points the peak
memory of the comparison is reported against the size of the data (tracemalloc, which
sees numpy's allocations).
"""

from __future__ import annotations

import sys
import time

import numpy as np

import kmeviz as K

from ._util import peak_memory_mb, print_table


def shifted_normals(n: int, d: int = 10, shift: float = 0.1, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    Y = rng.standard_normal((n, d))
    Y[:, 0] += shift
    return X, Y


def hand_written_loop(X, Y):
    """Every registered test by hand, each with the median-heuristic kernel."""
    kernel = K.GaussianKernel(K.median_heuristic(X, Y))
    return {spec.name: K.mmd_test(X, Y, None if "kernel collection" in spec.needs else kernel,
                                  estimator=spec.estimator, null=spec.null, rng=0).p_value
            for spec in K.MMD_TESTS}


def all_tests(n: int) -> None:
    X, Y = shifted_normals(n)
    start = time.perf_counter()
    table = K.compare_tests(X, Y, rng=0)
    ours = time.perf_counter() - start
    start = time.perf_counter()
    hand_written_loop(X, Y)
    loop = time.perf_counter() - start
    rows = [[r.test, r.cost, r.statistic, r.p_value, r.runtime_s, r.note or "-"]
            for r in table.itertuples()]
    print_table(f"compare_tests, {n} + {n} points in d = 10 (N(0, I) against the first "
                f"coordinate shifted by 0.1), kernel {table.attrs['kernel']!r}, default "
                "budget 10 s", ["test", "cost", "statistic", "p-value", "seconds", "note"],
                rows)
    print_table("Wall time of every test (target: < 10 s in all)",
                ["run", "seconds", "vs compare_tests"],
                [["kmeviz.compare_tests(X, Y)", ours, 1.0],
                 ["hand-written loop over MMD_TESTS (no budget)", loop, loop / ours]])


def large(n: int, budget: float = 10.0) -> None:
    """The default budget, then one long enough for every linear-time test (the Nyström
    ones use m = √N log √N landmarks: 2730 at N = 2·10⁵)."""
    X, Y = shifted_normals(n, shift=0.02, seed=1)
    data_mb = (X.nbytes + Y.nbytes) / 2**20
    start = time.perf_counter()
    peak, table = peak_memory_mb(lambda: K.compare_tests(X, Y, rng=0, time_budget=budget))
    seconds = time.perf_counter() - start
    rows = [[r.test, r.cost, r.p_value, r.runtime_s, r.note or "-"]
            for r in table.itertuples()]
    print_table(f"compare_tests on {n:,} + {n:,} points in d = 10, time_budget={budget:g}: "
                f"{seconds:.1f} s in all, peak extra memory {peak:.0f} MB for "
                f"{data_mb:.0f} MB of data ({peak / data_mb:.1f}×)",
                ["test", "cost", "p-value", "seconds", "note"], rows)


def run(quick: bool = False) -> None:
    all_tests(300 if quick else 2000)
    large(5000 if quick else 100_000)
    if not quick:
        large(100_000, budget=300.0)


if __name__ == "__main__":
    run(quick="--quick" in sys.argv)
