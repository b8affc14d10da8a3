"""Time-series independence tests against hyppo's DcorrX (issue 55, points 3 and 4),
measured in one run: ``python -m benchmarks.bench_timeseries [--quick]``.

- **speed**: ``hsic_test(null="dependent-wild-bootstrap")`` (B = 1000) and
  ``hsic_test(estimator="max-lag", null="shift")`` (every admissible shift) against
  ``hyppo.time_series.DcorrX().test(x, y, reps=1000)`` (its default lag search, max_lag =
  ⌈log n⌉, block permutations; given (Y, X), so that its one-sided search of lags looks at
  Y_t against X_{t−j}) at n = 1000 and 4000, on the same series. The statistics
  differ (HSIC with a Gaussian kernel against distance correlation summed over lags), so
  the p-values are not compared one to one: the level and power below (and
  ``docs/results/timeseries_calibration.txt``) say what each buys.
- **level and power, side by side**: on the same draws, the rejection rate at α = 0.05
  of the three kmeviz time-series tests and of DcorrX (reps = 200) on independent AR(1)
  pairs (φ = 0.9) and on the lagged dependence Y_t = cos(2 X_{t−k}) + noise (k = 1, 3),
  n = 300.

hyppo runs in a separate environment (kmeviz never needs it): ``python -m venv
/tmp/peers && /tmp/peers/bin/pip install hyppo``, then
``KMEVIZ_PEER_PYTHON=/tmp/peers/bin/python``. Its numba code is compiled before the clock
starts.
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

import kmeviz as K
from kmeviz.distributions.series import independent_ar1_pair, lagged_dependence
from kmeviz.experiments import binomial_interval

from ._util import print_table

PEER_SCRIPT = """
import json, sys, time, warnings
import numpy as np
from hyppo.time_series import DcorrX
warnings.simplefilter("ignore")
data = np.load(sys.argv[1])
reps = int(sys.argv[2])
DcorrX().test(data["x0"][:40], data["y0"][:40], reps=5)  # compile numba before the clock
out = []
for k in range(int(data["count"])):
    x, y = data[f"x{k}"], data[f"y{k}"]
    t0 = time.perf_counter()
    # DcorrX searches y's past against x (dcorr of x[j:] and y[:n-j]): given (Y, X) it
    # looks at Y_t against X_(t-j), the direction of the lagged dependence below
    stat, p, _ = DcorrX().test(y, x, reps=reps, random_state=k)
    out.append({"seconds": time.perf_counter() - t0, "p_value": float(p)})
print(json.dumps(out))
"""

SEPARATE = ("biased/dependent-wild-bootstrap", "biased/shift", "max-lag/shift")


def peer(pairs, reps: int):
    """DcorrX's (seconds, p-value) on each pair, or None without a peer Python."""
    python = os.environ.get("KMEVIZ_PEER_PYTHON")
    if not python:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pairs.npz"
        arrays = {f"{name}{k}": a for k, (x, y) in enumerate(pairs)
                  for name, a in (("x", x), ("y", y))}
        np.savez(path, count=len(pairs), **arrays)
        done = subprocess.run([python, "-c", PEER_SCRIPT, str(path), str(reps)],
                              capture_output=True, text=True, timeout=7200)
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def ours(x, y, name: str, B: int = 1000):
    estimator, null = name.split("/")
    return K.hsic_test(x, y, estimator=estimator, null=null, n_resamples=B, rng=0)


#: hyppo's replicate count at each n: at n = 4000 its 1000 block permutations ran past 20
#: CPU-minutes here, so it runs 100 and its time is scaled to 1000 (linear in reps: each
#: is one distance correlation per lag); the table says which
PEER_REPS = {4000: 100}


def speed(sizes) -> None:
    rows = []
    for n in sizes:
        x, y = lagged_dependence(n, 1, 0.3, rng=0)
        ours(x[:100], y[:100], SEPARATE[0], 10)  # imports and first calls before the clock
        times = {}
        for name in (SEPARATE[0], SEPARATE[2]):
            t0 = time.perf_counter()
            result = ours(x, y, name)
            times[name] = (time.perf_counter() - t0, result.p_value)
        reps = PEER_REPS.get(n, 1000)
        theirs = peer([(x, y)], reps)
        if theirs is None or "error" in theirs:
            why = "set KMEVIZ_PEER_PYTHON" if theirs is None else theirs["error"]
            rows.append([n, *(f"{times[k][0]:.2f}" for k in times), "-", "-", "-", why])
            continue
        seconds = theirs[0]["seconds"] * 1000 / reps
        scaled = "" if reps == 1000 else f" ({reps} reps × {1000 // reps})"
        rows.append([n, *(f"{times[k][0]:.2f}" for k in times), f"{seconds:.1f}{scaled}",
                     *(f"{seconds / times[k][0]:.0f}×" for k in times),
                     f"{times[SEPARATE[0]][1]:.3g} / {times[SEPARATE[2]][1]:.3g} / "
                     f"{theirs[0]['p_value']:.3g}"])
    print_table("Time-series independence tests: kmeviz against hyppo's DcorrX (reps = "
                "1000, default lag search), lagged dependence k = 1, strength 0.3",
                ["n", "wild bootstrap s", "max-lag shift s", "DcorrX s",
                 "speed-up (wild)", "speed-up (shift)", "p-values (wild / shift / DcorrX)"],
                rows)


def level_and_power(n: int = 300, draws: int = 100) -> None:
    problems = {
        "independent AR(1), φ = 0.9 (size)": lambda rng: independent_ar1_pair(n, 0.9, rng=rng),
        "lagged, k = 1": lambda rng: lagged_dependence(n, 1, 1.0, rng=rng),
        "lagged, k = 3": lambda rng: lagged_dependence(n, 3, 1.0, rng=rng),
    }
    rows = []
    for label, draw in problems.items():
        pairs = [draw(np.random.default_rng([55, k])) for k in range(draws)]
        counts = {name: sum(ours(x, y, name, 300).p_value <= 0.05 for x, y in pairs)
                  for name in SEPARATE}
        theirs = peer(pairs, 200)
        if theirs is not None and "error" not in theirs:
            counts["DcorrX"] = sum(r["p_value"] <= 0.05 for r in theirs)

        def cell(k):
            lo, hi = binomial_interval(k, draws)
            return f"{k / draws:.2f} [{lo:.2f}, {hi:.2f}]"

        rows.append([label, *(cell(counts[name]) for name in SEPARATE),
                     cell(counts["DcorrX"]) if "DcorrX" in counts else "-"])
    print_table(f"Rejection rate at α = 0.05 on the same {draws} draws, n = {n} (95 % "
                "Clopper–Pearson)", ["data", *SEPARATE, "DcorrX (hyppo)"], rows)


def run(*, quick: bool = False) -> None:
    speed((300,) if quick else (1000, 4000))
    level_and_power(200 if quick else 300, 20 if quick else 100)


if __name__ == "__main__":
    run(quick="--quick" in sys.argv)
