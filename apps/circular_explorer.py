"""Circular discrepancy explorer (FastMMD, Zhao & Meng, Sec. 3).

Pick data, kernel and a frequency ω; see both samples projected on ω and wrapped
on the unit circle, the sinusoid objective whose amplitude is η(ω), and the
ensemble of η² over L random frequencies converging to the exact MMD².
"""

from __future__ import annotations

import numpy as np
import panel as pn
import param
from kmeviz_apps._cache import shared_cache
from kmeviz_apps._common import KERNELS, Explorer, Plot, guarded
from kmeviz_apps._jobs import live_view
from kmeviz_apps._parameters import MedianBandwidth

import kmeviz as K
from kmeviz import viz
from kmeviz.twosample.circular import running_mean

DATASETS = ("Blobs (ε ratio)", "Blobs with mean shift", "Rings in a square")


# -- cached stages, keyed on scalars -------------------------------------------------
@shared_cache(maxsize=16)
def make_samples(dataset: str, epsilon: float, shift: float, n: int, seed: int):
    if dataset == DATASETS[0]:
        return K.blobs_two_sample(n, epsilon=epsilon, rng=seed)
    if dataset == DATASETS[1]:
        return K.blobs_two_sample(n, epsilon=1.0, shift=shift, rng=seed)
    return K.rings_two_sample(n, rng=seed)


def make_kernel(name: str, bandwidth: float):
    return KERNELS[name](bandwidth)


@shared_cache(maxsize=16)
def reference_values(data_key: tuple, kernel_name: str, bandwidth: float) -> dict:
    """Exact (biased, unbiased), linear-time and B-test MMD² — the expensive stage."""
    X, Y = make_samples(*data_key)
    k = make_kernel(kernel_name, bandwidth)
    return {
        "exact_biased": K.mmd2(X, Y, k),
        "exact_unbiased": K.mmd2(X, Y, k, estimator="unbiased"),
        "linear": K.mmd2_linear(X, Y, k),
        "block": K.mmd2_block(X, Y, k),
    }


@shared_cache(maxsize=16)
def ensemble_values(data_key: tuple, kernel_name: str, bandwidth: float, L: int, seed: int):
    """η²(ω_k) for L frequencies drawn from the kernel's spectral measure."""
    X, Y = make_samples(*data_key)
    k = make_kernel(kernel_name, bandwidth)
    W = k.sample_frequencies(L, X.shape[1], rng=seed)
    return K.circular_ensemble(X, Y, W, kernel=k)


DATA_PARAMS = ("dataset", "epsilon", "shift", "n", "seed")
OMEGA_PARAMS = ("angle", "scale")
ESTIMATE_PARAMS = ("kernel", "bandwidth", "n_frequencies")


class CircularExplorer(Explorer, MedianBandwidth):
    """Interactive view of FastMMD as an ensemble of circular discrepancies."""

    title = "Circular discrepancy explorer"
    CONTROLS = (*DATA_PARAMS, "kernel", "bandwidth", *OMEGA_PARAMS, "n_frequencies")
    WIDGETS = {name: {"type": pn.widgets.FloatSlider, "throttled": True}
               for name in ("epsilon", "shift", "angle", "scale")} | {
        "n": {"type": pn.widgets.IntSlider, "throttled": True},
        "n_frequencies": {"type": pn.widgets.IntSlider, "throttled": True},
        "bandwidth": {"type": pn.widgets.FloatInput, "step": 0.1}}
    PLOTS = (
        Plot("samples_view", "Samples and projection",
             "The two samples; the arrow is the random frequency ω: every point is projected "
             "on it and the projection is wrapped around the circle."),
        Plot("circle_view", "Circle",
             "Projections ω'x mod 2π on the unit circle (X outside, Y inside). The green "
             "diameter separates the samples best; the belt shows the objective of Eq. (8)."),
        Plot("objective_view", "Objective over y",
             "Objective Σ aᵢ sin(y − xᵢ) over y: a single sinusoid whose amplitude is the "
             "circular discrepancy η(ω) (Claim 5)."),
        Plot("ensemble_view", "Ensemble over L",
             "Averaging η² over L random frequencies converges to the exact biased MMD² (Claim "
             "6); linear-time and B-test estimates are shown for comparison."),
    )

    dataset = param.Selector(default=DATASETS[0], objects=list(DATASETS))
    epsilon = param.Number(
        default=4.0, bounds=(1.0, 10.0), step=0.1, doc="eigenvalue ratio ε of Q's blobs"
    )
    shift = param.Number(default=1.0, bounds=(0.0, 5.0), step=0.1, doc="mean shift of Q")
    n = param.Integer(default=500, bounds=(20, 3000), doc="points per sample")
    kernel = param.Selector(default="Gaussian", objects=list(KERNELS))
    angle = param.Number(
        default=30.0, bounds=(0.0, 360.0), step=1.0, doc="direction of ω in degrees"
    )
    scale = param.Number(default=1.0, bounds=(0.0, 6.0), step=0.01, doc="|ω|")
    n_frequencies = param.Integer(default=1024, bounds=(1, 8192), label="L (frequencies)")
    frequency_seed = param.Integer(default=0, bounds=(0, 2**31 - 1), precedence=-1)

    def __init__(self, **params):
        super().__init__(**params)
        self._redraw_button = pn.widgets.Button(label="Redraw ω ~ p(ω)", color="primary")
        self._redraw_button.on_click(self._redraw_frequency)

    # -- derived quantities ------------------------------------------------------
    @property
    def data_key(self) -> tuple:
        return (self.dataset, float(self.epsilon), float(self.shift), int(self.n), int(self.seed))

    @property
    def omega(self) -> np.ndarray:
        a = np.deg2rad(self.angle)
        return self.scale * np.array([np.cos(a), np.sin(a)])

    def median_data(self) -> tuple:
        return make_samples(*self.data_key)

    def _redraw_frequency(self, _event=None):
        try:
            k = make_kernel(self.kernel, self.bandwidth)
        except (TypeError, ValueError):
            return  # the plots already show why the kernel is invalid
        self.frequency_seed += 1
        rng = np.random.default_rng([self.seed, self.frequency_seed])
        w = k.sample_frequencies(1, 2, rng=rng)[0]
        self.param.update(
            angle=float(np.rad2deg(np.arctan2(w[1], w[0])) % 360.0),
            scale=float(min(np.linalg.norm(w), self.param.scale.bounds[1])),
        )

    # -- views -------------------------------------------------------------------
    @param.depends(*DATA_PARAMS)
    @guarded
    def samples_view(self):
        """The samples and ω; a new ω (a drag, a redraw) moves the arrow in place."""
        X, Y = make_samples(*self.data_key)
        return live_view(self, OMEGA_PARAMS, lambda: viz.samples_plot(X, Y, self.omega))

    def _estimates(self):
        """Cached reference MMD² values and the η² of the current L frequencies."""
        refs = reference_values(self.data_key, self.kernel, self.bandwidth)
        eta2 = ensemble_values(self.data_key, self.kernel, self.bandwidth,
                               self.n_frequencies, self.seed)
        return refs, eta2

    def _circular(self):
        X, Y = make_samples(*self.data_key)
        return K.circular_discrepancy(X, Y, self.omega)

    @param.depends(*DATA_PARAMS)
    @guarded
    def circle_view(self):
        return live_view(self, OMEGA_PARAMS, lambda: viz.circle_plot(self._circular()))

    @param.depends(*DATA_PARAMS)
    @guarded
    def objective_view(self):
        return live_view(self, OMEGA_PARAMS, lambda: viz.objective_plot(self._circular()))

    @param.depends(*DATA_PARAMS, *ESTIMATE_PARAMS)
    @guarded
    def ensemble_view(self):
        refs, eta2 = self._estimates()
        return viz.ensemble_plot(
            running_mean(eta2),
            exact_biased=refs["exact_biased"],
            exact_unbiased=refs["exact_unbiased"],
            linear=refs["linear"],
            block=refs["block"],
        )

    @param.depends(*DATA_PARAMS, *ESTIMATE_PARAMS, *OMEGA_PARAMS)
    @guarded
    def summary_view(self):
        cd = self._circular()
        refs, eta2 = self._estimates()
        est = float(eta2.mean())
        rel = abs(est - refs["exact_biased"]) / max(abs(refs["exact_biased"]), 1e-300)
        return pn.pane.Markdown(
            f"""
| quantity | value |
|---|---|
| ω | ({self.omega[0]:.3f}, {self.omega[1]:.3f}) |
| circular discrepancy η(ω) | <span class="kmeviz-eta">{cd.amplitude:.5f}</span> |
| diameter angle y* | {np.rad2deg(cd.maximiser):.1f}° |
| FastMMD² with L = {self.n_frequencies} | <span class="kmeviz-fastmmd">{est:.6f}</span> |
| exact biased MMD² | <span class="kmeviz-exact">{refs["exact_biased"]:.6f}</span> |
| relative error | {100 * rel:.2f} % |
| exact unbiased MMD² | {refs["exact_unbiased"]:.5f} |
| linear-time / B-test | {refs["linear"]:.5f} / {refs["block"]:.5f} |
""",
            css_classes=["kmeviz-summary"],
            sizing_mode="stretch_width",
        )

    # -- layout ------------------------------------------------------------------
    def buttons(self) -> list:
        return [pn.Row(self.median_button(), self._redraw_button)]

    def first_row(self) -> pn.Column:
        """The summary (a wide table) above the plots' tabs."""
        return pn.Column(pn.Row(self.live_summary(), sizing_mode="stretch_width"),
                         self.plot_tabs(), sizing_mode="stretch_width")


create_app = CircularExplorer.create_app
CircularExplorer.serve_if_script(__name__)
