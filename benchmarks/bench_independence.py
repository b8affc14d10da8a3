"""Independence tests (issue 40, point 3), measured in one run:
``python -m benchmarks.bench_independence [--quick]``.

- **permutation test against hyppo**: ``hsic_test(estimator="biased")`` with B = 1000
  permutations against ``hyppo.independence.Hsic().test(x, y, reps=1000, auto=False)``
  on the same Gaussian kernel (hyppo's: σ = the median distance of X, for both
  variables), at n = 1000 and 4000. hyppo runs in a separate environment (kmeviz never
  needs it): set ``KMEVIZ_PEER_PYTHON`` to a Python with hyppo installed, e.g.
  ``python -m venv /tmp/peers && /tmp/peers/bin/pip install hyppo`` then
  ``KMEVIZ_PEER_PYTHON=/tmp/peers/bin/python``. Its numba code is compiled before the
  clock starts. The p-values must agree within Monte Carlo error: |p₁ − p₂| ≤
  3 √(2 p(1 − p)/B) + 2/B.
- **linear-time tests at n = 10⁶, d = 10**: Nyström, RFF and block HSIC, wall time and
  peak traced memory (the samples themselves, 160 MB, are allocated before).
- **compare_independence at n = 2000**: every registered test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

import kmeviz as K
from kmeviz.distributions.dependence import sinusoid

from ._util import print_table

PEER_SCRIPT = """
import json, sys, time, warnings
import numpy as np
from hyppo.independence import Hsic
warnings.simplefilter("ignore")
x, y = np.load(sys.argv[1]), np.load(sys.argv[2])
reps = int(sys.argv[3])
Hsic().test(x[:40], y[:40], reps=5, auto=False)  # compile numba before the clock
t0 = time.perf_counter()
stat, p = Hsic().test(x, y, reps=reps, auto=False)
print(json.dumps({"seconds": time.perf_counter() - t0, "p_value": float(p)}))
"""


def weakly_dependent(n: int, seed: int = 0):
    """y = x + 12 ε: dependent, with p-values of moderate size at these n."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 1))
    return x, x + (12.0 if n <= 1000 else 25.0) * rng.normal(size=(n, 1))


def hyppo_sigma(x) -> float:
    """hyppo's bandwidth: the median off-diagonal distance of X (its ``compute_kern``)."""
    from scipy.spatial.distance import pdist

    return float(np.median(pdist(x)))


def peer(x, y, reps: int):
    python = os.environ.get("KMEVIZ_PEER_PYTHON")
    if not python:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        paths = [Path(tmp) / "x.npy", Path(tmp) / "y.npy"]
        np.save(paths[0], x)
        np.save(paths[1], y)
        done = subprocess.run([python, "-c", PEER_SCRIPT, *map(str, paths), str(reps)],
                              capture_output=True, text=True, timeout=7200)
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def permutation_against_hyppo(sizes, B: int = 1000) -> None:
    rows = []
    for n in sizes:
        x, y = weakly_dependent(n)
        kernel = K.GaussianKernel(hyppo_sigma(x))
        K.hsic_test(x[:100], y[:100], kernel_x=kernel, kernel_y=kernel, n_resamples=10)
        t0 = time.perf_counter()
        ours = K.hsic_test(x, y, kernel_x=kernel, kernel_y=kernel, n_resamples=B, rng=0)
        seconds = time.perf_counter() - t0
        theirs = peer(x, y, B)
        if theirs is None or "error" in theirs:
            why = "set KMEVIZ_PEER_PYTHON" if theirs is None else theirs["error"]
            rows.append([n, f"{seconds:.3f}", "-", "-", f"{ours.p_value:.4f}", "-", why])
            continue
        p1, p2 = ours.p_value, theirs["p_value"]
        p = (p1 + p2) / 2
        tolerance = 3 * np.sqrt(2 * p * (1 - p) / B) + 2 / B
        rows.append([n, f"{seconds:.3f}", f"{theirs['seconds']:.2f}",
                     f"{theirs['seconds'] / seconds:.0f}×", f"{p1:.4f}", f"{p2:.4f}",
                     f"|Δp| = {abs(p1 - p2):.4f} {'≤' if abs(p1 - p2) <= tolerance else '>'} "
                     f"{tolerance:.4f}"])
    print_table(f"HSIC permutation test, B = {B}: kmeviz against hyppo (same kernel)",
                ["n", "kmeviz s", "hyppo s", "speed-up", "kmeviz p", "hyppo p", "agreement"],
                rows)


def linear_time(n: int, d: int = 10) -> None:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(n, d))
    Y = 0.2 * X[:, :1] + rng.normal(size=(n, d))
    kernel = K.GaussianKernel(np.sqrt(2.0 * d))
    rows = []
    total = 0.0
    for estimator in ("nystrom", "rff", "block"):
        tracemalloc.start()
        t0 = time.perf_counter()
        res = K.hsic_test(X, Y, kernel_x=kernel, kernel_y=kernel, estimator=estimator, rng=0)
        seconds = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        total += seconds if estimator != "block" else 0.0
        rows.append([estimator, f"{seconds:.2f}", f"{peak:.0f}", f"{res.p_value:.3g}"])
    print_table(f"Linear-time HSIC at n = {n}, d = {d} (samples: {2 * X.nbytes / 2**20:.0f} MB, "
                f"allocated before); Nyström + RFF: {total:.1f} s",
                ["estimator", "seconds", "peak MB", "p-value"], rows)


def comparison(n: int = 2000) -> None:
    x, y = sinusoid(n, 2.0, rng=0)
    t0 = time.perf_counter()
    table = K.compare_independence(x, y, rng=0, time_budget=60.0)
    seconds = time.perf_counter() - t0
    rows = [[r.test, f"{r.runtime_s:.3f}", f"{r.p_value:.3g}", r.note[:40]]
            for r in table.itertuples()]
    print_table(f"compare_independence, sinusoid ℓ = 2, n = {n}: {seconds:.2f} s in all",
                ["test", "seconds", "p-value", "note"], rows)


def run(*, quick: bool = False) -> None:
    permutation_against_hyppo((300,) if quick else (1000, 4000))
    linear_time(100_000 if quick else 1_000_000)
    comparison(500 if quick else 2000)


if __name__ == "__main__":
    run(quick="--quick" in sys.argv)
