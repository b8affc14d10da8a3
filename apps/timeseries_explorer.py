"""Time-series explorer (Chwialkowski, Sejdinovic & Gretton 2014; Chwialkowski & Gretton
2014; Chwialkowski, Strathmann & Gretton 2016).

When rows are serially dependent, the permutation, Gamma, spectral and i.i.d. wild-
bootstrap nulls are too narrow. Pick a generator — two independent AR(1) series, a lagged
non-linear dependence, a change between two stretches of one series, or a random-walk
Metropolis chain — and see the series, their autocorrelation, the i.i.d. test's null
beside the time-series test's on the same data, and both tests' rejection rates as the
serial dependence grows.
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
from kmeviz.distributions import series as gen
from kmeviz.timeseries.serial import serial_dependence

#: generator -> (family, the statistic's name)
PROBLEMS = {"independent AR(1) pair": ("independence", "HSIC"),
            "lagged dependence Y_t = cos(2 X_(t−k)) + noise": ("independence", "HSIC"),
            "change between two stretches": ("two-sample", "MMD²"),
            "MCMC chain against its target": ("gof", "KSD²")}
INDEPENDENCE_NULLS = ("dependent-wild-bootstrap", "shift", "max-lag/shift", "block-permutation",
                      "max-lag/block-permutation")
DATA_PARAMS = ("problem", "phi", "lag", "strength", "shift", "step", "n", "seed")
#: the rejection-rate curve: its points and draws a point
CURVE_DRAWS = 40
CURVE_RESAMPLES = 200
PHI_GRID = (0.0, 0.3, 0.5, 0.7, 0.9)
STEP_GRID = (0.25, 0.5, 1.0, 2.0, 4.0)


def generate(problem, phi, lag, strength, shift, step, n, seed):
    """The generator's draw: (X, Y), or the chain X (Y None)."""
    rng = np.random.default_rng(seed)
    if problem.startswith("independent"):
        return gen.independent_ar1_pair(n, phi, rng=rng)
    if problem.startswith("lagged"):
        return gen.lagged_dependence(n, lag, strength, phi=phi, rng=rng)
    if problem.startswith("change"):
        return gen.stretches(n, phi, shift=shift, rng=rng)
    return gen.random_walk_metropolis(n, step, rng=rng), None


#: ``generate`` once per choice for every session (read-only arrays)
make_data = shared_cache(maxsize=16)(generate)


def run_pair(problem, data, null, *, alpha, rng, n_resamples):
    """(i.i.d. test, time-series test) of ``problem`` on ``data``, both at ``alpha``."""
    family = PROBLEMS[problem][0]
    X, Y = data
    if family == "independence":
        estimator, null = null.split("/") if "/" in null else ("biased", null)
        iid = K.hsic_test(X, Y, null="permutation", rows="iid", n_resamples=n_resamples,
                          alpha=alpha, rng=rng)
        ts = K.hsic_test(X, Y, estimator=estimator, null=null, n_resamples=n_resamples,
                         alpha=alpha, rng=rng)
    elif family == "two-sample":
        iid = K.mmd_test(X, Y, null="permutation", rows="iid", n_resamples=n_resamples,
                         alpha=alpha, rng=rng)
        ts = K.mmd_test(X, Y, null="dependent-wild-bootstrap", n_resamples=n_resamples,
                        alpha=alpha, rng=rng)
    else:
        target = K.NormalTarget(np.zeros(1))
        iid = K.ksd_test(X, target, rows="iid", n_resamples=n_resamples, alpha=alpha,
                         rng=rng)
        ts = K.ksd_test(X, target, null="dependent-wild-bootstrap",
                        n_resamples=n_resamples, alpha=alpha, rng=rng)
    return iid, ts


@shared_cache(maxsize=16)
def tests_on(data_key, null: str, B: int):
    """``run_pair`` on the generator's draw, once per choice for every session."""
    return run_pair(data_key[0], make_data(*data_key), null, alpha=0.05,
                    rng=data_key[-1] + 1, n_resamples=B)


class TimeSeriesExplorer(Explorer):
    """When rows are not independent: i.i.d. nulls against time-series nulls, live."""

    title = "Time-series explorer"
    CONTROLS = (*DATA_PARAMS, "null", "n_resamples", "alpha")
    WIDGETS = {name: {"type": pn.widgets.FloatSlider, "throttled": True}
               for name in ("phi", "strength", "shift", "step", "alpha")} | {
        "n": {"type": pn.widgets.IntSlider, "throttled": True},
        "lag": {"type": pn.widgets.IntSlider, "throttled": True}}
    SUMMARY_WIDTH = 420
    PLOTS = (
        Plot("nulls_view", "i.i.d. null beside time-series null",
             "The same statistic (black line) and two nulls: blue, under exchangeable rows "
             "(permutations or i.i.d. signs); red, keeping the serial dependence "
             "(dependent wild bootstrap, circular shifts or block permutations); dashed, "
             "each null's threshold at α. On serially dependent rows the blue one is too "
             "narrow."),
        Plot("series_view", "Series in time",
             "The rows in time order: X and Y (or the chain)."),
        Plot("acf_view", "Autocorrelation",
             "The sample autocorrelation at each lag; an i.i.d. series stays within the "
             "dotted band. The check before every i.i.d. test reads these."),
        Plot("rate_view", "Rejection rate",
             "Both tests' rejection rates over fresh draws as the serial dependence grows "
             "(φ, or the chain's step size): under H0 a valid test stays near α."),
    )

    problem = param.Selector(default=list(PROBLEMS)[0], objects=list(PROBLEMS),
                             label="generator")
    phi = param.Number(default=0.9, bounds=(0.0, 0.98), step=0.01, label="AR(1) φ")
    lag = param.Integer(default=3, bounds=(0, 10), label="lag k (lagged dependence)")
    strength = param.Number(default=1.0, bounds=(0.0, 3.0), step=0.05,
                            label="strength (lagged dependence)")
    shift = param.Number(default=0.0, bounds=(0.0, 2.0), step=0.05,
                         label="shift of the second stretch")
    step = param.Number(default=0.5, bounds=(0.05, 5.0), step=0.05,
                        label="chain's proposal step")
    n = param.Integer(default=300, bounds=(100, 2000), label="n (rows)")
    null = param.Selector(default=INDEPENDENCE_NULLS[0], objects=list(INDEPENDENCE_NULLS),
                          label="time-series null (independence)")
    n_resamples = param.Integer(default=300, bounds=(50, 2000), label="B (replicates)")
    alpha = param.Number(default=0.05, bounds=(0.01, 0.2), step=0.01, label="level α")
    rate_result = param.Parameter(default=None, precedence=-1)

    def __init__(self, **params):
        super().__init__(**params)
        self._curve = PowerCurve(self, f"Rejection rates ({CURVE_DRAWS} draws a point)",
                                 result="rate_result", view="rate_view")
        self._curve.button.on_click(self._rates)

    def buttons(self) -> list:
        return self._curve.widgets

    @property
    def data_key(self) -> tuple:
        return (self.problem, float(self.phi), int(self.lag), float(self.strength),
                float(self.shift), float(self.step), int(self.n), int(self.seed))

    def _series(self) -> dict:
        X, Y = make_data(*self.data_key)
        return {"chain": X} if Y is None else {"X": X, "Y": Y}

    def _pair(self):
        iid, ts = tests_on(self.data_key, self.null, int(self.n_resamples))
        return iid.at_level(self.alpha), ts.at_level(self.alpha)

    @param.depends(*DATA_PARAMS)
    @guarded
    def series_view(self):
        return viz.series_plot(self._series(), title=f"{self.problem}: {self.n} rows")

    @param.depends(*DATA_PARAMS)
    @guarded
    def acf_view(self):
        return viz.autocorrelation_plot(self._series())

    @param.depends(*DATA_PARAMS, "null", "n_resamples", "alpha")
    @guarded
    def nulls_view(self):
        iid, ts = self._pair()
        return viz.side_by_side_nulls(iid, ts, statistic=PROBLEMS[self.problem][1])

    @param.depends("rate_result")
    def rate_view(self):
        df = self.rate_result
        if isinstance(df, Exception):
            return error_message(df, self)
        if df is None or df.empty:
            return pn.pane.Markdown(
                f"Press *Rejection rates* to run both tests on {CURVE_DRAWS} fresh draws at "
                "each of 5 values of φ (the chain: its step size), filled in as it runs; a "
                "new press or a closed page stops it.")
        return viz.independence_power_plot(df, df.attrs["parameter"])

    def _rates(self, _event=None):
        """Both tests' rejection rates against φ (the chain: the step), point by point."""
        problem, null, alpha = self.problem, self.null, self.alpha
        key = list(self.data_key)
        chain = PROBLEMS[problem][0] == "gof"
        grid, where = (STEP_GRID, 5) if chain else (PHI_GRID, 1)

        def draw(rng, value):
            args = list(key)
            args[where] = value
            return generate(*args[:-1], int(rng.integers(2**31)))

        def both(label):
            def run(data, *, alpha, rng):
                pair = run_pair(problem, data, null, alpha=alpha, rng=rng,
                                n_resamples=CURVE_RESAMPLES)
                return pair[0] if label == "i.i.d." else pair[1]
            return run

        self._curve.run(grid, draw, {"i.i.d. null": both("i.i.d."),
                                     "time-series null": both("series")},
                        draws=CURVE_DRAWS, alpha=alpha, seed=int(self.seed),
                        attrs={"parameter": "proposal step" if chain else "AR(1) φ"})

    @param.depends(*DATA_PARAMS, "null", "n_resamples", "alpha")
    @guarded
    def summary_view(self):
        family, statistic = PROBLEMS[self.problem]
        X, Y = make_data(*self.data_key)
        samples = {"X": X} if Y is None else {"X": X, "Y": Y}
        check = serial_dependence(samples, family=family)
        iid, ts = self._pair()
        lag1 = ", ".join(f"{name} {info['lag1']:.2f}" for name, info in check.samples.items())
        rows = "\n".join(
            f"| {label} | {res.estimator}/{res.null} | <span class='kmeviz-p-value'>"
            f"{res.p_value_text()}</span> | <span class='kmeviz-{css}'>"
            f"{'reject' if res.reject else 'keep'}</span> |"
            for label, css, res in (("i.i.d. null", "iid-decision", iid),
                                    ("time-series null", "series-decision", ts)))
        verdict = ("<span class='kmeviz-check'>**The check fires**</span>: the rows are "
                   "serially dependent, and the i.i.d. test's p-value cannot be trusted."
                   if check.fired else
                   "<span class='kmeviz-check'>The check does not fire</span> on these rows.")
        return pn.pane.Markdown(f"""
| null | test | p-value | at α = {self.alpha:g} |
|---|---|---|---|
{rows}

Lag-1 autocorrelation: {lag1}. {verdict} Statistic: {statistic}
{f"(ℓ = {ts.null_params['wild_length']:.3g})" if 'wild_length' in ts.null_params else ""}.
{f"Time-series null: {ts.fitted['note']}." if ts.fitted.get("note") else ""}
""", css_classes=["kmeviz-summary"], sizing_mode="stretch_width")


create_app = TimeSeriesExplorer.create_app
TimeSeriesExplorer.serve_if_script(__name__)
