"""Conditional-independence explorer (KCI: Zhang et al. 2011; RCIT, RCoT: Strobl et al.
2019; the CME regression of Grünewälder et al. 2012).

Pick a causal structure (chain, fork, collider, or X → Y with Z unrelated), the link
function of its edges and the noise; see X against Y (the marginal dependence), the CME
regression of X on Z, the residuals of X and of Y after that regression against each
other (the picture of conditional dependence), the marginal HSIC test beside every
conditional test, the chosen test's null, and the power against n. The chain and the
fork are dependent but conditionally independent; the collider is the reverse.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import panel as pn
import param
from kmeviz_apps._cache import shared_cache
from kmeviz_apps._common import Explorer, Plot, error_message, guarded
from kmeviz_apps._curve import PowerCurve
from kmeviz_apps._own_conditional import residuals_given_z

import kmeviz as K
from kmeviz import viz
from kmeviz.conditional_independence.api import (
    check_conditioning,
    cross_validated_epsilon,
)
from kmeviz.conditional_independence.kci import default_kci_kernels
from kmeviz.discovery import PCResult, dag_to_cpdag, random_dag
from kmeviz.discovery.graph import structural_hamming_distance
from kmeviz.discovery.models import structural_sample
from kmeviz.distributions.causal import LINKS, MARGINALLY_INDEPENDENT, STRUCTURES, causal_structure
from kmeviz.independence.compare import pearson_r

TEST_NAMES = tuple(spec.name for spec in K.CONDITIONAL_TESTS)
DATA_PARAMS = ("structure", "link", "noise", "n", "d_z", "seed")
#: the tests of the power curve, its sample sizes (fractions of n) and draws per point
POWER_TESTS = ("kci/gamma", "nystrom/gamma", "rcot/spectral")
POWER_FRACTIONS = (0.125, 0.25, 0.5, 1.0)
POWER_DRAWS = 40
POWER_RESAMPLES = 200
#: the label of the button that cross-validates ε
CV_LABEL = "Cross-validate ε (CME)"
#: the marginal test shown beside the conditional ones
MARGINAL = ("biased", "gamma")
GRAPHS = {"chain": "X → Z → Y", "fork": "X ← Z → Y", "collider": "X → Z ← Y",
          "unrelated": "X → Y, Z unrelated"}


@shared_cache(maxsize=16)
def make_data(structure: str, link: str, noise: float, n: int, d_z: int, seed: int):
    """(X, Y, Z) of the structure, z-scored as the tests see them."""
    X, Y, Z = causal_structure(structure, n, link=link, noise=noise, d_z=d_z, rng=seed)
    return check_conditioning(X, Y, Z)


@shared_cache(maxsize=16)
def regression(data_key, epsilon: float):
    """The CME regression of X and of Y on Z (``kmeviz.ConditionalMeanEmbedding`` with
    KCI's kernel on Z and nλ = ε): (residual of X, residual of Y, grid of z, Ê[X | z])."""
    X, Y, Z = make_data(*data_key)
    rx, ry, cme = residuals_given_z(X, Y, Z, epsilon)
    grid = np.linspace(Z[:, 0].min(), Z[:, 0].max(), 120)
    points = np.zeros((grid.size, Z.shape[1]))
    points[:, 0] = grid
    return rx, ry, grid, cme.expectation(X[:, 0], points)


#: the columns of the table of removed edges
REMOVED_COLUMNS = ["x", "y", "given", "level", "p_value"]


def removed_by(result) -> pd.DataFrame:
    """For each pair PC separated, the first of its tests that found them independent
    (the one that removed the edge from the complete graph), in PC's order."""
    first = result.tests[result.tests["independent"]].drop_duplicates(["x", "y"])
    return first.assign(given=first["given"].map(lambda g: ", ".join(map(str, g)) or "∅"),
                        p_value=first["p_value"].map(lambda p: f"{p:.3g}"))[REMOVED_COLUMNS]


@shared_cache(maxsize=8)
def pc_on_model(nodes: int, density: float, noise: float, n: int, seed: int, alpha: float,
                epsilon: float):
    """(the true DAG, ``kmeviz.pc``'s result) on a random non-linear structural model."""
    rng = np.random.default_rng(seed)
    dag = random_dag(nodes, density, rng)
    data = structural_sample(dag, n, noise=noise, rng=rng)
    return dag, K.pc(data, alpha=alpha, epsilon=epsilon, rng=seed)


@shared_cache(maxsize=32)
def run_test(data_key, name: str, epsilon: float, B: int):
    X, Y, Z = make_data(*data_key)
    estimator, null = name.split("/")
    return K.ci_test(X, Y, Z, estimator=estimator, null=null, epsilon=epsilon,
                     n_resamples=B, rng=data_key[-1] + 1)


@shared_cache(maxsize=16)
def marginal_test(data_key):
    X, Y, _ = make_data(*data_key)
    return K.hsic_test(X, Y, estimator=MARGINAL[0], null=MARGINAL[1])


@shared_cache(maxsize=16)
def comparison(data_key, epsilon: float, B: int):
    X, Y, Z = make_data(*data_key)
    return K.compare_ci(X, Y, Z, epsilon=epsilon, n_resamples=B, rng=data_key[-1] + 2,
                        time_budget=8.0)


class ConditionalExplorer(Explorer):
    """Is X independent of Y given Z? KCI on the CME's residuals, live."""

    title = "Conditional-independence explorer"
    CONTROLS = (*DATA_PARAMS, "epsilon", "test", "n_resamples", "alpha", "graph_nodes",
                "graph_density")
    WIDGETS = {"noise": {"type": pn.widgets.FloatSlider, "throttled": True},
               "alpha": {"type": pn.widgets.FloatSlider, "throttled": True},
               "n": {"type": pn.widgets.IntSlider, "throttled": True},
               "epsilon": {"type": pn.widgets.FloatInput, "step": 0.001}}
    SUMMARY_WIDTH = 420
    PLOTS = (
        Plot("marginal_view", "X against Y",
             "The pairs (x_i, y_i), Z ignored: the marginal dependence that HSIC tests."),
        Plot("residual_view", "Residuals given Z",
             "x_i − Ê[X | z_i] against y_i − Ê[Y | z_i], each by the CME regression on Z: "
             "a pattern here is dependence that Z does not explain."),
        Plot("fit_view", "Regression on Z",
             "The CME estimate of E[X | Z] (notebook 06) over Z's first column: what KCI "
             "removes from X before it looks at Y."),
        Plot("table_view", "Every test",
             "The marginal HSIC test and every registered conditional test on this sample."),
        Plot("null_view", "Null distribution",
             "The chosen conditional test's null with the observed statistic."),
        Plot("power_view", "Power",
             "Rejection rate over fresh draws against n: power where X and Y depend given "
             "Z, the size (≈ α) where they do not."),
        Plot("graph_view", "Causal graph (PC)",
             "The PC algorithm on KCI, on a random non-linear model of k variables (n, "
             "noise, seed and α as set): the true DAG beside the graph PC found, each of "
             "its edges coloured against the true CPDAG — correct, wrongly oriented, extra; "
             "missing edges dashed — and the test that removed each absent edge."),
    )

    structure = param.Selector(default="chain", objects=list(STRUCTURES), label="structure")
    link = param.Selector(default="sine", objects=list(LINKS), label="link function")
    noise = param.Number(default=0.5, bounds=(0.05, 3.0), step=0.05,
                         label="noise (standard deviation on each edge)")
    n = param.Integer(default=400, bounds=(40, 2000))
    d_z = param.Integer(default=1, bounds=(1, 4), label="columns of Z (extras: noise)")
    epsilon = param.Number(default=1e-3, bounds=(1e-7, 10.0),
                           label="ε (regularisation of the regression on Z)")
    test = param.Selector(default="kci/gamma", objects=list(TEST_NAMES),
                          label="test (null plot)")
    n_resamples = param.Integer(default=500, bounds=(20, 5000), label="B (simulated null)")
    alpha = param.Number(default=0.05, bounds=(0.01, 0.2), step=0.01, label="level α")
    power_result = param.Parameter(default=None, precedence=-1)
    graph_nodes = param.Integer(default=6, bounds=(3, 10), label="PC: variables")
    graph_density = param.Number(default=0.3, bounds=(0.1, 0.7), step=0.05,
                                 label="PC: edge density")

    def __init__(self, **params):
        super().__init__(**params)
        self._cv_button = pn.widgets.Button(label=CV_LABEL)
        self._cv_button.on_click(self.cross_validate)
        self._curve = PowerCurve(self, f"Power against n ({POWER_DRAWS} draws a point)")
        self._curve.button.on_click(self._power)
        self._cv_job = self.job()

    def buttons(self) -> list:
        return [self._cv_button, *self._curve.widgets]

    @property
    def data_key(self) -> tuple:
        return (self.structure, self.link, float(self.noise), int(self.n), int(self.d_z),
                int(self.seed))

    def cross_validate(self, _event=None) -> None:
        """ε = the geometric mean of the CME's cross-validated nλ for Ẍ and for Y, within
        the widget's bounds; the button says it is working meanwhile."""
        data_key = self.data_key
        low, high = self.param.epsilon.bounds

        def work(emit):
            X, Y, Z = make_data(*data_key)
            kernels = default_kci_kernels(X.shape[0], Z.shape[1])
            emit(cross_validated_epsilon(X, Y, Z, kernels, np.random.default_rng(0)))

        def show(value, error):
            self._cv_button.param.update(disabled=False, label=CV_LABEL)
            self.show_notice(error)
            if error is None:
                eps = float(np.clip(np.sqrt(value[0] * value[1]), low, high))
                self.epsilon = float(f"{eps:.3g}")

        self._cv_button.param.update(disabled=True, label="Cross-validating ε …")
        self._cv_job.start(work, show)

    # -- views ---------------------------------------------------------------------
    @param.depends(*DATA_PARAMS)
    @guarded
    def marginal_view(self):
        X, Y, _ = make_data(*self.data_key)
        return viz.joint_sample_plot(X, Y, title=f"{GRAPHS[self.structure]}: X against Y, "
                                     f"Pearson r = {pearson_r(X, Y):.3f}")

    @param.depends(*DATA_PARAMS, "epsilon")
    @guarded
    def residual_view(self):
        rx, ry, _, _ = regression(self.data_key, float(self.epsilon))
        r = float(np.corrcoef(rx, ry)[0, 1])
        return viz.residual_plot(rx, ry, title=f"Residuals given Z, Pearson r = {r:.3f}")

    @param.depends(*DATA_PARAMS, "epsilon")
    @guarded
    def fit_view(self):
        X, _, Z = make_data(*self.data_key)
        _, _, grid, fit = regression(self.data_key, float(self.epsilon))
        return viz.cme_fit_plot(Z, X, grid, fit)

    @param.depends(*DATA_PARAMS, "epsilon", "n_resamples", "alpha")
    @guarded
    def table_view(self):
        table = comparison(self.data_key, float(self.epsilon), self.n_resamples)
        marginal = marginal_test(self.data_key)
        rows = [f"| HSIC, marginal ({'/'.join(MARGINAL)}) | X, Y independent | "
                f"{marginal.p_value_text()} | {_verdict(marginal.p_value, self.alpha)} |"]
        for row in table.itertuples(index=False):
            p = "not run" if row.p_value != row.p_value else f"{row.p_value:.4g}"
            rows.append(f"| {row.test} | independent given Z | {p} | "
                        f"{_verdict(row.p_value, self.alpha)} |")
        notes = [f"{row.test}: {row.note}" for row in table.itertuples() if row.note]
        return pn.pane.Markdown(
            "| test | H0 | p-value | decision |\n|---|---|---|---|\n" + "\n".join(rows)
            + f"\n\nDecisions at α = {self.alpha:g}. " + " ".join(notes),
            css_classes=["kmeviz-table"], sizing_mode="stretch_width")

    @param.depends(*DATA_PARAMS, "epsilon", "test", "n_resamples", "alpha")
    @guarded
    def null_view(self):
        res = run_test(self.data_key, self.test, float(self.epsilon), self.n_resamples)
        return viz.null_histogram(res.at_level(self.alpha), statistic="T_CI")

    @param.depends("graph_nodes", "graph_density", "noise", "n", "seed", "alpha", "epsilon")
    @guarded
    def graph_view(self):
        dag, result = pc_on_model(int(self.graph_nodes), float(self.graph_density),
                                  float(self.noise), int(self.n), int(self.seed),
                                  float(self.alpha), float(self.epsilon))
        truth = dag_to_cpdag(dag)
        wrong = structural_hamming_distance(result.graph, truth)
        found = viz.causal_graph_plot(  # SHD: the pairs whose edge differs from the truth's
            result, truth=truth, title=f"PC with KCI: {len(result.tests)} tests, SHD {wrong}")
        true_dag = PCResult(result.names, dag, result.tests.iloc[:0], {}, result.alpha)
        graphs = [pn.pane.HoloViews(plot, sizing_mode="stretch_width") for plot in (
            viz.causal_graph_plot(true_dag, title="The true DAG"), found)]
        return pn.Column(
            pn.Row(*graphs, sizing_mode="stretch_width"),
            pn.pane.Markdown("**The test that removed each edge** (the first of the pair's "
                             "tests with p > α)"),
            pn.pane.DataFrame(removed_by(result), index=False, sizing_mode="stretch_width",
                              max_rows=60),
            sizing_mode="stretch_width")

    @param.depends("power_result")
    def power_view(self):
        df = self.power_result
        if isinstance(df, Exception):
            return error_message(df, self)
        if df is None or df.empty:
            return pn.pane.Markdown(
                f"Press *Power against n* to estimate the rejection rate of "
                f"{', '.join(POWER_TESTS)} over {POWER_DRAWS} fresh draws at each of "
                f"{len(POWER_FRACTIONS)} sample sizes up to n (filled in as it runs; a new "
                "press or a closed page stops it).")
        return viz.independence_power_plot(df, "n")

    def _power(self, _event=None):
        """The power curve (``PowerCurve``): a part per sample size, so it fills in."""
        structure, link, noise, d_z = self.structure, self.link, float(self.noise), self.d_z
        alpha, seed, eps = self.alpha, int(self.seed), float(self.epsilon)
        sizes = sorted({max(40, int(f * self.n)) for f in POWER_FRACTIONS})
        tests = {name: (lambda data, *, alpha, rng, name=name: K.ci_test(
            *data, estimator=name.split("/")[0], null=name.split("/")[1], epsilon=eps,
            n_resamples=POWER_RESAMPLES, alpha=alpha, rng=rng)) for name in POWER_TESTS}

        def draw(rng, n):
            return causal_structure(structure, n, link=link, noise=noise, d_z=d_z, rng=rng)

        self._curve.run(sizes, draw, tests, draws=POWER_DRAWS, alpha=alpha, seed=seed)

    @param.depends(*DATA_PARAMS, "epsilon", "test", "n_resamples", "alpha")
    @guarded
    def summary_view(self):
        res = run_test(self.data_key, self.test, float(self.epsilon),
                       self.n_resamples).at_level(self.alpha)
        marginal = marginal_test(self.data_key).at_level(self.alpha)
        said, conditional = (_verdict(r.p_value, self.alpha) for r in (marginal, res))
        truth = "independent" if STRUCTURES[self.structure] else "dependent"
        marginal_truth = ("independent" if MARGINALLY_INDEPENDENT[self.structure]
                          else "dependent")
        wrong = ""
        if STRUCTURES[self.structure] and res.reject:
            wrong = (" Here the test rejects a true H0: a false rejection, which chance makes "
                     "in about α of the draws, and the regression on Z in most of them when "
                     "it cannot follow the link (notebook 11, §6 and §8).")
        elif not STRUCTURES[self.structure] and not res.reject:
            wrong = " Here the test keeps a false H0: it misses this dependence."
        return pn.pane.Markdown(f"""
| {GRAPHS[self.structure]} ({self.link}) | |
|---|---|
| marginal HSIC p-value | <span class="kmeviz-marginal-p">{marginal.p_value_text()}</span> |
| marginal decision | <span class="kmeviz-marginal">{said}</span> |
| {self.test} p-value | <span class="kmeviz-p-value">{res.p_value_text()}</span> |
| conditional decision | <span class="kmeviz-conditional">{conditional}</span> |
| ε used | {res.fitted['epsilon'][0]:.3g} |
| seconds | {res.runtime['total']:.3f} |

In this structure X and Y are {marginal_truth}, and {truth} given Z.{wrong}
""", css_classes=["kmeviz-summary"], sizing_mode="stretch_width")


def _verdict(p_value: float, alpha: float) -> str:
    if p_value != p_value:
        return "-"
    return "reject H0" if p_value <= alpha else "keep H0"


create_app = ConditionalExplorer.create_app
ConditionalExplorer.serve_if_script(__name__)
