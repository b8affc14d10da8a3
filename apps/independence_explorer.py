"""Independence explorer (HSIC: Gretton et al. 2005, 2008; Zhang et al. 2018; Albert et
al. 2022).

Pick a kind of dependence from the literature and its strength; see the joint sample, the
witness of dependence μ̂_XY − μ̂_X ⊗ μ̂_Y (where pairs occur more or less often than
independence predicts), the null of the chosen test with its statistic, the table of
every independence test, and the power of three of them against the strength. The
uncorrelated-but-dependent cases (rotated sources, circle, XOR) print Pearson's r beside
HSIC's p-value.
"""

from __future__ import annotations

import numpy as np
import panel as pn
import param
from kmeviz_apps._cache import shared_cache
from kmeviz_apps._common import Explorer, Plot, error_message, guarded
from kmeviz_apps._curve import PowerCurve

import kmeviz as K
from kmeviz import viz
from kmeviz.distributions.dependence import DEPENDENCE_PROBLEMS
from kmeviz.independence.compare import pearson_r
from kmeviz.needs import Needs

PROBLEMS = tuple(DEPENDENCE_PROBLEMS)
TEST_NAMES = tuple(spec.name for spec in K.INDEPENDENCE_TESTS)
DATA_PARAMS = ("problem", "strength", "noise", "n", "seed")
KERNEL_PARAMS = ("bandwidth_x", "bandwidth_y")
#: the tests of the power curve, and its grid of strengths and draws per point
POWER_TESTS = ("biased/permutation", "biased/gamma", "nystrom/spectral")
POWER_POINTS = 6
POWER_DRAWS = 40
POWER_RESAMPLES = 200


@shared_cache(maxsize=16)
def make_pairs(problem: str, strength: float, noise: float, n: int, seed: int):
    """The pairs of ``problem`` at ``strength``, with N(0, noise²) added to Y."""
    rng = np.random.default_rng(seed)
    X, Y = DEPENDENCE_PROBLEMS[problem][0](n, strength, rng=rng)
    return X, Y + noise * rng.standard_normal(Y.shape)


def kernels(key):
    return K.GaussianKernel(key[0]), K.GaussianKernel(key[1])


@shared_cache(maxsize=16)
def run_test(data_key, kernel_key, name: str, B: int):
    X, Y = make_pairs(*data_key)
    kx, ky = kernels(kernel_key)
    estimator, null = name.split("/")
    own_kernels = Needs.KERNEL_COLLECTION in K.INDEPENDENCE_TESTS.get(estimator, null).needs
    options = {} if own_kernels else {"kernel_x": kx, "kernel_y": ky}  # HSICAgg: its own
    return K.hsic_test(X, Y, estimator=estimator, null=null, n_resamples=B,
                       rng=data_key[-1] + 1, **options)


@shared_cache(maxsize=16)
def comparison(data_key, kernel_key, B: int):
    X, Y = make_pairs(*data_key)
    kx, ky = kernels(kernel_key)
    return K.compare_independence(X, Y, kernel_x=kx, kernel_y=ky, n_resamples=B,
                                  rng=data_key[-1] + 2, time_budget=8.0)


@shared_cache(maxsize=16)
def witness(data_key, kernel_key):
    """(grid of x, grid of y, the witness on them, HSIC_b = its squared norm), once per
    sample and kernels for every session."""
    X, Y = make_pairs(*data_key)
    gx = np.linspace(X.min(), X.max(), 60)
    gy = np.linspace(Y.min(), Y.max(), 60)
    kx, ky = kernels(kernel_key)
    return (gx, gy, K.hsic_witness(X, Y, gx, gy, kernel_x=kx, kernel_y=ky),
            K.hsic(X, Y, kernel_x=kx, kernel_y=ky))


def power_grid(problem: str, strength: float) -> np.ndarray:
    """Strengths from independence (or the weakest) to twice the current one."""
    _, _, independent, _ = DEPENDENCE_PROBLEMS[problem]
    low = 0.0 if independent is not None else strength / 4
    high = max(2.0 * strength, 0.1)
    if problem == "correlated Gaussians":
        high = min(high, 1.0)
    return np.linspace(low, high, POWER_POINTS)


class IndependenceExplorer(Explorer):
    """Do X and Y depend on each other? HSIC and its tests, live."""

    title = "Independence explorer"
    CONTROLS = (*DATA_PARAMS, *KERNEL_PARAMS, "test", "n_resamples", "alpha")
    WIDGETS = {"strength": {"type": pn.widgets.FloatSlider, "throttled": True},
               "noise": {"type": pn.widgets.FloatSlider, "throttled": True},
               "alpha": {"type": pn.widgets.FloatSlider, "throttled": True},
               "n": {"type": pn.widgets.IntSlider, "throttled": True}} | {
        name: {"type": pn.widgets.FloatInput, "step": 0.1} for name in KERNEL_PARAMS}
    SUMMARY_WIDTH = 400
    PLOTS = (
        Plot("joint_view", "Joint sample",
             "The pairs (x_i, y_i). Independence means the picture is a product: every "
             "vertical slice has the same spread of y."),
        Plot("witness_view", "Witness of dependence",
             "μ̂_XY − μ̂_X ⊗ μ̂_Y on a grid: red where pairs occur more often than the "
             "marginals predict, blue where less; its squared RKHS norm is HSIC_b."),
        Plot("null_view", "Null distribution",
             "The chosen test's null (permutations of Y, a Gamma law, eigenvalues, ...) "
             "with the observed statistic and the threshold at α."),
        Plot("table_view", "Every test",
             "Every registered independence test on this sample (compare_independence)."),
        Plot("power_view", "Power",
             "Rejection rate over fresh draws against the strength of the dependence; at "
             "independence it is the size (≈ α)."),
    )

    problem = param.Selector(default=PROBLEMS[0], objects=list(PROBLEMS), label="dependence")
    strength = param.Number(default=1.0, bounds=(0.0, 8.0), step=0.05,
                            label="strength (ℓ, θ, noise or ρ)")
    noise = param.Number(default=0.0, bounds=(0.0, 5.0), step=0.05,
                         label="noise added to Y (its standard deviation)")
    n = param.Integer(default=300, bounds=(20, 3000))
    bandwidth_x = param.Number(default=1.0, bounds=(0.0, 1000.0), label="σ_X")
    bandwidth_y = param.Number(default=1.0, bounds=(0.0, 1000.0), label="σ_Y")
    test = param.Selector(default="biased/permutation", objects=list(TEST_NAMES),
                          label="test (null plot)")
    n_resamples = param.Integer(default=500, bounds=(20, 5000), label="B (replicates)")
    alpha = param.Number(default=0.05, bounds=(0.01, 0.2), step=0.01, label="level α")
    power_result = param.Parameter(default=None, precedence=-1)

    def __init__(self, **params):
        super().__init__(**params)
        self._median_button = pn.widgets.Button(label="Median heuristic (σ_X, σ_Y)")
        self._median_button.on_click(self.use_median_heuristic)
        self._curve = PowerCurve(self, f"Power curve ({POWER_DRAWS} draws a point)")
        self._curve.button.on_click(self._power)
        self._median_job = self.job()

    def buttons(self) -> list:
        return [self._median_button, *self._curve.widgets]

    @property
    def data_key(self) -> tuple:
        return (self.problem, float(self.strength), float(self.noise), int(self.n),
                int(self.seed))

    @property
    def kernel_key(self) -> tuple:
        for name in KERNEL_PARAMS:
            if not getattr(self, name) > 0:
                raise ValueError(f"{self.param[name].label} must be > 0 (press Median "
                                 "heuristic)")
        return (float(self.bandwidth_x), float(self.bandwidth_y))

    def use_median_heuristic(self, _event=None) -> None:
        data_key, seed = self.data_key, self.seed

        def work(emit):
            X, Y = make_pairs(*data_key)
            emit(tuple(round(K.median_heuristic(Z, rng=seed), 3) for Z in (X, Y)))

        def show(value, error):
            if error is not None:
                self.show_notice(error)
            else:
                self.param.update(bandwidth_x=value[0], bandwidth_y=value[1])

        self._median_job.start(work, show)

    def _result(self):
        return run_test(self.data_key, self.kernel_key, self.test,
                        self.n_resamples).at_level(self.alpha)

    # -- views ---------------------------------------------------------------------
    @param.depends(*DATA_PARAMS)
    @guarded
    def joint_view(self):
        X, Y = make_pairs(*self.data_key)
        return viz.joint_sample_plot(X, Y, title=f"{self.problem}: {self.n} pairs, "
                                     f"Pearson r = {pearson_r(X, Y):.3f}")

    @param.depends(*DATA_PARAMS, *KERNEL_PARAMS)
    @guarded
    def witness_view(self):
        X, Y = make_pairs(*self.data_key)
        gx, gy, values, hsic_b = witness(self.data_key, self.kernel_key)
        return viz.dependence_witness_plot(gx, gy, values, X, Y, hsic_b=hsic_b)

    @param.depends(*DATA_PARAMS, *KERNEL_PARAMS, "test", "n_resamples", "alpha")
    @guarded
    def null_view(self):
        return viz.null_histogram(self._result(), statistic="HSIC")

    @param.depends(*DATA_PARAMS, *KERNEL_PARAMS, "n_resamples", "alpha")
    @guarded
    def table_view(self):
        table = comparison(self.data_key, self.kernel_key, self.n_resamples)
        shown = viz.comparison_table_text(table.assign(
            reject=table["p_value"].map(lambda p: None if p != p else p <= self.alpha)))
        notes = [f"[{k + 1}] {row.test}: {row.note}" for k, row in
                 enumerate(shown[shown["note"] != ""].itertuples(index=False))]
        marks = iter(range(1, len(notes) + 1))
        shown["test"] = [t + (f" [{next(marks)}]" if note else "")
                         for t, note in zip(shown["test"], shown["note"], strict=True)]
        columns = [c for c in viz.TABLE_TITLES if c != "note"]
        rows = "\n".join("| " + " | ".join(str(getattr(row, c)) for c in columns) + " |"
                         for row in shown.itertuples(index=False))
        header = "| " + " | ".join(viz.TABLE_TITLES[c] for c in columns) + " |"
        footnotes = "\n\n".join(notes)
        return pn.pane.Markdown(f"{header}\n|{'---|' * len(columns)}\n{rows}\n\n"
                                f"Decisions at α = {self.alpha:g}. {table.attrs['note']}"
                                f"\n\n{footnotes}", css_classes=["kmeviz-table"],
                                sizing_mode="stretch_width")

    @param.depends("power_result")
    def power_view(self):
        df = self.power_result
        if isinstance(df, Exception):
            return error_message(df, self)
        if df is None or df.empty:
            return pn.pane.Markdown(
                f"Press *Power curve* to estimate the rejection rate of {', '.join(POWER_TESTS)} "
                f"over {POWER_DRAWS} fresh draws at each of {POWER_POINTS} strengths (filled "
                "in as it runs; a new press or a closed page stops it).")
        label = DEPENDENCE_PROBLEMS[df.attrs["problem"]][1]
        return viz.independence_power_plot(df, label)

    def _power(self, _event=None):
        """The power curve (``PowerCurve``): a part per strength, so the curve fills in."""
        problem, n, alpha, seed = self.problem, int(self.n), self.alpha, int(self.seed)
        values, noise = power_grid(problem, float(self.strength)), float(self.noise)
        generator = DEPENDENCE_PROBLEMS[problem][0]

        def draw(rng, value):
            X, Y = generator(n, value, rng=rng)
            return X, Y + noise * rng.standard_normal(Y.shape)

        try:
            kx, ky = kernels(self.kernel_key)
        except ValueError as exc:  # a bandwidth of 0: said beside the widgets
            self.show_notice(exc)
            return
        tests = {name: (lambda data, *, alpha, rng, name=name: K.hsic_test(
            *data, kernel_x=kx, kernel_y=ky, estimator=name.split("/")[0],
            null=name.split("/")[1], n_resamples=POWER_RESAMPLES, alpha=alpha, rng=rng))
            for name in POWER_TESTS}
        self._curve.run(values, draw, tests, draws=POWER_DRAWS, alpha=alpha, seed=seed,
                        attrs={"problem": problem})

    @param.depends(*DATA_PARAMS, *KERNEL_PARAMS, "test", "n_resamples", "alpha")
    @guarded
    def summary_view(self):
        X, Y = make_pairs(*self.data_key)
        res = self._result()
        r = pearson_r(X, Y)
        verdict = "reject H0 (dependent)" if res.reject else "keep H0"
        return pn.pane.Markdown(f"""
| {self.problem} | |
|---|---|
| Pearson r | <span class="kmeviz-pearson">{r:.3f}</span> |
| HSIC statistic ({res.estimator}) | {res.statistic:.5g} |
| p-value ({self.test}) | <span class="kmeviz-p-value">{res.p_value_text()}</span> |
| decision at α = {self.alpha:g} | {verdict} |
| seconds | {res.runtime['total']:.3f} |

H0: X and Y are independent. {"A correlation near 0 does not mean independence: "
"HSIC sees every kind of dependence a characteristic kernel can." if abs(r) < 0.1 else ""}
""", css_classes=["kmeviz-summary"], sizing_mode="stretch_width")


create_app = IndependenceExplorer.create_app
IndependenceExplorer.serve_if_script(__name__)
