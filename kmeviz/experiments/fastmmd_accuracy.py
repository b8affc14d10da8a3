"""FastMMD (Zhao & Meng) Sec. 4.1 and 4.3: approximation error against L (Fig. 5) and the
efficiency comparison (Fig. 7a, 7b)."""

from __future__ import annotations

import time
from functools import partial

import numpy as np
import pandas as pd

from .._validation import check_choice, check_rng
from ..distributions.datasets import blobs_two_sample, uniform_boxes_two_sample
from ..kernels import GaussianKernel, median_heuristic
from ..twosample.mmd import FASTMMD_FEATURES, mmd2, mmd2_block, mmd2_fastmmd, mmd2_linear
from .runners import Progress, run_trials, trial_seeds

#: Fig. 5's numbers of basis functions L (the paper plots L up to about 10³)
FIG5_LS = tuple(2**k for k in range(1, 11))


def fastmmd_error_vs_L(Ls=FIG5_LS, *, n: int = 1000, epsilon: float = 4.0,
                       n_trials: int = 1000, rng=None, progress: Progress = None,
                       executor=None) -> pd.DataFrame:
    """Fig. 5: relative error ``|MMD²_L - MMD²| / MMD²`` of FastMMD-Fourier and -Fastfood
    against the exact biased and unbiased MMD², blob grid (ε = 4, n = 1000 per sample),
    Gaussian kernel σ = 1, averaged over ``n_trials`` (the paper's 1000).

    Each trial draws new data and, per L and method, one set of frequencies used for both
    the biased and the unbiased estimate. Columns: L, method, kind, mean_error, low, high
    (mean ± 1.96 standard errors: the Monte Carlo error), std, trials.
    """
    rng = check_rng(rng)
    Ls = [int(L) for L in Ls]
    trials = run_trials(partial(_error_trial, Ls, n, float(epsilon)),
                        trial_seeds(rng, n_trials), executor=executor, progress=progress)
    df = pd.DataFrame([row for rows in trials for row in rows])
    grouped = df.groupby(["L", "method", "kind"], as_index=False, sort=False).error
    out = grouped.agg(mean_error="mean", std="std", trials="size")
    half = 1.96 * out["std"] / np.sqrt(out["trials"])
    return out.assign(low=out.mean_error - half, high=out.mean_error + half)


def _error_trial(Ls, n, epsilon, seed) -> list[dict]:
    rng = np.random.default_rng(seed)
    X, Y = blobs_two_sample(n, epsilon=epsilon, rng=rng)
    kernel = GaussianKernel(1.0)
    exact = {kind: mmd2(X, Y, kernel, estimator=kind) for kind in ("biased", "unbiased")}
    rows = []
    for L in Ls:
        for features in FASTMMD_FEATURES:
            draw = int(rng.integers(2**63))
            for kind in ("biased", "unbiased"):
                value = mmd2_fastmmd(X, Y, kernel, n_features=L, features=features,
                                     estimator=kind, rng=draw)
                rows.append({"L": L, "method": f"FastMMD-{features.capitalize()}",
                             "kind": kind, "error": abs(value - exact[kind]) / exact[kind]})
    return rows


#: Fig. 7's two panels: the values of n per sample (a, at d = 16, L = 128) and of d (b)
FIG7_PANELS = {"a": (1_000, 3_000, 10_000, 30_000, 100_000),
               "b": (8, 16, 32, 64, 128, 256, 512, 1024)}


def fastmmd_efficiency(panels=("a", "b"), *, values: dict | None = None, n_b: int = 10_000,
                       L_b: int = 8192, repeat: int = 1, rng=None,
                       progress: Progress = None) -> pd.DataFrame:
    """Fig. 7: seconds to compute the MMD² of FastMMD's uniform boxes (U[0, 0.95]^d against
    U[0.95, 1]^d, n points per sample) by the exact biased MMD², the linear-time MMD, the
    B-test (block √n) and FastMMD-Fourier and -Fastfood; (a) against n at d = 16, L = 128,
    (b) against d at n = 10⁴, L = 8192. Gaussian kernel at the median heuristic.

    ``values`` overrides a panel's values (``{"a": (1000, 2000)}``), ``n_b`` and ``L_b``
    panel (b)'s fixed n and L (smaller for a quick look); ``repeat`` > 1 keeps
    the best of that many calls. The calls run one after another in this process (no
    executor: timings must not share the machine). Columns: panel, x (n or d), n, d, L,
    method, runtime_s.
    """
    rng = check_rng(rng)
    cases = []
    for panel in panels:
        check_choice(panel, "panel", tuple(FIG7_PANELS))
        for x in (values or {}).get(panel, FIG7_PANELS[panel]):
            if panel == "a":
                cases.append(("(a) d = 16, L = 128", int(x), int(x), 16, 128))
            else:  # the label says the n and L it ran with
                cases.append((f"(b) n = {n_b:,}, L = {L_b}", int(x), int(n_b), int(x),
                              int(L_b)))
    rows = []
    for i, (label, x, n, d, L) in enumerate(cases):
        X, Y = uniform_boxes_two_sample(n, dim=d, rng=rng)
        kernel = GaussianKernel(median_heuristic(X, Y, rng=0))
        for method, compute in _efficiency_methods(kernel, L).items():
            best = min(_seconds(compute, X, Y) for _ in range(repeat))
            rows.append({"panel": label, "x": x, "n": n, "d": d, "L": L, "method": method,
                         "runtime_s": best})
        if progress is not None:
            progress(i + 1, len(cases))
    return pd.DataFrame(rows)


def _efficiency_methods(kernel, L) -> dict:
    return {"exact MMD": partial(mmd2, kernel=kernel),
            "MMD-linear": partial(mmd2_linear, kernel=kernel),
            "B-test": partial(mmd2_block, kernel=kernel),
            "FastMMD-Fourier": partial(mmd2_fastmmd, kernel=kernel, n_features=L,
                                       features="fourier", rng=0),
            "FastMMD-Fastfood": partial(mmd2_fastmmd, kernel=kernel, n_features=L,
                                        features="fastfood", rng=0)}


def _seconds(compute, X, Y) -> float:
    t0 = time.perf_counter()
    compute(X, Y)
    return time.perf_counter() - t0
