"""Nyström error vs m (Chatalic et al. 2022, Sec. 6.1 and Fig. 1).

A Gaussian mixture whose kernel mean embedding is known in closed form (App. G): see
the exact error of the Nyström, empirical and baseline embeddings as the number of
landmarks m grows, their fit times, and the Nyström embedding next to the true one.
"""

from __future__ import annotations

import functools

import holoviews as hv
import numpy as np
import pandas as pd
import panel as pn
import param
from kmeviz_apps._cache import shared_cache
from kmeviz_apps._common import Explorer, Plot, guarded
from kmeviz_apps._jobs import Feeds, live_view

import kmeviz as K
from kmeviz import viz
from kmeviz.experiments import paper_mixture
from kmeviz.experiments.nystrom import error_summary, errors_at_m

MIXTURE_PARAMS = ("d", "n_centres", "spread", "n", "seed")
#: seconds a grid may take (``grid_seconds``); a larger one is refused with what fits
GRID_SECONDS = 3.0
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


@shared_cache(maxsize=32)
def repeat_sample(problem_key, repeat: int):
    """Draw ``repeat`` of n points (the same draw whatever the number of repeats)."""
    mixture, _, _ = make_problem(*problem_key)
    child = np.random.SeedSequence(problem_key[4]).spawn(repeat + 1)[repeat]
    return mixture.sample(problem_key[3], rng=np.random.default_rng(child))


def empirical_rms(problem_key) -> float:
    """The empirical KME's root-mean-square error, exactly: E||μ̂_n - μ||² = (E k(X, X) -
    ||μ||²)/n for n i.i.d. points (App. G gives ||μ||²). The grey line at no cost, where
    the error of each draw would take O(n²) per draw (a second at n = 20 000)."""
    mixture, bandwidth, _ = make_problem(*problem_key)
    kernel = K.GaussianKernel(bandwidth)
    return float(np.sqrt((kernel.value_at_zero - mixture.squared_norm(kernel))
                         / problem_key[3]))


#: seconds per unit of work of each fit, measured on a 2-core machine (with margin)
FIT_SECONDS = {"nystrom": lambda n, m, d: 9e-10 * n * m * d + 6e-11 * m**3,
               "herding": lambda n, m, d: 5e-9 * n * min(n, 2000) + 2e-5 * m,
               "rff": lambda n, m, d: 1.5e-8 * n * m,
               "uniform": lambda n, m, d: 4e-9 * m * m}


def grid_seconds(n: int, d: int, ms: tuple, n_repeats: int, baselines) -> float:
    """Seconds the grid takes on a 2-core machine (``FIT_SECONDS`` of each fit: Nyström
    O(nmd + m³), herding O(n · 2000 candidates), random features O(nm), uniform O(m²),
    plus 3 ms each)."""
    return n_repeats * sum(FIT_SECONDS[name](n, m, d) + 0.003
                           for m in ms for name in ("nystrom", *baselines))


@shared_cache(maxsize=64)
def grid_part(problem_key, repeat: int, ms: tuple, replace, baselines) -> tuple:
    """The error records of draw ``repeat`` at the landmark counts ``ms``; each (draw, m)
    has its own seed."""
    mixture, bandwidth, _ = make_problem(*problem_key)
    kernel, X = K.GaussianKernel(bandwidth), repeat_sample(problem_key, repeat)
    records = []
    for m in ms:
        rng = np.random.default_rng([problem_key[4], repeat, m])
        records += errors_at_m(mixture, kernel, X, int(m), ("nystrom", *baselines), replace, rng)
    return tuple(records)


def grid_parts(problem_key, ms: tuple, n_repeats: int, replace, baselines) -> list:
    """The error table's parts in the order they are drawn: the first draw one m at a time
    (the curves grow to the right, a part within a second or so), then each further draw
    whole (the means and bands settle)."""
    first = [functools.partial(grid_part, problem_key, 0, (m,), replace, baselines)
             for m in ms]
    rest = [functools.partial(grid_part, problem_key, r, ms, replace, baselines)
            for r in range(1, n_repeats)]
    return first + rest


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
    PLOTS = (
        Plot("error_view", "Error vs m",
             "Exact error ||μ - μ̂|| vs the number of landmarks m (mean and 5–95% band). "
             "Nyström reaches the empirical KME's error (grey; in the explorer its exact root- "
             "mean-square, √((k(0) - ||μ||²)/n)) near m ≈ √n log √n (dotted), far below n. "
             "(rff, with L = m features, is measured in its own feature space: it shows only "
             "the sampling error and is not comparable with the others.)"),
        Plot("map_view", "Nyström embedding",
             "The Nyström embedding μ̂_m(z) with its landmarks, sized by |α_j|, and the true "
             "embedding μ(z) of the mixture (App. G closed form)."),
        Plot("runtime_view", "Fit time",
             "Fit time vs m: the Nyström fit costs O(nm + m³)."),
    )

    d = param.Integer(default=2, bounds=(2, 20), doc="dimension")
    n_centres = param.Integer(default=8, bounds=(1, 16), label="mixture centres")
    spread = param.Number(default=5.0, bounds=(0.5, 20.0), doc="centres ~ N(0, spread·I)")
    n = param.Integer(default=2000, bounds=(100, 20000), label="sample size n")
    m_min = param.Integer(default=4, bounds=(1, 100), label="smallest m")
    m_max = param.Integer(default=400, bounds=(10, 2000), label="largest m")
    n_repeats = param.Integer(default=3, bounds=(1, 10), label="repeats")
    replace = param.Boolean(default=True, label="landmarks with replacement")
    baselines = param.ListSelector(default=["uniform"], objects=["uniform", "herding", "rff"])
    m_view = param.Integer(default=40, bounds=(1, 2000), label="m for the 2-D view")

    #: the error table so far: (table or None, parts done, parts in all, error or None)
    grid_state = param.Parameter(default=None, precedence=-1)
    #: a new grid (new layers) has its first part, or a grid failed: the plots are rebuilt
    grid_key = param.Integer(default=0, precedence=-1)

    def __init__(self, **params):
        super().__init__(**params)
        self._grid = self.job()
        self._shown = 0  # the generation of the grid the plots show
        self._feeds = Feeds()  # the streams of the plots shown, fed part by part

    @property
    def problem_key(self):
        return (self.d, self.n_centres, float(self.spread), self.n, self.seed)

    def _ms(self) -> tuple:
        """The grid of m, refused (with the setting that fits) when it would take more
        than ``GRID_SECONDS``."""
        if self.m_min > self.m_max:
            raise ValueError(f"smallest m ({self.m_min}) exceeds largest m ({self.m_max})")
        ms = m_grid(self.n, self.m_min, self.m_max)
        seconds = grid_seconds(self.n, self.d, ms, self.n_repeats, self.baselines)
        if seconds > GRID_SECONDS:
            fits = int(GRID_SECONDS * self.n_repeats // seconds)
            lower = (f"lower the repeats to {fits}" if fits >= 1 else
                     "lower the largest m, the sample size n or the baselines")
            raise ValueError(f"this grid would take about {seconds:.0f} s, more than the "
                             f"{GRID_SECONDS:.0f} s an explorer allows a view: {lower}")
        return ms

    @param.depends(*MIXTURE_PARAMS, *GRID_PARAMS, watch=True)
    def _start_grid(self):
        """Compute the error table part by part (``grid_parts``); a newer change cancels
        the rest of an older one."""
        try:
            parts = grid_parts(self.problem_key, self._ms(), self.n_repeats, self.replace,
                               tuple(self.baselines))
        except ValueError as exc:
            self._grid.cancel()
            self.grid_state = (None, 0, 0, exc)
            self.grid_key += 1  # the plots show the message
            return
        self.grid_state = None

        def grid(_emit):  # the table part by part: the results so far after each
            results = []
            for part in parts:
                results.append(part())
                yield list(results)

        self._grid.start(grid, lambda results, error: self._deliver(
            results or [], len(results or []), len(parts), error))

    def _deliver(self, results, done, total, error):
        records = [record for part in results for record in part]
        table = None
        if records:
            rms = empirical_rms(self.problem_key)
            repeats = done - (total - self.n_repeats)  # draws so far (first: len(ms) parts)
            table = pd.concat([error_summary(records), pd.DataFrame([{
                "n": self.n, "estimator": "empirical", "m": self.n, "mean_error": rms,
                "p05": rms, "p95": rms, "runtime_s": np.nan,
                "repeats": max(repeats, 1)}])], ignore_index=True)
        if error is not None or table is None:  # nothing to draw yet, or a message
            self.grid_state = (table, done, total, error)
            if error is not None:
                self.grid_key += 1
            return
        fresh = self._shown != self._grid.generation  # a new grid: the plots are built anew
        self._feeds.publish((table, done, total), new=fresh)  # before a build can see it
        self.grid_state = (table, done, total, error)
        if fresh:
            self._shown = self._grid.generation
            self.grid_key += 1

    def _table(self):
        """(table so far, parts done, parts in all, error), starting the computation if
        nothing has started; raises the error that stopped it."""
        if self._grid.generation == 0 and self.grid_state is None:
            self._start_grid()
        state = self.grid_state
        if state is not None and state[3] is not None:
            raise state[3]
        return state

    def _progressive(self, draw):
        """A plot of the table so far, redrawn in place as parts arrive (a note while the
        first part is computed)."""
        state = self._table()
        if state is None or state[0] is None:
            return pn.pane.Markdown("Computing the first m values …",
                                    css_classes=["kmeviz-computing"])
        pipe = self._feeds.pipe()

        def frame(data):
            with viz.sizing(self.plot_sizing):
                return draw(*data).opts(hv.opts.Curve(framewise=True),
                                        hv.opts.Area(framewise=True))
        return hv.DynamicMap(frame, streams=[pipe])

    @param.depends("grid_key")
    @guarded
    def error_view(self):
        def draw(table, done, total):
            r = np.sqrt(self.n)
            plot = viz.error_vs_m_plot(table, marker=r * np.log(r))
            return plot.opts(title=progress_title(plot, done, total))
        return self._progressive(draw)

    @param.depends("grid_key")
    @guarded
    def runtime_view(self):
        def draw(table, done, total):
            plot = viz.runtime_vs_m_plot(table)
            return plot.opts(title=progress_title(plot, done, total))
        return self._progressive(draw)

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
        # the maps wrap when their card is narrower than both (a notebook column, or the
        # served page's card beside the fit-time plot, over which a Row had spilled)
        return pn.FlexBox(pn.pane.HoloViews(left), pn.pane.HoloViews(right), flex_wrap="wrap")

    @param.depends("grid_state", "m_view", "replace")
    @guarded
    def summary_view(self):
        state = self._table()
        *_, err = embedding_maps(self.problem_key, self.m_view, self.replace)
        r = np.sqrt(self.n)
        rows = [("kernel bandwidth (median heuristic)",
                 f"{make_problem(*self.problem_key)[1]:.3f}")]
        if state is None or state[0] is None:
            rows.append(("error table", '<span class="kmeviz-computing">computing the first m '
                                        'values …</span>'))
        else:
            df, done, total, _ = state
            emp = df[df.estimator == "empirical"]
            ny = df[df.estimator == "nystrom"].sort_values("m")
            reach = ny[ny.mean_error <= 1.1 * emp["mean_error"].iloc[0]]
            reach_m = int(reach["m"].iloc[0]) if len(reach) else "not reached"
            rows += [("error table", f'<span class="kmeviz-progress">{done} of {total}</span>'
                      " parts" + ("" if done == total else
                                  ' <span class="kmeviz-computing">(filling in)</span>')),
                     ("empirical error (exact RMS)",
                      f'<span class="kmeviz-empirical">{emp["mean_error"].iloc[0]:.5f}</span>'),
                     ("first m within 10% of it", f'<span class="kmeviz-reach">{reach_m}</span>')]
        rows += [("√n log √n", f"{r * np.log(r):.0f}"),
                 (f"Nyström error at m = {self.m_view}",
                  f'<span class="kmeviz-mview">{err:.5f}</span>')]
        table = "\n".join(f"| {name} | {value} |" for name, value in rows)
        return pn.pane.Markdown(f"| | |\n|---|---|\n{table}\n", css_classes=["kmeviz-summary"],
                                sizing_mode="stretch_width")


def progress_title(plot, done: int, total: int) -> str:
    """The plot's title, with how far the table has got while it fills in."""
    title = plot.opts.get().kwargs.get("title", "")
    return title if done == total else f"{title} ({done} of {total} parts)"


create_app = NystromErrorExplorer.create_app
NystromErrorExplorer.serve_if_script(__name__)
