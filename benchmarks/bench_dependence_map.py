"""The dependence map of a whole table (issue 56, point 4), measured in one run:
``python -m benchmarks.bench_dependence_map [--quick]``.

A table of p = 100 columns and n = 1000 rows (standard normal columns, five planted
dependent pairs). Timed in the same run:

- ``kmeviz.dependence_map``: all 4950 pairs (HSIC_b, Gamma p-value, normalised HSIC,
  Holm and Benjamini–Hochberg), one shared pass over the columns' Grams;
- a loop of ``kmeviz.hsic_test(x, y, null="spectral")`` (B = 1000) over the pairs, each
  pair's Grams computed afresh (timed on the first ``LOOP_PAIRS`` pairs and scaled to
  4950; the table says so), and the largest difference of its p-values from the map's
  (which reads the same limit by four cumulants instead of 1000 draws);
- dcor's pairwise ``distance_correlation_t_test`` loop (timed on the same pairs and
  scaled), and statsmodels' ``multipletests`` Holm and BH on the map's p-values (the
  largest difference from the map's adjusted p-values), in a separate environment
  (kmeviz never needs them): ``python -m venv /tmp/peers && /tmp/peers/bin/pip install
  dcor statsmodels``, then ``KMEVIZ_PEER_PYTHON=/tmp/peers/bin/python``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

import kmeviz as K
from kmeviz.independence.dependence_map import column_kernel

from ._util import print_table

#: Pairs the loops are timed on (scaled to all pairs).
LOOP_PAIRS = 200

PEER_SCRIPT = """
import json, sys, time
import numpy as np
import dcor
from statsmodels.stats.multitest import multipletests
data = np.load(sys.argv[1])
X, pairs, p = data["X"], data["pairs"], data["p"]
dcor.independence.distance_correlation_t_test(X[:50, 0], X[:50, 1])  # warm up
t0 = time.perf_counter()
for i, j in pairs:
    dcor.independence.distance_correlation_t_test(X[:, i], X[:, j])
seconds = time.perf_counter() - t0
holm = multipletests(p, method="holm")[1]
bh = multipletests(p, method="fdr_bh")[1]
print(json.dumps({"seconds": seconds, "holm": holm.tolist(), "bh": bh.tolist()}))
"""


def table(p: int, n: int, rng) -> pd.DataFrame:
    X = rng.normal(size=(n, p))
    for k in range(5):  # planted: column 2k+1 a noisy non-monotone function of column 2k
        X[:, 2 * k + 1] = np.cos(2 * X[:, 2 * k]) + 0.5 * rng.normal(size=n)
    return pd.DataFrame(X).add_prefix("c")


def peer(X, pairs, p_values):
    python = os.environ.get("KMEVIZ_PEER_PYTHON")
    if not python:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "map.npz"
        np.savez(path, X=X, pairs=np.asarray(pairs), p=p_values)
        done = subprocess.run([python, "-c", PEER_SCRIPT, str(path)], capture_output=True,
                              text=True, timeout=3600)
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(*, quick: bool = False) -> None:
    """The timing table (and, from ``python -m benchmarks.bench_dependence_map``, the
    nulls' tails)."""
    p, n = (30, 400) if quick else (100, 1000)
    frame = table(p, n, np.random.default_rng(56))
    K.dependence_map(frame.iloc[:50, :5])  # imports and first calls before the clock
    t0 = time.perf_counter()
    pairs = K.dependence_map(frame)
    ours = time.perf_counter() - t0
    total = len(pairs)
    loop = pairs.iloc[:LOOP_PAIRS]
    t0 = time.perf_counter()
    singles = []
    for row in loop.itertuples():
        kx, x = column_kernel(frame[row.x].to_numpy(), row.x)
        ky, y = column_kernel(frame[row.y].to_numpy(), row.y)
        singles.append(K.hsic_test(x, y, kernel_x=kx, kernel_y=ky, null="spectral",
                                   n_resamples=1000, rng=0).p_value)
    loop_seconds = (time.perf_counter() - t0) * total / len(loop)
    gap = float(np.max(np.abs(np.asarray(singles) - loop["p_value"].to_numpy())))
    index = {name: k for k, name in enumerate(frame.columns)}
    theirs = peer(frame.to_numpy(), [(index[a], index[b]) for a, b in zip(
        loop["x"], loop["y"], strict=True)], pairs["p_value"].to_numpy())
    rows = [["kmeviz.dependence_map", f"{ours:.2f}", "1×", "-"],
            [f"loop of hsic_test(null='spectral', B = 1000) ({len(loop)} pairs × "
             f"{total / len(loop):.1f})", f"{loop_seconds:.1f}", f"{loop_seconds / ours:.0f}×",
             f"max |Δp| = {gap:.3f} (its Monte Carlo error: ±0.016 at p = 0.5)"]]
    if theirs is None or "error" in theirs:
        why = "set KMEVIZ_PEER_PYTHON" if theirs is None else theirs["error"]
        rows.append(["dcor distance_correlation_t_test loop", "-", "-", why])
    else:
        dcor_seconds = theirs["seconds"] * total / len(loop)
        holm_gap = float(np.max(np.abs(np.asarray(theirs["holm"]) - pairs["p_holm"])))
        bh_gap = float(np.max(np.abs(np.asarray(theirs["bh"]) - pairs["p_bh"])))
        rows.append([f"dcor distance_correlation_t_test loop ({len(loop)} pairs × "
                     f"{total / len(loop):.1f})", f"{dcor_seconds:.1f}",
                     f"{dcor_seconds / ours:.0f}×",
                     f"statsmodels Holm max |Δ| = {holm_gap:.1e}, BH {bh_gap:.1e}"])
    found = pairs.loc[pairs.reject_holm, ["x", "y"]].values.tolist()
    print_table(f"Dependence map of a {n} × {p} table ({total} pairs; {len(found)} found at "
                f"Holm 0.05: {found}), 2 cores", ["method", "seconds", "× the map's time",
                                                  "agreement"], rows)


def null_tail(tables: int, p: int, n: int) -> None:
    """Tables of independent normal columns: the share of pairs with p < 10⁻³ and < 0.05,
    and the tables with a Holm discovery (all false), for the two nulls of the map."""
    rows = []
    for null in ("spectral", "gamma"):
        small, level, found = [], [], 0
        for k in range(tables):
            frame = pd.DataFrame(np.random.default_rng([56, k]).normal(size=(n, p)))
            pairs = K.dependence_map(frame.add_prefix("c"), null=null)
            small.append(np.mean(pairs["p_value"] < 1e-3))
            level.append(np.mean(pairs["p_value"] < 0.05))
            found += bool(pairs["reject_holm"].any())
        rows.append([null, f"{min(small):.5f}-{max(small):.5f}",
                     f"{min(level):.4f}-{max(level):.4f}", f"{found} of {tables}"])
    print_table(f"The map's nulls on {tables} tables of {n} × {p} independent normal columns "
                "(every discovery false)", ["null", "share p < 0.001", "share p < 0.05",
                                            "tables with a Holm discovery"], rows)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    run(quick="--quick" in sys.argv)
    null_tail(2 if "--quick" in sys.argv else 6, 100, 1000)
