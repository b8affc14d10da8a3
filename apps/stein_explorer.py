"""Stein explorer (Kalinke et al., *Nyström Kernel Stein Discrepancy*).

Pick a target p (known through its score) and the distribution Q that actually produced
the sample; see the density and score field, the Stein witness of the full and Nyström
estimators, the KSD² values and both wild-bootstrap goodness-of-fit tests.
"""

from __future__ import annotations

import numpy as np
import panel as pn
import param
from kmeviz_apps._cache import shared_cache
from kmeviz_apps._common import Explorer, Plot, guarded
from kmeviz_apps._jobs import live_view

import kmeviz as K
from kmeviz import viz
from kmeviz.gof.ksd import stein_witness
from kmeviz.kernels.choices import KERNEL_CHOICES, kernel_by_name

TARGETS = ("standard normal", "Gaussian mixture", "Student-t (5 d.o.f.)")
SAMPLERS = ("the target itself", "shifted by s", "scaled by 1 + s", "Laplace (unit variance)",
            "Student-t (5 d.o.f.)")
#: the base kernels offered: IMQ with its own c and β, and every kernel of the menus
#: (``kmeviz.kernels.choices``) whose derivatives the Stein kernel needs
#: (``KernelCapability.DIFFERENTIABLE``), at its scale ``bandwidth``
KERNEL_NAMES = ("IMQ", *(choice.label for choice in KERNEL_CHOICES.values()
                         if K.KernelCapability.DIFFERENTIABLE in choice.factory(1.0).capabilities
                         and not isinstance(choice.factory(1.0), K.IMQKernel)))
DATA_PARAMS = ("dimension", "target", "sampler", "strength", "n", "seed")
KERNEL_PARAMS = ("kernel", "bandwidth", "imq_c", "imq_beta")
TEST_PARAMS = ("n_landmarks", "n_resamples", "alpha")
#: what the cached tests depend on: everything but α (``at_level`` gives the other levels)
RESULT_PARAMS = (*DATA_PARAMS, *KERNEL_PARAMS, "n_landmarks", "n_resamples")


def NOT_SEED(params: tuple) -> tuple:  # noqa: N802 - reads as a constant of params
    """``params`` without the seed, which the views follow in place."""
    return tuple(p for p in params if p != "seed")


def make_target(name: str, d: int):
    if name == TARGETS[0]:
        return K.NormalTarget(np.zeros(d))
    if name == TARGETS[1]:
        means = np.zeros((2, d))
        means[:, 0] = (-1.5, 1.5)
        return K.GaussianMixture(means, [0.49, 0.49])  # standard deviations 0.7
    return K.StudentTTarget(5.0, np.zeros(d))


@shared_cache(maxsize=16)
def make_sample(target_name, sampler, d, n, strength, seed):
    rng = np.random.default_rng(seed)
    if sampler == SAMPLERS[3]:
        return rng.laplace(scale=1 / np.sqrt(2), size=(n, d))
    if sampler == SAMPLERS[4]:
        return K.StudentTTarget(5.0, np.zeros(d)).sample(n, rng=rng)
    X = make_target(target_name, d).sample(n, rng=rng)
    if sampler == SAMPLERS[1]:
        X[:, 0] += strength
    elif sampler == SAMPLERS[2]:
        X *= 1.0 + strength
    return X


def make_kernel(kernel_key):
    name, *args = kernel_key
    return K.IMQKernel(*args) if name == KERNEL_NAMES[0] else kernel_by_name(name, *args)


@shared_cache(maxsize=16)
def run_tests(data_key, kernel_key, m, D):
    """(full test, Nyström test, U-statistic) on the cached sample, same seed for both, at
    α = 0.05; other levels come from ``TestResult.at_level``, so an α step reruns nothing."""
    X = make_sample(*data_key)
    target, kernel = make_target(data_key[0], data_key[2]), make_kernel(kernel_key)
    seed = data_key[-1] + 1
    full = K.ksd_test(X, target, kernel, estimator="full", n_resamples=D, rng=seed)
    nys = K.ksd_test(X, target, kernel, estimator="nystrom", n_landmarks=m, n_resamples=D,
                     rng=seed)
    return full, nys, K.ksd2(X, target, kernel, estimator="unbiased")


@shared_cache(maxsize=16)
def witnesses(data_key, kernel_key, m, D):
    """(grid, full witness, Nyström witness, landmarks) on the plot grid, for the cached
    tests: computed once per test, not on every α step or session."""
    _, nys_result, _ = run_tests(data_key, kernel_key, m, D)
    X = make_sample(*data_key)
    d = data_key[2]
    target, kernel = make_target(data_key[0], d), make_kernel(kernel_key)
    grid = plot_grid(X, d)
    pts = grid_points(grid, d)
    landmarks = X[nys_result.fitted["landmarks"]]
    full = stein_witness(X, target, kernel, pts)
    nys = stein_witness(landmarks, target, kernel, pts, weights=nys_result.fitted["weights"])
    if d == 2:
        shape = (len(grid[1]), len(grid[0]))
        full, nys = full.reshape(shape), nys.reshape(shape)
    return grid, full, nys, landmarks


def plot_grid(X, d):
    lo, hi = min(X.min(), -3.0) - 0.5, max(X.max(), 3.0) + 0.5
    lo, hi = max(lo, -8.0), min(hi, 8.0)
    if d == 1:
        return np.linspace(lo, hi, 300)
    axis = np.linspace(lo, hi, 64)
    return axis, axis


def grid_points(grid, d):
    if d == 1:
        return grid[:, None]
    g1, g2 = np.meshgrid(*grid)
    return np.column_stack([g1.ravel(), g2.ravel()])


class SteinExplorer(Explorer):
    """Kernel Stein discrepancy and its Nyström approximation, live."""

    title = "Stein explorer"
    CONTROLS = (*DATA_PARAMS, *KERNEL_PARAMS, *TEST_PARAMS)
    WIDGETS = {name: {"type": pn.widgets.FloatSlider, "throttled": True}
               for name in ("strength", "alpha")} | {
        "n": {"type": pn.widgets.IntSlider, "throttled": True},
        "n_landmarks": {"type": pn.widgets.IntInput, "step": 10}} | {
        name: {"type": pn.widgets.FloatInput, "step": 0.1}
        for name in ("bandwidth", "imq_c", "imq_beta")}
    SUMMARY_WIDTH = 420
    PLOTS = (
        Plot("target_view", "Target and sample",
             "The target density p (known only up to a constant to KSD) with its score ∇ log "
             "p, and the sample from Q being tested."),
        Plot("witness_view", "Stein witness",
             "The Stein witness x ↦ E_{X∼Q̂} h_p(X, x), full and Nyström (projected on the "
             "landmarks' span); zero everywhere when Q = P."),
        Plot("null_full_view", "Full bootstrap",
             "Wild-bootstrap null of the V-statistic (Eq. 9, Markov-chain signs of Eq. 10) "
             "with the observed KSD² and the threshold."),
        Plot("null_nystrom_view", "Nyström bootstrap",
             "The Nyström bootstrap (Eq. 11), ||R K_mn w||² / n² for every sign vector w at "
             "once, with the Nyström KSD² (Eq. 8)."),
    )

    dimension = param.Selector(default=1, objects=[1, 2])
    target = param.Selector(default=TARGETS[0], objects=list(TARGETS), label="target p")
    sampler = param.Selector(default=SAMPLERS[1], objects=list(SAMPLERS),
                             label="sample drawn from Q =")
    strength = param.Number(default=0.5, bounds=(0.0, 3.0), step=0.1,
                            label="s (shift or scale)")
    n = param.Integer(default=500, bounds=(20, 5000))
    kernel = param.Selector(default="IMQ", objects=list(KERNEL_NAMES), label="base kernel")
    bandwidth = param.Number(default=1.0, bounds=(0.0, 1000.0), label="bandwidth σ")
    imq_c = param.Number(default=1.0, bounds=(0.0, 100.0), label="IMQ c")
    imq_beta = param.Number(default=-0.5, bounds=(-50.0, 50.0), label="IMQ β")
    n_landmarks = param.Integer(default=90, bounds=(1, 2000), label="Nyström m")
    n_resamples = param.Integer(default=500, bounds=(1, 5000), label="D (bootstrap replicates)")
    alpha = param.Number(default=0.05, bounds=(0.01, 0.2), step=0.01, label="level α")

    @property
    def data_key(self):
        return (self.target, self.sampler, int(self.dimension), self.n, float(self.strength),
                self.seed)

    @property
    def kernel_key(self):
        if self.kernel == KERNEL_NAMES[0]:
            return (self.kernel, float(self.imq_c), float(self.imq_beta))
        return (self.kernel, float(self.bandwidth))

    def _tests(self):
        make_kernel(self.kernel_key)  # readable kernel errors before any work
        full, nys, u_stat = run_tests(self.data_key, self.kernel_key, self.n_landmarks,
                                      self.n_resamples)
        return full.at_level(self.alpha), nys.at_level(self.alpha), u_stat

    def _target_plot(self):
        X = make_sample(*self.data_key)
        d = int(self.dimension)
        target = make_target(self.target, d)
        grid = plot_grid(X, d)
        pts = grid_points(grid, d)
        density = np.exp(target.log_density(pts))
        score = target.score(pts)
        if d == 2:
            density = density.reshape(len(grid[1]), len(grid[0]))
            score = score.reshape(len(grid[1]), len(grid[0]), 2)
        return viz.stein_target_plot(grid, density, score, X,
                                     title=f"Target: {self.target}; sample: {self.sampler}")

    @param.depends(*NOT_SEED(DATA_PARAMS))
    @guarded
    def target_view(self):
        """A new seed redraws the sample in place (the figure, and its zoom, stay)."""
        return live_view(self, ("seed",), self._target_plot)

    def _witness_plot(self):
        make_kernel(self.kernel_key)  # readable kernel errors before any work
        grid, full, nys, landmarks = witnesses(self.data_key, self.kernel_key,
                                               self.n_landmarks, self.n_resamples)
        return viz.stein_witness_plot(grid, full, nys, landmarks)

    @param.depends(*NOT_SEED(RESULT_PARAMS))
    @guarded
    def witness_view(self):
        return live_view(self, ("seed",), self._witness_plot)

    def _null_view(self, which: int, title_prefix: str):
        """One bootstrap null, redrawn in place on an α step or a new seed."""
        return live_view(self, ("alpha", "seed"), lambda: viz.null_histogram(
            self._tests()[which], statistic="KSD²", title_prefix=title_prefix))

    @param.depends(*NOT_SEED(RESULT_PARAMS))
    @guarded
    def null_full_view(self):
        return self._null_view(0, "Full KSD test: ")

    @param.depends(*NOT_SEED(RESULT_PARAMS))
    @guarded
    def null_nystrom_view(self):
        return self._null_view(1, "Nyström KSD test: ")

    @param.depends(*DATA_PARAMS, *KERNEL_PARAMS, *TEST_PARAMS)
    @guarded
    def summary_view(self):
        full, nys, u_stat = self._tests()

        def span(cls, value, fmt):
            return f'<span class="kmeviz-{cls}">{value:{fmt}}</span>'

        def verdict(res):
            return "reject H0" if res.reject else "keep H0"

        rows = [("KSD²", span("ksd-full", full.statistic, ".5f"),
                 span("ksd-nystrom", nys.statistic, ".5f")),
                (f"p-value (D = {self.n_resamples})", span("p-full", full.p_value, ".4f"),
                 span("p-nystrom", nys.p_value, ".4f")),
                (f"threshold at α = {self.alpha:g}", span("threshold-full", full.threshold, ".5f"),
                 span("threshold-nystrom", nys.threshold, ".5f")),
                (f"decision at α = {self.alpha:g}", verdict(full), verdict(nys)),
                ("seconds (statistic + bootstrap)", f"{full.runtime['total']:.3f}",
                 f"{nys.runtime['total']:.3f}")]
        table = "\n".join(f"| {a} | {b} | {c} |" for a, b, c in rows)
        return pn.pane.Markdown(f"""
| | full (V-statistic) | Nyström (m = {self.n_landmarks}) |
|---|---|---|
{table}

U-statistic KSD² = {u_stat:.5f}. H0: the sample comes from p.
""", css_classes=["kmeviz-summary"], sizing_mode="stretch_width")


create_app = SteinExplorer.create_app
SteinExplorer.serve_if_script(__name__)
