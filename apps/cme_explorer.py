"""Conditional mean embedding explorer (Grünewälder et al. 2012).

Conditional embeddings are kernel ridge regressions: pick a 1-D conditional law, the
kernels and λ (cross-validation shown), and see the data with E[h(Y) | x] estimated
against the truth, the embedding μ̂(x)(y) as a heatmap, and which coefficients survive a
sparsity penalty γ.
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
from kmeviz.conditional import cross_validate

LAWS = ("y = sin x + noise", "heteroscedastic noise", "bimodal conditional")
H = {"y": lambda y: y, "y²": lambda y: y**2, "bump exp(−4y²)": lambda y: np.exp(-4 * y**2)}
DATA_PARAMS = ("law", "n", "seed")
MODEL_PARAMS = ("bandwidth_x", "bandwidth_y", "log10_reg")
FISTA_ITERATIONS = 3000  # ≈ 0.5 s at n = 100; the plot says if FISTA stopped early
MAX_SPARSE_N = 200


def sample_law(law, n, rng):
    x = rng.uniform(-3, 3, n)
    if law == LAWS[0]:
        y = np.sin(x) + 0.3 * rng.normal(size=n)
    elif law == LAWS[1]:
        y = np.sin(x) + (0.05 + 0.25 * np.abs(x)) * rng.normal(size=n)
    else:
        y = np.where(rng.random(n) < 0.5, 1.0, -1.0) * np.abs(np.sin(x)) + 0.15 * rng.normal(
            size=n)
    return x[:, None], y[:, None]


def true_expectation(law, h_name, x, n_mc=4000):
    """E[h(Y) | x] by Monte Carlo from the law's definition (seeded, fixed draws)."""
    rng = np.random.default_rng(12345)
    z = rng.normal(size=n_mc)
    s = np.sin(x)[:, None]
    if law == LAWS[0]:
        y = s + 0.3 * z
    elif law == LAWS[1]:
        y = s + (0.05 + 0.25 * np.abs(x))[:, None] * z
    else:
        sign = np.where(rng.random(n_mc) < 0.5, 1.0, -1.0)
        y = sign * np.abs(s) + 0.15 * z
    return H[h_name](y).mean(axis=1)


@shared_cache(maxsize=8)
def make_data(law, n, seed):
    return sample_law(law, n, np.random.default_rng(seed))


@shared_cache(maxsize=16)
def fitted(data_key, bw_x, bw_y, reg):
    X, Y = make_data(*data_key)
    return K.ConditionalMeanEmbedding(K.GaussianKernel(bw_x), K.GaussianKernel(bw_y),
                                      reg=reg).fit(X, Y)


@shared_cache(maxsize=8)
def cv_table(data_key, bw_x, bw_y):
    X, Y = make_data(*data_key)
    return cross_validate(X, Y, regs=np.logspace(-6, 0, 13), bandwidths=[bw_x],
                          kernel_y=K.GaussianKernel(bw_y), rng=data_key[2])


@shared_cache(maxsize=8)
def sparse_coefficients(data_key, bw_x, bw_y, reg, gamma):
    cme = fitted(data_key, bw_x, bw_y, reg)
    L = cme.kernel_y.gram(cme.Y_, cme.Y_)
    return K.sparse_cme(cme.coefficients(), cme.gram_x_, L, gamma=gamma, tol=1e-6,
                        max_iter=FISTA_ITERATIONS)


class CMEExplorer(Explorer):
    """Conditional mean embeddings as regressors, live."""

    title = "Conditional mean embedding explorer"
    CONTROLS = ("law", "n", "seed", "bandwidth_x", "bandwidth_y", "log10_reg", "h", "gamma")
    WIDGETS = {"n": {"type": pn.widgets.IntSlider, "throttled": True},
               "log10_reg": {"type": pn.widgets.FloatSlider, "throttled": True},
               "bandwidth_x": {"type": pn.widgets.FloatInput, "step": 0.1},
               "bandwidth_y": {"type": pn.widgets.FloatInput, "step": 0.1},
               "gamma": {"type": pn.widgets.FloatInput, "step": 1e-3}}
    SUMMARY_WIDTH = 360
    PLOTS = (
        Plot("data_view", "Data",
             "The training pairs (x, y) with the true E[h(Y) | x] and its CME estimate Σ αᵢ(x) "
             "h(yᵢ) for the chosen h."),
        Plot("map_view", "Embedding map",
             "The conditional embedding μ̂(x)(y) = Σ αᵢ(x) L(yᵢ, y): for each x, a smoothed "
             "picture of the conditional law of Y."),
        Plot("cv_view", "Cross-validation",
             "Held-out surrogate loss (Eq. 8) vs λ by 5-fold cross-validation; the optimum is "
             "marked."),
        Plot("sparse_view", "Sparse CME",
             "Coefficients |M_ij| that survive the sparsity penalty γ (FISTA, Alg. 1)."),
    )

    law = param.Selector(default=LAWS[0], objects=list(LAWS))
    n = param.Integer(default=100, bounds=(20, 1000))
    bandwidth_x = param.Number(default=0.5, bounds=(0.0, 100.0),
                               doc="Gaussian σ of the input kernel K")
    bandwidth_y = param.Number(default=0.5, bounds=(0.0, 100.0),
                               doc="Gaussian σ of the output kernel L")
    log10_reg = param.Number(default=-3.0, bounds=(-6.0, 0.0), step=0.25, label="log₁₀ λ")
    h = param.Selector(default="y", objects=list(H), label="function h")
    gamma = param.Number(default=3e-2, bounds=(0.0, 1.0), step=1e-3, label="sparsity γ")

    @property
    def data_key(self):
        return (self.law, self.n, self.seed)

    def _cme(self):
        return fitted(self.data_key, float(self.bandwidth_x), float(self.bandwidth_y),
                      10.0 ** self.log10_reg)

    def _estimate(self):
        """Grid, estimated and true E[h(Y) | x] for the current settings."""
        cme = self._cme()
        grid = np.linspace(-3, 3, 200)
        est = cme.expectation(H[self.h](cme.Y_[:, 0]), grid[:, None])
        return grid, est, true_expectation(self.law, self.h, grid)

    def _data_plot(self):
        cme = self._cme()
        grid, est, truth = self._estimate()
        return viz.cme_data_plot(cme.X_, cme.Y_, grid, est, truth, h_label=f"{self.h}(Y)")

    @param.depends(*DATA_PARAMS, "h")
    @guarded
    def data_view(self):
        """A new kernel or λ moves the estimated curve in place."""
        return live_view(self, MODEL_PARAMS, self._data_plot)

    def _map_plot(self):
        cme = self._cme()
        xs, ys = np.linspace(-3, 3, 80), np.linspace(-2.5, 2.5, 80)
        return viz.cme_embedding_map(xs, ys, cme.embedding(xs[:, None], ys[:, None]).T)

    @param.depends(*DATA_PARAMS)
    @guarded
    def map_view(self):
        return live_view(self, MODEL_PARAMS, self._map_plot)

    def _cv_plot(self):
        table, best = cv_table(self.data_key, float(self.bandwidth_x), float(self.bandwidth_y))
        return viz.cv_curve(table, best["reg"], current=10.0 ** self.log10_reg)

    @param.depends(*DATA_PARAMS)
    @guarded
    def cv_view(self):
        return live_view(self, MODEL_PARAMS, self._cv_plot)

    def _sparse_plot(self):
        res = sparse_coefficients(self.data_key, float(self.bandwidth_x),
                                  float(self.bandwidth_y), 10.0 ** self.log10_reg, self.gamma)
        order = np.argsort(self._cme().X_[:, 0])
        note = (f"converged in {res.n_iter} FISTA iterations" if res.converged else
                f"FISTA stopped after {res.n_iter} iterations, not yet converged")
        return viz.coefficient_map(res.M, order, note=note)

    @param.depends(*DATA_PARAMS)
    @guarded
    def sparse_view(self):
        if self.n > MAX_SPARSE_N:
            raise ValueError("the sparsity view runs FISTA on n² coefficients; use "
                             f"n <= {MAX_SPARSE_N}")
        return live_view(self, (*MODEL_PARAMS, "gamma"), self._sparse_plot)

    @param.depends(*DATA_PARAMS, *MODEL_PARAMS, "h")
    @guarded
    def summary_view(self):
        _, est, truth = self._estimate()
        mse = float(np.mean((est - truth) ** 2))
        _, best = cv_table(self.data_key, float(self.bandwidth_x), float(self.bandwidth_y))
        return pn.pane.Markdown(f"""
| | |
|---|---|
| λ | {10.0 ** self.log10_reg:.2e} |
| CV optimum λ | <span class="kmeviz-cvbest">{best["reg"]:.1e}</span> |
| mean squared error of E[h(Y) given x], h = {self.h} | <span class="kmeviz-mse">{mse:.5f}</span> |
""", css_classes=["kmeviz-summary"], sizing_mode="stretch_width")


create_app = CMEExplorer.create_app
CMEExplorer.serve_if_script(__name__)
