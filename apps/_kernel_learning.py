"""The kernel-learning rows of the bootstrap explorer (issue 42): the power criterion Ĵ
over log σ and over two ARD length scales on the training part, each with the L-BFGS path
of ``kmeviz.learn_kernel``, and the power on fresh draws of every way to choose the kernel
(median heuristic, learned σ, learned ARD, MMDAgg, MMD-FUSE, cross-MMD), filled in as it
runs, with the training share as a slider so the price of splitting shows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import panel as pn
import param
from kmeviz_apps._cache import shared_cache
from kmeviz_apps._common import Plot, error_message

import kmeviz as K
from kmeviz import viz
from kmeviz.experiments import binomial_interval, kernel_choice_test
from kmeviz.experiments.power import METHODS, rate_table
from kmeviz.twosample.power_tests import TRAIN_FRACTION

#: draws of the kernel-choice power job, run 5 at a time so the bars fill in
CHOICE_DRAWS, CHOICE_CHUNK = 50, 5
#: B of each test in the power job (p-values resolve 1/201, well below α)
CHOICE_RESAMPLES = 200
#: the heat map's grid and the training pairs it reads (each cell is one Ĵ: 441 cells on
#: 300 pairs took 8 s at d = 10 on 2 cores; 225 on 200 pairs, about 1 s)
MAP_POINTS, MAP_PAIRS = 15, 200
#: Ĵ curve points over σ
CURVE_POINTS = 40

PLOTS = (
    Plot("criterion_view", "Ĵ over σ",
         "The power criterion Ĵ = MMD²_u/σ̂_H1 of a Gaussian kernel on the training part, "
         "against σ: the test's asymptotic power grows with Ĵ, not with MMD². Dots: the "
         "L-BFGS iterates of learn_kernel from the best grid point; dotted: the median "
         "heuristic, which on the blob grid sits far from the peak."),
    Plot("ard_view", "Ĵ over two ARD scales",
         "Ĵ of the ARD Gaussian kernel over the length scales of the first two coordinates "
         "(the others held at their learned values; at most 200 training pairs), with the "
         "optimiser's path from the learned isotropic σ. On the d = 10 problem only "
         "coordinates 1 and 2 differ: short ℓ₁, ℓ₂ and long others win."),
    Plot("choice_power_view", "Power of each kernel choice",
         "Power on fresh draws of each way to choose the kernel, filled in as the draws "
         "run. The split tests learn on the training share of the slider and test on the "
         "rest: move it and rerun to see the price of splitting. The learned (all data) "
         "test learns on every point and learns again in every permutation; MMDAgg and "
         "MMD-FUSE use every point; cross-MMD needs no permutations but pays about √2 in "
         "power. Past the time budget the draws so far stay, with a note."),
)


@shared_cache(maxsize=8)
def learned(make_samples, data_key, seed, fraction):
    """learn_kernel's isotropic and ARD kernels on the draw's training part, and that part."""
    X, Y = make_samples(data_key, seed)
    ard = K.learn_kernel(X, Y, kernel="ard", train_fraction=fraction, rng=seed)
    Xt, Yt = X[ard.train[0]], Y[ard.train[1]]
    pairs = min(len(Xt), len(Yt))
    return {"path": ard.path, "median": ard.median, "X": Xt[:pairs], "Y": Yt[:pairs],
            "lengthscales": np.array(ard.kernel.lengthscales)}


@shared_cache(maxsize=8)
def criterion_curve(make_samples, data_key, seed, fraction):
    state = learned(make_samples, data_key, seed, fraction)
    sigmas = np.geomspace(state["median"] / 100, state["median"] * 10, CURVE_POINTS)
    values = [K.power_criterion(state["X"], state["Y"], K.GaussianKernel(s)).criterion
              for s in sigmas]
    path = state["path"][state["path"].family == "gaussian"]
    return sigmas, np.array(values), (np.exp(path.log_scale_0.to_numpy()),
                                      path.J.to_numpy())


@shared_cache(maxsize=8)
def criterion_map(make_samples, data_key, seed, fraction):
    state = learned(make_samples, data_key, seed, fraction)
    X, Y, ell = state["X"][:MAP_PAIRS], state["Y"][:MAP_PAIRS], state["lengthscales"]
    path = state["path"][state["path"].family == "ard"]
    trail = np.exp(path[["log_scale_0", "log_scale_1"]].to_numpy())
    low = min(trail.min(), state["median"]) / 30
    high = max(trail.max(), state["median"]) * 10
    grid = np.geomspace(low, high, MAP_POINTS)
    values = np.empty((MAP_POINTS, MAP_POINTS))
    for i, l2 in enumerate(grid):
        for j, l1 in enumerate(grid):
            scales = ell.copy()
            scales[:2] = l1, l2
            values[i, j] = K.power_criterion(X, Y, K.ARDGaussianKernel(scales)).criterion
    return grid, grid, values, (trail[:, 0], trail[:, 1])


class KernelLearning(param.Parameterized):
    """The mixin: the training-share slider, the plots and the power job. The explorer
    gives ``data_key``, ``seed``, ``alpha``, ``make_samples``, ``sample`` and
    ``_start_button_job``, and its ``criterion_view`` and ``ard_view`` (which name its
    data parameters) return ``criterion_plot()`` and ``criterion_map_plot()``."""

    #: the split test's own option (``TestOption``): its default and words, documented once
    train_fraction = param.Number(default=TRAIN_FRACTION.default, bounds=(0.2, 0.8),
                                  step=0.05, label="Training share (split tests)",
                                  doc=TRAIN_FRACTION.doc)
    choice_result = param.Parameter(default=None, precedence=-1)

    def _learning_key(self):
        return (type(self).make_samples, self.data_key, int(self.seed),
                float(self.train_fraction))

    def choice_button(self) -> pn.widgets.Button:
        button = pn.widgets.Button(label=f"Power of each kernel choice ({CHOICE_DRAWS} draws)")
        button.on_click(self._choice_power)
        self._choice_button = button
        return button

    def _choice_power(self, _event=None):
        """Every kernel choice on CHOICE_DRAWS fresh draws, a table after every
        CHOICE_CHUNK draws (the bars fill in), as the button's job."""
        data_key, alpha, fraction = self.data_key, self.alpha, float(self.train_fraction)
        rng = np.random.default_rng([int(self.seed), 42])
        sample = type(self).sample

        def work(_emit):
            hits = dict.fromkeys(METHODS, 0)
            for done in range(CHOICE_CHUNK, CHOICE_DRAWS + 1, CHOICE_CHUNK):
                for _ in range(CHOICE_CHUNK):
                    X, Y = sample(data_key, rng)
                    for method in METHODS:
                        hits[method] += kernel_choice_test(
                            method, X, Y, n_resamples=CHOICE_RESAMPLES, alpha=alpha,
                            train_fraction=fraction, rng=rng).reject
                yield done, rate_table(hits, done)

        self._start_button_job(self._choice_button, "choice_power_view", work,
                               "choice_result", total=CHOICE_DRAWS)

    def criterion_plot(self):
        sigmas, values, path = criterion_curve(*self._learning_key())
        state = learned(*self._learning_key())
        return viz.criterion_curve_plot(sigmas, values, path, median=state["median"])

    def criterion_map_plot(self):
        return viz.criterion_map_plot(*criterion_map(*self._learning_key()))

    @param.depends("choice_result")
    def choice_power_view(self):
        res = self.choice_result
        if res is None:
            return pn.pane.Markdown(
                f"Press *Power of each kernel choice* to estimate, over {CHOICE_DRAWS} fresh "
                f"draws, the power of {', '.join(METHODS)} (filled in as it runs; a new "
                "press or a closed page stops it).")
        if isinstance(res, Exception):
            return error_message(res, self)
        return viz.choice_power_plot(res)


def kernel_power(sample, data_key, collection, B, alpha, n_draws, rng) -> list:
    """Per draw: each kernel's single test (p_λ ≤ α), the aggregated decision, and the
    median heuristic's single test, with the collection held fixed (MMDAgg's row; draws
    ``sample(data_key, rng)``)."""
    out = []
    for _ in range(n_draws):
        X, Y = sample(data_key, rng)
        table = K.mmd_test(X, Y, collection, estimator="mmdagg", n_resamples=B, alpha=alpha,
                           rng=rng)
        median = K.KernelCollection([K.GaussianKernel(K.median_heuristic(X, Y, rng=rng))])
        single = K.mmd_test(X, Y, median, estimator="mmdagg", n_resamples=B, alpha=alpha,
                            rng=rng).fitted["kernels"]
        out.append((table.fitted["kernels"]["p_value"].to_numpy() <= alpha, table.reject,
                    bool(single["p_value"].iloc[0] <= alpha)))
    return out



def power_table(draws: list, sigmas) -> pd.DataFrame:
    """Rates and 95 % intervals from ``kernel_power`` draws: one row per σ, MMDAgg and the
    median heuristic (``kind`` "single σ", "aggregated", "median heuristic")."""
    singles = np.array([d[0] for d in draws])
    columns = [(f"σ = {s:.3g}", "single σ", float(s), singles[:, i])
               for i, s in enumerate(sigmas)]
    columns += [("MMDAgg", "aggregated", np.nan, np.array([d[1] for d in draws])),
                ("median heuristic", "median heuristic", np.nan,
                 np.array([d[2] for d in draws]))]
    rows = []
    for test, kind, sigma, rejected in columns:
        k = int(rejected.sum())
        lo, hi = binomial_interval(k, len(draws), 0.95)
        rows.append({"test": test, "kind": kind, "sigma": sigma, "rejections": k,
                     "repeats": len(draws), "rate": k / len(draws), "ci_low": lo,
                     "ci_high": hi})
    return pd.DataFrame(rows)
