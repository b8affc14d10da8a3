"""Nyström error vs m (Chatalic et al. 2022, Sec. 6.1 and Fig. 1).

A Gaussian mixture whose kernel mean embedding is known in closed form (App. G): see
the exact error of the Nyström, empirical and baseline embeddings as the number of
landmarks m grows, their fit times, and the Nyström embedding next to the true one.
"""

from __future__ import annotations

import numpy as np
import panel as pn
import param
from kmeviz_apps._cache import shared_cache
from kmeviz_apps._common import Explorer, guarded, live_view

import kmeviz as K
from kmeviz import viz
from kmeviz.experiments import nystrom_error_vs_m, paper_mixture

MIXTURE_PARAMS = ("d", "n_centres", "spread", "n", "seed")
#: the grid of m and the repeats behind the error table
GRID_PARAMS = ("m_min", "m_max", "n_repeats", "replace", "baselines")


@shared_cache(maxsize=8)
def make_problem(d, n_centres, spread, n, seed):
    """The mixture, its median-heuristic bandwidth and one sample of n points."""
    rng = np.random.default_rng(seed)
    mixture = paper_mixture(d=d, n_centres=n_centres, spread=spread, rng=rng)
    bandwidth = K.median_heuristic(mixture.sample(1000, rng=rng), rng=rng)
    return mixture, bandwidth, mixture.sample(n, rng=rng)


def m_grid(n: int, m_min: int, m_max: int) -> tuple:
    """Ten m from m_min to m_max, capped at n: m landmarks drawn from n points span at most
    n directions, so m > n only adds O(m³) work (28 s at m = 5000, n = 2000)."""
    return tuple(np.unique(np.geomspace(m_min, max(m_min, min(m_max, n)), 10).astype(int)))


@shared_cache(maxsize=8)
def error_table(problem_key, ms, n_repeats, replace, baselines):
    mixture, bandwidth, _ = make_problem(*problem_key)
    return nystrom_error_vs_m(ns=(problem_key[3],), ms=ms, n_repeats=n_repeats,
                              baselines=baselines, replace=replace, mixture=mixture,
                              bandwidth=bandwidth, rng=problem_key[4])


@shared_cache(maxsize=8)
def embedding_maps(problem_key, m_view, replace, grid=50):
    """μ̂_m and μ on a grid of the first two coordinates (others at the data mean)."""
    mixture, bandwidth, X = make_problem(*problem_key)
    kernel = K.GaussianKernel(bandwidth)
    ny = K.NystromKME(kernel, m_view, replace=replace, rng=problem_key[4]).fit(X)
    lo, hi = X[:, :2].min(axis=0) - 1, X[:, :2].max(axis=0) + 1
    xs, ys = np.linspace(lo[0], hi[0], grid), np.linspace(lo[1], hi[1], grid)
    Z = np.tile(X.mean(axis=0), (grid * grid, 1))
    gx, gy = np.meshgrid(xs, ys)
    Z[:, 0], Z[:, 1] = gx.ravel(), gy.ravel()
    est = ny.evaluate(Z).reshape(grid, grid)
    true = mixture.embedding(Z, kernel).reshape(grid, grid)
    return xs, ys, est, true, ny, mixture.error_of(ny)


class NystromErrorExplorer(Explorer):
    """Nyström kernel mean embeddings: error, cost and picture as m varies."""

    title = "Nyström error vs m"
    CONTROLS = ("d", "n_centres", "spread", "n", "m_min", "m_max", "n_repeats", "replace",
                "baselines", "m_view", "seed")
    WIDGETS = {"spread": {"type": pn.widgets.FloatSlider, "throttled": True},
               "n": {"type": pn.widgets.IntInput, "step": 500},
               "m_view": {"type": pn.widgets.IntInput, "step": 10},
               "m_min": pn.widgets.IntInput, "m_max": pn.widgets.IntInput,
               "baselines": pn.widgets.CheckButtonGroup}
    SUMMARY_WIDTH = 380
    PLOTS = ((("error_view", "nystrom_error"),),
             (("map_view", "nystrom_map"), ("runtime_view", "nystrom_runtime")))

    d = param.Integer(default=2, bounds=(2, 20), doc="dimension")
    n_centres = param.Integer(default=8, bounds=(1, 16), label="mixture centres")
    spread = param.Number(default=5.0, bounds=(0.5, 20.0), doc="centres ~ N(0, spread·I)")
    n = param.Integer(default=2000, bounds=(100, 20000), label="sample size n")
    m_min = param.Integer(default=4, bounds=(1, 100), label="smallest m")
    m_max = param.Integer(default=400, bounds=(10, 5000), label="largest m")
    n_repeats = param.Integer(default=3, bounds=(1, 20), label="repeats")
    replace = param.Boolean(default=True, label="landmarks with replacement")
    baselines = param.ListSelector(default=["uniform"], objects=["uniform", "herding", "rff"])
    m_view = param.Integer(default=40, bounds=(1, 2000), label="m for the 2-D view")
    seed = param.Integer(default=0, bounds=(0, 2**31 - 1))

    @property
    def problem_key(self):
        return (self.d, self.n_centres, float(self.spread), self.n, self.seed)

    def _table(self):
        if self.m_min > self.m_max:
            raise ValueError(f"smallest m ({self.m_min}) exceeds largest m ({self.m_max})")
        return error_table(self.problem_key, m_grid(self.n, self.m_min, self.m_max),
                           self.n_repeats, self.replace, tuple(self.baselines))

    @param.depends(*MIXTURE_PARAMS, *GRID_PARAMS)
    @guarded
    def error_view(self):
        r = np.sqrt(self.n)
        return viz.error_vs_m_plot(self._table(), marker=r * np.log(r))

    @param.depends(*MIXTURE_PARAMS, *GRID_PARAMS)
    @guarded
    def runtime_view(self):
        return viz.runtime_vs_m_plot(self._table())

    def _landmark_map(self):
        if not self.replace and self.m_view > self.n:
            raise ValueError(f"m = {self.m_view} exceeds n = {self.n} without replacement")
        xs, ys, est, _, ny, _ = embedding_maps(self.problem_key, self.m_view, self.replace)
        return viz.embedding_map(xs, ys, est, title=f"Nyström μ̂_m, m = {self.m_view}",
                                 points=ny.landmarks_[:, :2], sizes=np.abs(ny.weights_))

    @param.depends(*MIXTURE_PARAMS, "replace")
    @guarded
    def map_view(self):
        """μ̂_m next to μ; a new m redraws the left map in place (zoom kept)."""
        left = live_view(self, ("m_view",), self._landmark_map)
        xs, ys, _, true, _, _ = embedding_maps(self.problem_key, self.m_view, self.replace)
        right = viz.embedding_map(xs, ys, true, title="true μ (closed form)")
        maps = pn.pane.HoloViews(left), pn.pane.HoloViews(right)
        if viz.get_sizing() == "fixed":  # a notebook: the maps wrap in a narrow column
            return pn.FlexBox(*maps, flex_wrap="wrap")
        return pn.Row(*maps)

    @param.depends(*MIXTURE_PARAMS, *GRID_PARAMS, "m_view")
    @guarded
    def summary_view(self):
        df = self._table()
        emp = df[df.estimator == "empirical"]["mean_error"].iloc[0]
        ny = df[df.estimator == "nystrom"].sort_values("m")
        reach = ny[ny.mean_error <= 1.1 * emp]
        reach_m = int(reach["m"].iloc[0]) if len(reach) else "not reached"
        *_, err = embedding_maps(self.problem_key, self.m_view, self.replace)
        r = np.sqrt(self.n)
        return pn.pane.Markdown(f"""
| | |
|---|---|
| kernel bandwidth (median heuristic) | {make_problem(*self.problem_key)[1]:.3f} |
| empirical error (mean of {self.n_repeats}) | <span class="kmeviz-empirical">{emp:.5f}</span> |
| first m within 10% of it | <span class="kmeviz-reach">{reach_m}</span> |
| √n log √n | {r * np.log(r):.0f} |
| Nyström error at m = {self.m_view} | <span class="kmeviz-mview">{err:.5f}</span> |
""", css_classes=["kmeviz-summary"], sizing_mode="stretch_width")


create_app = NystromErrorExplorer.create_app
NystromErrorExplorer.serve_if_script(__name__)
