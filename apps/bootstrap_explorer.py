"""Bootstrap null explorer (FastMMD Sec. 2.5 and 4.5; Gretton et al. 2009, 2012).

Choose data, kernel, an MMD estimator and a null distribution; see the null
histogram with the observed statistic, threshold and p-value, the Gamma and
spectral approximations overlaid, the runtime of each null, and the rejection rate
over 100 repeated draws. The kernel-choice row shows what the bandwidth does: MMDAgg
(Schrab et al. 2023) over a collection of Gaussian bandwidths, which of them reject,
where the median heuristic sits, and the power of every single bandwidth over 100 draws.
"""

from __future__ import annotations

import numpy as np
import panel as pn
import param
from kmeviz_apps._cache import shared_cache
from kmeviz_apps._common import KERNELS, Explorer, Plot, error_message, guarded
from kmeviz_apps._curve import ButtonJobs
from kmeviz_apps._jobs import live_view
from kmeviz_apps._kernel_learning import PLOTS as LEARNING_PLOTS
from kmeviz_apps._kernel_learning import KernelLearning, kernel_power, power_table
from kmeviz_apps._parameters import MedianBandwidth
from scipy import stats

import kmeviz as K
from kmeviz import viz
from kmeviz.experiments import binomial_interval, rejection_rates
from kmeviz.twosample.mmd_tests import exact_gamma, exact_spectral
from kmeviz.twosample.nulls import gamma_null_params, spectral_null

DATASETS = ("Blob grid: eigenvalue ratio ε", "Blob grid: mean shift",
            "Blob grid: variance ratio", "d = 10: two coordinates correlated (ρ)",
            "Same distribution (H0 true)")
#: the choices are the test registry's (kmeviz.registry.MMD_TESTS) tests of one given
#: kernel; those that choose their kernels (MMDAgg and MMD-FUSE with a collection, the
#: split test by learning, the learned-on-all-data test among coordinate kernels) are
#: compared in the kernel-choice rows
CHOOSES_KERNEL = K.Needs.KERNEL_COLLECTION | K.Needs.GAUSSIAN_KERNEL | K.Needs.COORDINATES
ESTIMATORS = tuple(dict.fromkeys(s.estimator for s in K.MMD_TESTS
                                 if not s.needs & CHOOSES_KERNEL))
NULLS = tuple(dict.fromkeys(s.null for s in K.MMD_TESTS if s.estimator in ESTIMATORS))
#: λ_min of MMDAgg's bandwidth rule: the authors' 5 % distance quantile, or the 1 % one
#: that reaches the blobs' own scale on the 5 × 5 grid (``mmdagg_kernels``)
BANDWIDTH_RULES = {"5 % quantile (the authors')": 0.05, "1 % quantile": 0.01}
#: the problem of the kernel-choice row (it tests with its own kernels)
DATA = ("dataset", "epsilon", "shift", "variance_ratio", "correlation", "n", "seed")
KERNEL_CHOICE = (*DATA, "bandwidth_rule", "n_resamples")
#: the kernel-learning rows' problem (``_kernel_learning``)
LEARNING = (*DATA, "train_fraction")
#: the parameters that define the test problem: every view but the repeat one reads them
PROBLEM = (*DATA, "kernel", "bandwidth", "estimator", "null", "features", "n_features")
REPEATS = 100
#: at most this many B1 = B2 replicates in the kernel-choice view: p-values resolve 1/501,
#: below the corrected thresholds u_α w_λ ≈ α/10 of ten bandwidths, and ten kernels at
#: n = 2000 per sample take about half a second (1000 took 1.2 s, issue 29's fuzz)
KERNEL_CHOICE_RESAMPLES = 500
#: the runtime panel times each null at B = min(B, RUNTIME_RESAMPLES): the panel compares
#: the nulls' costs, and running all of them at B = 5000 took 3 s (issue 29's fuzz); a
#: resampling null's time grows linearly in B, the analytic ones' not at all
RUNTIME_RESAMPLES = 200
#: B1 = B2 of each draw of the power curves (p-values resolve 1/501, below the corrected
#: thresholds u_α w_λ ≈ α/10 of ten bandwidths)
POWER_RESAMPLES = 500


def sample(data_key: tuple, rng):
    dataset, epsilon, shift, ratio, rho, n = data_key
    if dataset == DATASETS[0]:
        return K.blobs_two_sample(n, epsilon=epsilon, rng=rng)
    if dataset == DATASETS[1]:
        return K.blobs_two_sample(n, epsilon=1.0, shift=shift, rng=rng)
    if dataset == DATASETS[2]:
        return K.blobs_two_sample(n, epsilon=1.0, variance=ratio, rng=rng)
    if dataset == DATASETS[3]:
        return K.two_coordinates_two_sample(n, correlation=rho, rng=rng)
    return K.blobs_two_sample(n, epsilon=1.0, rng=rng)


@shared_cache(maxsize=8)
def make_samples(data_key: tuple, seed: int):
    return sample(data_key, seed)


@shared_cache(maxsize=32)
def run_test(data_key, seed, kernel_key, estimator, null, B, features, n_features):
    """The test at α = 0.05; other levels come from ``TestResult.at_level`` for free."""
    X, Y = make_samples(data_key, seed)
    kernel_free = K.Needs.NO_KERNEL in K.MMD_TESTS.get(estimator, null).needs
    return K.mmd_test(X, Y, None if kernel_free else KERNELS[kernel_key[0]](kernel_key[1]),
                      estimator=estimator, null=null, n_resamples=B, features=features,
                      n_features=n_features, rng=seed)


def approximates(estimator: str, compute) -> bool:
    """Whether ``estimator`` has a registered test computing its null by ``compute``
    (``exact_spectral``, ``exact_gamma``): the approximations drawn over its null are read
    from the registry, not from the estimator's name."""
    return any(spec.estimator == estimator and spec.compute is compute
               for spec in K.MMD_TESTS)


@shared_cache(maxsize=8)
def approximate_nulls(data_key, seed, kernel_key, estimator):
    """Gamma and spectral densities of the same null, where they apply."""
    X, Y = make_samples(data_key, seed)
    k = KERNELS[kernel_key[0]](kernel_key[1])
    curves = {}
    # a density to draw: the leading 200 eigenvalues and the tail's moments suffice
    rank = min(200, len(X) + len(Y))
    sim = spectral_null(X, Y, k, rank=rank).draws(len(X), len(Y), estimator, 20_000,
                                                  np.random.default_rng(0))
    density, edges = np.histogram(sim, bins=80, density=True)
    curves["spectral approximation"] = (0.5 * (edges[1:] + edges[:-1]), density)
    if approximates(estimator, exact_gamma):
        g = gamma_null_params(X, Y, k)
        x = np.linspace(0.0, edges[-1], 300)
        curves["Gamma approximation"] = (x, stats.gamma(g["shape"], scale=g["scale"]).pdf(x))
    return curves


@shared_cache(maxsize=8)
def kernel_choice(data_key, seed, quantile, B):
    """MMDAgg over Gaussian bandwidths (``mmdagg_kernels(family="gaussian")``) on the
    draw, and the median heuristic's σ."""
    X, Y = make_samples(data_key, seed)
    collection = K.mmdagg_kernels(X, Y, family="gaussian", low_quantile=quantile)
    res = K.mmd_test(X, Y, collection, estimator="mmdagg", n_resamples=B, rng=seed)
    return res, K.median_heuristic(X, Y, rng=seed)


class BootstrapExplorer(Explorer, MedianBandwidth, KernelLearning):
    """Null distributions of MMD two-sample tests, live."""

    title = "Bootstrap null explorer"
    CONTROLS = ("dataset", "epsilon", "shift", "variance_ratio", "correlation", "n", "seed",
                "kernel", "bandwidth", "estimator", "null", "n_resamples", "alpha",
                "features", "n_features", "bandwidth_rule", "train_fraction")
    WIDGETS = {name: {"type": pn.widgets.FloatSlider, "throttled": True}
               for name in ("epsilon", "shift", "variance_ratio", "correlation", "alpha",
                            "train_fraction")} | {
        "n": {"type": pn.widgets.IntSlider, "throttled": True},
        "n_resamples": {"type": pn.widgets.IntInput, "step": 100},
        "n_features": {"type": pn.widgets.IntInput, "step": 64},
        "bandwidth": {"type": pn.widgets.FloatInput, "step": 0.1}}
    SUMMARY_WIDTH = 360
    PLOTS = (
        Plot("null_view", "Null distribution",
             "The null distribution of the statistic (what it looks like when P = Q). The test "
             "rejects when the observed statistic lands right of the threshold."),
        Plot("runtime_view", "Runtime",
             "Seconds per test for each valid null of the chosen estimator on these data, at B "
             "= min(B, 200) replicates (a resampling null's time grows linearly in B)."),
        Plot("repeat_view", "Rejection rate",
             "Rejection rate over repeated draws with its 95% interval: under P = Q it should "
             "sit at α (size); otherwise it is the power."),
        Plot("kernel_choice_view", "MMDAgg's σ",
             "MMDAgg's Gaussian bandwidths on a log-σ axis: each kernel's statistic over its "
             "level-corrected threshold q_j(u_α). Above the dashed line at 1 a bandwidth "
             "rejects (green), and MMDAgg rejects when any does; the dotted line is the median "
             "heuristic's σ."),
        Plot("kernel_power_view", "Power per σ",
             "Power of each single bandwidth over repeated draws against σ, beside MMDAgg's "
             "(same collection) and the median heuristic's: no single σ need be known."),
        *LEARNING_PLOTS,
    )

    dataset = param.Selector(default=DATASETS[0], objects=list(DATASETS))
    epsilon = param.Number(default=2.0, bounds=(1.0, 6.0), step=0.1, doc="eigenvalue ratio ε")
    shift = param.Number(default=0.5, bounds=(0.0, 3.0), step=0.05, doc="mean shift of Q")
    variance_ratio = param.Number(default=1.5, bounds=(0.2, 4.0), step=0.05)
    correlation = param.Number(default=0.5, bounds=(-0.95, 0.95), step=0.05,
                               doc="ρ of Q's first two coordinates (d = 10 problem)")
    n = param.Integer(default=500, bounds=(20, 2000), doc="points per sample")
    kernel = param.Selector(default="Gaussian", objects=list(KERNELS))
    estimator = param.Selector(default="biased", objects=list(ESTIMATORS))
    null = param.Selector(default="permutation", objects=list(NULLS))
    n_resamples = param.Integer(default=1000, bounds=(1, 5000), label="B (replicates)")
    alpha = param.Number(default=0.05, bounds=(0.005, 0.5), step=0.005, label="α")
    features = param.Selector(default="fourier", objects=["fourier", "fastfood"],
                              label="Features (FastMMD)")
    n_features = param.Integer(default=256, bounds=(1, 4096), label="L (FastMMD)")
    bandwidth_rule = param.Selector(default=list(BANDWIDTH_RULES)[1],
                                    objects=list(BANDWIDTH_RULES),
                                    label="MMDAgg smallest bandwidth at")
    repeat_result = param.Parameter(default=None, precedence=-1)
    power_result = param.Parameter(default=None, precedence=-1)
    #: the draws, for the kernel-learning rows (``KernelLearning``)
    sample = staticmethod(sample)
    make_samples = staticmethod(make_samples)

    def __init__(self, **params):
        super().__init__(**params)
        self._repeat_button = pn.widgets.Button(label=f"Repeat {REPEATS} times", color="primary")
        self._repeat_button.on_click(self._repeat)
        self._power_button = pn.widgets.Button(label=f"Power of each σ ({REPEATS} draws)")
        self._power_button.on_click(self._power)
        self._runs = ButtonJobs(self, ("repeat_result", "power_result", "choice_result"))

    @property
    def data_key(self) -> tuple:
        return (self.dataset, float(self.epsilon), float(self.shift),
                float(self.variance_ratio), float(self.correlation), int(self.n))

    @property
    def kernel_key(self) -> tuple:
        return (self.kernel, float(self.bandwidth))

    def _result(self, null=None, n_resamples=None):
        res = run_test(self.data_key, self.seed, self.kernel_key, self.estimator,
                       null or self.null, n_resamples or self.n_resamples, self.features,
                       self.n_features)
        return res.at_level(self.alpha)

    def median_data(self) -> tuple:
        return make_samples(self.data_key, self.seed)

    def _repeat(self, _event=None):
        """Rejection rate over REPEATS fresh draws, in chunks so the progress bar moves: a
        job (``_jobs``) under the session's budget, one deadline for all chunks, stopped
        when the page closes."""
        self._start_button_job(self._repeat_button, "repeat_view", self._repeat_work(),
                               "repeat_result")

    def _repeat_work(self):
        tests = {f"{self.estimator} / {self.null}": {
            "kernel": KERNELS[self.kernel](self.bandwidth), "estimator": self.estimator,
            "null": self.null, "n_resamples": self.n_resamples,
            "features": self.features, "n_features": self.n_features}}
        data_key, alpha = self.data_key, self.alpha
        rng = np.random.default_rng([self.seed, 1])

        def work(_emit):
            rejections, chunk = 0, 5
            for done in range(0, REPEATS, chunk):
                df = rejection_rates(lambda g: sample(data_key, g), tests, n_repeats=chunk,
                                     alpha=alpha, rng=rng)
                rejections += int(df["rejections"].iloc[0])
                yield done + chunk, None
            lo, hi = binomial_interval(rejections, REPEATS, 0.95)
            yield REPEATS, df.assign(rejections=rejections, repeats=REPEATS,
                                     rate=rejections / REPEATS, ci_low=lo, ci_high=hi)
        return work

    def _kernel_choice(self):
        return kernel_choice(self.data_key, self.seed, BANDWIDTH_RULES[self.bandwidth_rule],
                             min(self.n_resamples, KERNEL_CHOICE_RESAMPLES))

    def _power(self, _event=None):
        """Power of every bandwidth of the current collection, of MMDAgg with it and of
        the median heuristic over REPEATS fresh draws, in chunks (the progress bar moves),
        as a job like ``_repeat``."""
        self._start_button_job(self._power_button, "kernel_power_view", self._power_work(),
                               "power_result")

    def _power_work(self):
        data_key, seed, alpha = self.data_key, self.seed, self.alpha
        rule, B = BANDWIDTH_RULES[self.bandwidth_rule], self.n_resamples
        rng = np.random.default_rng([seed, 2])

        def work(_emit):
            res, _ = kernel_choice(data_key, seed, rule, min(B, KERNEL_CHOICE_RESAMPLES))
            draws, chunk = [], 5
            for done in range(0, REPEATS, chunk):
                draws += kernel_power(sample, data_key, res.kernel, min(B, POWER_RESAMPLES), alpha,
                                      chunk, rng)
                yield done + chunk, None
            yield REPEATS, power_table(draws, res.kernel.scales())
        return work

    def _start_button_job(self, button, view: str, work, result: str, *,
                          total: int = REPEATS) -> None:
        """Run a button's ``work`` as its job (``ButtonJobs``: progress, Stop)."""
        self._runs.start(button, view, work, result, total=total)

    # -- views -------------------------------------------------------------------
    @param.depends(*PROBLEM)
    @guarded
    def null_view(self):
        """The null and statistic, rebuilt when the problem changes; B and α redraw the
        same figure in place (``live_view``), so they keep the zoom."""
        overlays = {}
        if approximates(self.estimator, exact_spectral):
            overlays = approximate_nulls(self.data_key, self.seed, self.kernel_key,
                                         self.estimator)
            overlays = {k: v for k, v in overlays.items() if not k.lower().startswith(self.null)}
        layers = {}  # the α-free layers of the current B, kept across α steps

        def frame():
            res = self._result()
            if self.n_resamples not in layers:
                layers.clear()
                layers[self.n_resamples] = viz.null_layers(res, overlays=overlays)
            return viz.null_histogram(res, layers=layers[self.n_resamples])

        return live_view(self, ("n_resamples", "alpha"), frame)

    @param.depends(*PROBLEM, "n_resamples", "alpha")
    @guarded
    def summary_view(self):
        res = self._result()
        verdict = "**reject H0**" if res.reject else "keep H0"
        replicates = "analytic" if res.null_samples is None else res.null_samples.size
        return pn.pane.Markdown(f"""
| | |
|---|---|
| statistic | <span class="kmeviz-statistic">{res.statistic:.6g}</span> |
| threshold at α = {res.alpha:g} | <span class="kmeviz-threshold">{res.threshold:.6g}</span> |
| p-value | <span class="kmeviz-pvalue">{res.p_value:.4f}</span> |
| decision | {verdict} |
| null replicates | <span class="kmeviz-replicates">{replicates}</span> |
""", css_classes=["kmeviz-summary"], sizing_mode="stretch_width")

    @param.depends(*PROBLEM)
    @guarded
    def runtime_view(self):
        """Runtime of every valid null at B = min(B, RUNTIME_RESAMPLES); re-measured when
        the data or estimator change (not on every B change, which would rerun every null
        each time)."""
        b = min(self.n_resamples, RUNTIME_RESAMPLES)
        runtimes = {null: self._result(null, b).runtime["total"]
                    for null in K.VALID_NULLS[self.estimator]}
        return viz.runtime_bars(runtimes).opts(title=f"Runtime of each null (B = {b})")

    @param.depends("repeat_result")
    def repeat_view(self):
        res = self.repeat_result
        if res is None:
            return pn.pane.Markdown(f"Press *Repeat {REPEATS} times* to estimate the "
                                    "rejection rate (size under H0, power otherwise).")
        if isinstance(res, Exception):
            return error_message(res, self)
        row = res.iloc[0]
        text = pn.pane.Markdown(
            f"Rejection rate <span class='kmeviz-rate'>{row['rate']:.2f}</span> "
            f"({row['rejections']}/{row['repeats']}), 95% interval "
            f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]")
        return pn.Column(text, viz.rejection_plot(res), sizing_mode="stretch_width")

    def _kernel_choice_plot(self):
        res, median = self._kernel_choice()
        res = res.at_level(self.alpha)
        return viz.kernel_choice_plot(res.fitted["kernels"], median=median,
                                      reject=res.reject, alpha=self.alpha)

    @param.depends(*KERNEL_CHOICE)
    @guarded
    def kernel_choice_view(self):
        """MMDAgg's kernels; an α step moves the markers in place."""
        return live_view(self, ("alpha",), self._kernel_choice_plot)

    @param.depends("power_result")
    def kernel_power_view(self):
        res = self.power_result
        if res is None:
            return pn.pane.Markdown(f"Press *Power of each σ* to estimate, over {REPEATS} "
                                    "draws, the power of every bandwidth of the collection "
                                    "beside MMDAgg's and the median heuristic's.")
        if isinstance(res, Exception):
            return error_message(res, self)
        return viz.kernel_power_plot(res)

    # -- layout ------------------------------------------------------------------
    def buttons(self) -> list:
        return [pn.Row(self.median_button(), self._repeat_button), self._power_button,
                self.choice_button(), *self._runs.widgets]

    @param.depends(*LEARNING)
    @guarded
    def criterion_view(self):
        return self.criterion_plot()

    @param.depends(*LEARNING)
    @guarded
    def ard_view(self):
        return self.criterion_map_plot()


create_app = BootstrapExplorer.create_app
BootstrapExplorer.serve_if_script(__name__)
