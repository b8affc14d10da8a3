"""MMDAggInc, HSICAggInc and KSDAggInc (issue 59, points 1 and 3) against the authors'
``agginc`` (Schrab et al. 2022), measured in one run.
``python -m benchmarks.bench_agginc [--quick]``.

The authors' package runs in a separate environment: ``python -m venv /tmp/peers &&
/tmp/peers/bin/pip install "jax[cpu]" psutil gputil scipy`` and a checkout of
antoninschrab/agginc (``pip install --no-deps -e <checkout>``), then
``KMEVIZ_PEER_PYTHON=/tmp/peers/bin/python``. Without it the tables say so and kmeviz's
times alone are printed.

- **equality**: on 100 seeded data sets per test (n = 500; HSIC n = 1000, i.e. 500
  pairs of rows), kmeviz's statistics for every kernel against agginc's, with the very
  Rademacher signs agginc draws (``RandomState(seed).choice([1, -1], (N, B1 + B2))``,
  reproduced here and passed to kmeviz's ``*_values``); decisions of the level-corrected
  tests compared one by one.
- **speed** at the settings of the authors' ``speed.ipynb`` (n = 5000; MMD and HSIC
  d = 100 uniforms, KSD a 1-D Gamma(5.5, 5) against Gamma(5, 5)), B1 = B2 = 500, R = 200:
  kmeviz (float64, and float32) against agginc's numpy version (float64; its default
  ``batch_size="auto"`` would hold three 8 GB arrays here, so ``batch_size=250``, the
  knob its docstring offers) and its JAX version (float32, JAX's default, jit-compiled;
  best of 3 after the compiling call).
- **scale**: each test at n = 10⁵ against a 20 s budget.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import numpy as np

import kmeviz as K
from kmeviz.experiments.runners import binomial_interval
from kmeviz.gof.incomplete import ksdagginc_values
from kmeviz.independence.aggregated import PairCollection, pairs_outcome
from kmeviz.independence.incomplete import hsicagginc_values
from kmeviz.twosample.incomplete import mmdagginc_values

from ._util import best_time, print_table

B1 = B2 = 500
ALPHA = 0.05
R = 200


class GammaTarget:
    """Gamma(k, θ) on x > 0: score (k − 1)/x − 1/θ (the authors' KSD speed problem)."""

    def __init__(self, shape: float, scale: float):
        self.shape, self.scale, self.dim = shape, scale, 1

    def score(self, X):
        return (self.shape - 1.0) / np.asarray(X) - 1.0 / self.scale


def draw(kind: str, n: int, rs, *, dim: int, strength: float, gamma_shape: float):
    """(X, Y): uniforms shifted by ``strength`` (MMD), Y = strength·X + uniform (HSIC), or
    a Gamma(``gamma_shape``, 5) sample and its score under Gamma(5, 5) (KSD)."""
    if kind == "mmd":
        return rs.uniform(size=(n, dim)), rs.uniform(size=(n, dim)) + strength
    if kind == "hsic":
        X = rs.uniform(size=(n, dim))
        return X, strength * X + rs.uniform(size=(n, dim))
    X = rs.gamma(gamma_shape, 5.0, (n, 1))
    return X, GammaTarget(5.0, 5.0).score(X)


def problem(kind: str, n: int, seed: int):
    """One seeded data set of the equality check, near the decision boundary."""
    return draw(kind, n, np.random.RandomState(seed), dim=10 if kind == "mmd" else 2,
                strength=0.015 if kind == "mmd" else 0.12, gamma_shape=5.25)


PEER_SCRIPT = """
import json, sys, numpy as np
from agginc.np import agginc
data = np.load(sys.argv[1])
kind = sys.argv[2]
out = []
for s in range(data["X"].shape[0]):
    X, Y = data["X"][s], data["Y"][s]
    reject, info = agginc(kind, X, Y, seed=s, return_dictionary=True)
    tests = [info[k] for k in info if k.startswith("Single test")]
    out.append({"reject": int(reject), "statistics": [float(t[kind.upper()]) for t in tests],
                "bandwidths": [float(t.get("Bandwidth", t.get("Bandwidth X"))) for t in tests]})
print(json.dumps(out))
"""

SPEED_SCRIPT = """
import json, sys, time, numpy as np
data = np.load(sys.argv[1]); kind = sys.argv[2]
X, Y = data["X"], data["Y"]
from agginc.np import agginc as agg_np
t = time.perf_counter(); agg_np(kind, X, Y, batch_size=250); numpy_s = time.perf_counter() - t
import jax, jax.numpy as jnp
from agginc.jax import agginc as agg_jax
Xj, Yj = jnp.array(X), jnp.array(Y)
t = time.perf_counter(); jax.block_until_ready(agg_jax(kind, Xj, Yj))
first = time.perf_counter() - t
best = float("inf")
for _ in range(3):
    t = time.perf_counter(); jax.block_until_ready(agg_jax(kind, Xj, Yj))
    best = min(best, time.perf_counter() - t)
print(json.dumps({"numpy": numpy_s, "jax": best, "jax_first": first, "dtype": str(Xj.dtype)}))
"""


POWER_SCRIPT = """
import json, sys, numpy as np, jax
from agginc.jax import agginc
data = np.load(sys.argv[1]); kind = sys.argv[2]
out = [int(jax.block_until_ready(agginc(kind, X, Y)))  # seed is static: one compile
       for X, Y in zip(data["X"], data["Y"])]
print(json.dumps(out))
"""


def run_peer(script: str, arrays: dict, *args) -> dict | list | None:
    """The peer script's JSON answer, None without a peer, {"error": ...} on failure."""
    python = os.environ.get("KMEVIZ_PEER_PYTHON")
    if not python:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "data.npz")
        np.savez(path, **arrays)
        done = subprocess.run([python, "-c", script, path, *args], capture_output=True,
                              text=True, timeout=7200, env={**os.environ,
                                                            "JAX_PLATFORMS": "cpu"})
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def agginc_signs(N: int, seed: int) -> np.ndarray:
    """A column of ones, then the (N, B1 + B2) signs ``agginc`` draws with ``seed``."""
    eps = np.random.RandomState(seed).choice([1.0, -1.0], size=(N, B1 + B2))
    return np.column_stack([np.ones(N), eps])


def ours(kind: str, X, Y, seed: int):
    """kmeviz's (statistics in agginc's order, decision) with agginc's signs."""
    if kind == "mmd":
        collection = K.mmdagginc_kernels(X, Y)
        values = mmdagginc_values(X, Y, collection, R, agginc_signs(X.shape[0], seed))
        null = K.aggregation.aggregated_null(values, B1, collection)
        order = np.arange(len(collection))
    elif kind == "hsic":
        kernels = K.hsicagg_kernels(X, Y)
        pairs = PairCollection(kernels)
        values = hsicagginc_values(X, Y, kernels, R, agginc_signs(X.shape[0] // 2, seed))
        null = pairs_outcome(values, B1, pairs, kernels).null_dist
        k_y = len(kernels.y)  # agginc lists the pairs with the Y bandwidth major
        order = np.array([i * k_y + j for j in range(k_y) for i in range(len(kernels.x))])
    else:
        collection = K.ksdagg_kernels(X)
        values = ksdagginc_values(X, GammaTarget(5.0, 5.0), collection, R,
                                  agginc_signs(X.shape[0], seed))
        null = K.aggregation.aggregated_null(values, B1, collection)
        order = np.arange(len(collection))
    reject = bool(null.kernel_table(ALPHA)["reject"].any())
    return values[order, 0], reject


def equality(n_sets: int) -> None:
    rows = []
    for kind, n in (("mmd", 500), ("hsic", 1000), ("ksd", 500)):
        data = [problem(kind, n, s) for s in range(n_sets)]
        mine = [ours(kind, X, Y, s) for s, (X, Y) in enumerate(data)]
        theirs = run_peer(PEER_SCRIPT, {"X": np.stack([d[0] for d in data]),
                                        "Y": np.stack([d[1] for d in data])}, kind)
        label = f"{kind.upper()}AggInc, n = {n}, {n_sets} data sets"
        if not isinstance(theirs, list):
            rows.append([label, "-", "-", "-", (theirs or {}).get(
                "error", "no peer (KMEVIZ_PEER_PYTHON unset)")])
            continue
        gap = max(np.max(np.abs(m[0] - np.array(t["statistics"]))
                         / np.max(np.abs(t["statistics"])))
                  for m, t in zip(mine, theirs, strict=True))
        same = sum(m[1] == bool(t["reject"]) for m, t in zip(mine, theirs, strict=True))
        rejections = sum(m[1] for m in mine)
        rows.append([label, f"{gap:.1e}", f"{same}/{n_sets}", f"{rejections}/{n_sets}", ""])
    print_table("AggInc against the authors' agginc (numpy), agginc's signs: the largest "
                "statistic gap relative to the largest statistic, identical decisions",
                ["test", "max |Δ statistic| / max |statistic|", "same decision",
                 "kmeviz rejects", "note"], rows)


def speed_problem(kind: str, n: int):
    """The data of the authors' ``speed.ipynb`` (their JAX keys replaced by numpy draws)."""
    return draw(kind, n, np.random.RandomState(0), dim=100,
                strength=1.0 if kind == "mmd" else 0.5, gamma_shape=5.5)


def run_ours(kind: str, X, Y):
    if kind == "mmd":
        return K.mmd_test(X, Y, estimator="mmdagginc", n_resamples=B1, rng=0)
    if kind == "hsic":
        return K.hsic_test(X, Y, estimator="hsicagginc", n_resamples=B1, rng=0)
    return K.ksd_test(X, GammaTarget(5.0, 5.0), estimator="ksdagginc", n_resamples=B1,
                      rng=0)


def speed(n: int) -> None:
    rows = []
    for kind in ("mmd", "hsic", "ksd"):
        X, Y = speed_problem(kind, n)
        run_ours(kind, X[:100], Y[:100])  # thread pools and imports before the clock
        seconds = {}
        for dtype in ("float64", "float32"):
            with K.config_context(dtype=dtype):
                seconds[dtype], _ = best_time(partial(run_ours, kind, X, Y))
        theirs = run_peer(SPEED_SCRIPT, {"X": X, "Y": Y}, kind)
        if isinstance(theirs, dict) and "numpy" in theirs:
            rows.append([f"{kind.upper()}AggInc", seconds["float64"], seconds["float32"],
                         theirs["numpy"], theirs["jax"],
                         theirs["numpy"] / seconds["float64"],
                         theirs["jax"] / seconds["float32"], theirs["dtype"]])
        else:
            note = (theirs or {}).get("error", "no peer (KMEVIZ_PEER_PYTHON unset)")
            rows.append([f"{kind.upper()}AggInc", seconds["float64"], seconds["float32"],
                         "-", "-", "-", "-", note])
    print_table(f"AggInc at n = {n} (speed.ipynb's data), B1 = B2 = 500, R = 200; kmeviz "
                "best of 3, agginc numpy one run, agginc JAX best of 3 after compiling",
                ["test", "kmeviz float64 s", "kmeviz float32 s", "agginc numpy s",
                 "agginc JAX s", "numpy ÷ kmeviz f64", "JAX ÷ kmeviz f32", "JAX dtype"],
                rows)


def scale(n: int, budget: float = 20.0) -> None:
    rows = []
    for kind in ("mmd", "hsic", "ksd"):
        X, Y = speed_problem(kind, n)
        t0 = time.perf_counter()
        result = run_ours(kind, X, Y)
        seconds = time.perf_counter() - t0
        rows.append([f"{kind.upper()}AggInc", X.shape[1], seconds, budget,
                     "yes" if seconds <= budget else "NO", f"{result.p_value:.3g}"])
    print_table(f"AggInc at n = {n} (float64, B1 = B2 = 500, R = 200, one run)",
                ["test", "d", "seconds", "budget s", "within", "p-value"], rows)


def power(draws: int, sizes=(500, 1000)) -> None:
    """Power of kmeviz's AggInc tests and the authors' (JAX, float32) on the same draws of
    the ``kmeviz.experiments.agginc`` problems (draw k from seed k). The authors' ``seed``
    is a static argument of their jitted function (a new seed recompiles it, minutes per
    call here), so their runs keep its default, 42: the same Rademacher signs on every
    draw, each test still valid."""
    from kmeviz.experiments.agginc import PROBLEMS

    kinds = {"two-sample": "mmd", "independence": "hsic", "goodness of fit": "ksd"}
    rows = []
    for problem, (sampler, tests) in PROBLEMS.items():
        label, run_inc = list(tests.items())[1]  # the incomplete test
        for n in sizes:
            data = [sampler(n, True, np.random.default_rng(k)) for k in range(draws)]
            mine = sum(bool(run_inc(d, alpha=ALPHA, rng=np.random.default_rng(k)).reject)
                       for k, d in enumerate(data))
            if problem == "goodness of fit":  # the authors' KSD takes the score
                arrays = {"X": np.stack([X for X, _ in data]),
                          "Y": np.stack([t.score(X) for X, t in data])}
            else:
                arrays = {"X": np.stack([X for X, _ in data]),
                          "Y": np.stack([Y for _, Y in data])}
            theirs = run_peer(POWER_SCRIPT, arrays, kinds[problem])
            row = [problem, label, n, _rate(mine, draws)]
            row.append(_rate(sum(theirs), draws) if isinstance(theirs, list) else
                       (theirs or {}).get("error", "no peer (KMEVIZ_PEER_PYTHON unset)"))
            rows.append(row)
    print_table(f"AggInc power, {draws} draws a cell (the problems of kmeviz reproduce "
                "agginc), B1 = B2 = 500, R = 200; rate [95 % Clopper–Pearson]",
                ["problem", "test", "n", "kmeviz", "agginc (JAX, float32)"], rows)


def _rate(k: int, draws: int) -> str:
    low, high = binomial_interval(k, draws, 0.95)
    return f"{k / draws:.2f} [{low:.2f}, {high:.2f}]"


def dgemm_peak(side: int = 4000) -> float:
    """The machine's dgemm rate (flop/s), best of 3 square products on all cores."""
    A = np.random.default_rng(0).random((side, side))
    seconds, _ = best_time(lambda: A @ A)
    return 2.0 * side**3 / seconds


def hsicagg_bound(n: int = 2000, B: int = 1000) -> None:
    """HSICAgg (complete) against its flop bound: the 25 pairs' quadratic forms of all
    2B + 1 sign vectors need at least 25 · n(n + 1) · (2B + 1) flops (one multiply-add
    per entry on and above the diagonal of each symmetric pair matrix, per vector), at
    best at the machine's dgemm rate."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 2))
    Y = X + rng.normal(size=(n, 2))
    K.hsic_test(X[:200], Y[:200], estimator="hsicagg", n_resamples=10, rng=0)  # warm up
    peak = dgemm_peak()
    seconds, _ = best_time(lambda: K.hsic_test(X, Y, estimator="hsicagg", n_resamples=B,
                                               rng=0))
    flops = 25.0 * n * (n + 1) * (2 * B + 1)
    bound = flops / peak
    print_table(f"HSICAgg (complete) at n = {n}, B1 = B2 = {B}, against its flop bound "
                "(best of 3; dgemm peak measured in the same run)",
                ["n", "flops of the bound", "dgemm peak GFLOP/s", "bound s", "kmeviz s",
                 "bound ÷ kmeviz"],
                [[n, f"{flops:.3g}", peak / 1e9, bound, seconds, bound / seconds]])


def run(quick: bool = False) -> None:
    equality(10 if quick else 100)
    power(4 if quick else 100, (200,) if quick else (500, 1000))
    speed(1000 if quick else 5000)
    scale(10_000 if quick else 100_000)
    hsicagg_bound(500 if quick else 2000, 200 if quick else 1000)


if __name__ == "__main__":
    run(quick="--quick" in sys.argv)
