"""Work started by a button, off the event loop (``_jobs.Job``): ``ButtonJobs``, the
buttons' jobs of an explorer with one progress bar and a Stop button, and ``PowerCurve``,
a curve of rejection rates filled in point by point."""

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


class ButtonJobs:
    """The jobs that an explorer's buttons start, one per result parameter, sharing a
    progress bar and a Stop button (a closed page stops them too).

    Parameters
    ----------
    explorer : Explorer
    results : tuple of str
        The explorer's parameters the jobs fill (each job's own slot).
    """

    def __init__(self, explorer, results: tuple):
        self.explorer = explorer
        self.jobs = {name: explorer.job() for name in results}
        self.progress = pn.indicators.Progress(value=0, max=1, active=False, visible=False,
                                               sizing_mode="stretch_width")
        self.stop = pn.widgets.Button(label="Stop", visible=False)
        self.stop.on_click(self._stop)
        self._buttons: list = []

    @property
    def widgets(self) -> list:
        return [self.progress, self.stop]

    def start(self, button, view: str, work, result: str, *, total: int) -> None:
        """Run ``work`` as ``result``'s job: the button greys out and the progress bar
        moves to ``total``; each part (done, table) with a table sets ``result`` (so a
        table may fill in); the last part, the error that stopped it, or Stop frees the
        button. An error replaces the plot with a message, or, after a partial table,
        shows beside the widgets and leaves that table."""
        explorer = self.explorer
        button.disabled = True
        self._buttons.append(button)
        self.progress.param.update(value=0, max=total, visible=True, active=True)
        self.stop.visible = True
        explorer.show_plot(view)
        delivered = []  # a partial table was shown: a later error keeps it

        def show(part, error):
            if error is None:
                done, value = part
                self.progress.value = done
                if value is not None:
                    setattr(explorer, result, value)
                    delivered.append(done)
                if done < total:
                    return
            elif delivered:  # e.g. the time budget: keep the draws so far, say why
                explorer.show_notice(error)
            else:
                setattr(explorer, result, error)
            self._finish(button)

        self.jobs[result].start(work, show)

    def _finish(self, button) -> None:
        button.disabled = False
        if button in self._buttons:
            self._buttons.remove(button)
        if not self._buttons:
            self.progress.active = False
            self.stop.visible = False

    def _stop(self, _event=None) -> None:
        """Stop every running job; what they showed so far stays."""
        for job in self.jobs.values():
            job.cancel()
        for button in list(self._buttons):
            self._finish(button)

