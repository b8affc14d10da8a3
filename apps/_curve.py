"""A curve of rejection rates filled in point by point: the button that starts it, its
progress bar, and the job that runs it off the event loop (``_jobs.Job``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import panel as pn

from kmeviz.experiments.runners import binomial_interval, rejection_rates


class PowerCurve:
    """Rejection rates of some tests at each point of a grid, over fresh draws, shown in
    ``explorer.<result>`` as each point finishes; a new press or a closed page stops it.

    Parameters
    ----------
    explorer : Explorer
    label : str
        The button's label (the explorer sets its ``on_click``).
    result : str
        The explorer's parameter that receives each partial table (or the error).
    view : str
        The plot shown when the curve starts.
    """

    def __init__(self, explorer, label: str, *, result: str = "power_result",
                 view: str = "power_view"):
        self.explorer, self.result, self.view = explorer, result, view
        self.button = pn.widgets.Button(label=label, color="primary")
        self.progress = pn.indicators.Progress(value=0, max=1, active=False, visible=False,
                                               sizing_mode="stretch_width")
        self.job = explorer.job()

    @property
    def widgets(self) -> list:
        return [self.button, self.progress]

    def run(self, points, draw, tests: dict, *, draws: int, alpha: float, seed: int,
            attrs: dict | None = None) -> None:
        """Start: ``tests`` (name -> test as ``rejection_rates`` takes them) on ``draws``
        draws ``draw(rng, point)`` at each of ``points``; the table has the columns of
        ``rejection_rates`` with ``value`` (the point) and 95 % ``ci_low``, ``ci_high``."""
        total = len(points) * draws

        def work(_emit):
            frames = []
            for k, value in enumerate(points):
                df = rejection_rates(lambda rng, v=value: draw(rng, v), tests,
                                     n_repeats=draws, alpha=alpha,
                                     rng=np.random.default_rng([seed, k]))
                df = df.rename(columns={df.columns[0]: "test"}).assign(value=value)
                lows, highs = zip(*(binomial_interval(r, draws, 0.95)
                                    for r in df["rejections"]), strict=True)
                frames.append(df.assign(ci_low=lows, ci_high=highs))
                table = pd.concat(frames, ignore_index=True)
                table.attrs.update(attrs or {})
                yield (k + 1) * draws, table

        self.button.disabled = True
        self.progress.param.update(value=0, max=total, visible=True, active=True)
        self.explorer.show_plot(self.view)

        def show(part, error):
            if error is not None:
                setattr(self.explorer, self.result, error)
            else:
                self.progress.value = part[0]
                setattr(self.explorer, self.result, part[1])
                if part[0] < total:
                    return
            self.button.disabled = False
            self.progress.active = False

        self.job.start(work, show)
