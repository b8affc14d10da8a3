"""Parameters that several explorers share, declared once: the kernel scale with its
"Median heuristic" button (the seed is on ``Explorer`` itself)."""

from __future__ import annotations

import panel as pn
import param

import kmeviz as K


class MedianBandwidth(param.Parameterized):
    """A kernel scale with a "Median heuristic" button that sets it from ``median_data()``
    (one or two samples), computed as a job of the explorer."""

    bandwidth = param.Number(default=1.0, bounds=(0.0, 1000.0),
                             doc="σ (Gaussian, Laplace) or c (IMQ)")

    def median_data(self) -> tuple:
        """The sample(s) whose median distance sets the bandwidth."""
        raise NotImplementedError

    def median_button(self) -> pn.widgets.Button:
        button = pn.widgets.Button(label="Median heuristic")
        button.on_click(self.use_median_heuristic)
        return button

    def use_median_heuristic(self, _event=None) -> None:
        if getattr(self, "_median_job", None) is None:
            self._median_job = self.job()
        seed = self.seed

        def work(emit):
            emit(round(K.median_heuristic(*self.median_data(), rng=seed), 3))

        def show(value, error):
            if error is not None:
                self.show_notice(error)
            else:
                self.bandwidth = value

        self._median_job.start(work, show)
