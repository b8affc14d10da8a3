"""The comparison tables' cost estimates against measured time (issue 56, point 5):
every registered independence and conditional-independence test run alone at
n ∈ {200, 2000} on an idle machine, its estimate (``kmeviz.compare.estimated_seconds``)
and the ratio measured / estimated (goal: within 2× either way).
``python -m benchmarks.bench_budget [--quick]``."""

from __future__ import annotations

import sys
import time

import numpy as np

import kmeviz as K
from kmeviz.compare import estimated_seconds, flops_per_second

from ._util import print_table

B = 1000
#: runs per test (their median counts; the first call of a process also warms caches)
REPEAT = 3


def samples(n: int, d_x: int = 1, seed: int = 0):
    """A dependent pair with a confounder: X (n, d_x), Y (n, 1) and Z (n, 1)."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 1))
    X = Z + 0.5 * rng.normal(size=(n, d_x))
    Y = np.sin(X[:, :1]) + Z + 0.5 * rng.normal(size=(n, 1))
    return X, Y, Z


def measured(registry, n: int, d_x: int = 1) -> list[list]:
    """[test, n, d, estimate, measured, ratio] of every test of ``registry`` run alone (the
    time-series tests with ``rows="time series"``)."""
    X, Y, Z = samples(n, d_x)
    compare = {"independence": lambda **kw: K.compare_independence(X, Y, **kw),
               "conditional": lambda **kw: K.compare_ci(X, Y, Z, **kw)}[registry.family]
    d = X.shape[1] + Y.shape[1] + (Z.shape[1] if registry.family == "conditional" else 0)
    rows = []
    for spec in registry:
        order = "time series" if K.Needs.ORDERED_ROWS in spec.needs else "iid"
        estimate = estimated_seconds(spec, n, d, B, flops_per_second())
        runs = []  # the median of three runs (one for a test estimated over 5 s)
        for _ in range(1 if estimate > 5.0 else REPEAT):
            start = time.perf_counter()
            table = compare(tests=[spec.name], rows=order, rng=0, time_budget=1e6,
                            n_resamples=B)
            runs.append((float(table["runtime_s"].iloc[0]), time.perf_counter() - start))
        seconds, wall = np.median(runs, axis=0)
        rows.append([f"{registry.family}: {spec.name}", n, d, estimate, seconds, wall,
                     seconds / estimate])
    return rows


def run(quick: bool = False) -> None:
    sizes = (200, 500) if quick else (200, 2000)
    measured(K.INDEPENDENCE_TESTS, 100)  # warm-up: imports, pools, first-call caches
    measured(K.CONDITIONAL_TESTS, 100)
    rows = [row for n in sizes for d_x in (1, 3)
            for registry in (K.INDEPENDENCE_TESTS, K.CONDITIONAL_TESTS)
            for row in measured(registry, n, d_x)]
    worst = max(max(r[-1], 1.0 / r[-1]) for r in rows)
    within = sum(0.5 <= r[-1] <= 2.0 for r in rows)
    print_table(f"Cost estimates against measured seconds, each test alone, B = {B} "
                f"(one core's speed {flops_per_second() / 1e9:.3g} GFLOP/s; {within} of "
                f"{len(rows)} within 2×, worst ratio {worst:.2f}×)",
                ["test", "n", "d", "estimate s", "measured s", "wall s (with table)",
                 "measured / estimate"], rows)


if __name__ == "__main__":
    run(quick="--quick" in sys.argv)
