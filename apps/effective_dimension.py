"""Effective dimension spectrum (Chatalic et al. 2022, Thm 4.1 and Cor. 4.1).

The Gram spectrum decides how many Nyström landmarks are enough: see the eigenvalues of
K/n with their fitted decay, the effective dimension N(λ) with λ(m) of Thm 4.1, and the
landmark counts each rule recommends next to the m that actually reaches the
empirical error.
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
from kmeviz.distributions import nyc_taxi
from kmeviz.embeddings import landmarks_for_empirical_accuracy
from kmeviz.embeddings.spectrum import (
    lambda_of_m,
    landmarks_exponential_decay,
    landmarks_polynomial_decay,
    sufficient_landmarks,
)
from kmeviz.experiments import paper_mixture

DATASETS = ("Gaussian mixture (paper)", "Uniform cube", "NYC taxi pickups (real data)")
DATA_PARAMS = ("dataset", "d", "n", "seed")
KERNEL_PARAMS = ("kernel", "bandwidth")


@shared_cache(maxsize=8)
def make_data(dataset, d, n, seed):
    rng = np.random.default_rng(seed)
    if dataset == DATASETS[0]:
        return paper_mixture(d=d, rng=rng).sample(n, rng=rng)
    if dataset == DATASETS[1]:
        return rng.uniform(size=(n, d))
    Z = nyc_taxi()
    return Z[rng.choice(len(Z), size=min(n, len(Z)), replace=False)]


@shared_cache(maxsize=16)
def spectrum(data_key, kernel_key):
    X = make_data(*data_key)
    ev = K.gram_spectrum(X, KERNELS[kernel_key[0]](kernel_key[1]))
    return ev, K.fit_decay(ev)


@shared_cache(maxsize=16)
def m_reaching_empirical(data_key, kernel_key, seed):
    """Smallest m on a grid with ||μ̂ - P_m μ̂|| <= the estimated empirical error, and it."""
    return landmarks_for_empirical_accuracy(make_data(*data_key),
                                            KERNELS[kernel_key[0]](kernel_key[1]), rng=seed)


class EffectiveDimensionExplorer(Explorer, MedianBandwidth):
    """Gram spectra, the effective dimension and landmark-count rules."""

    title = "Effective dimension spectrum"
    CONTROLS = ("dataset", "d", "n", "kernel", "bandwidth", "m", "delta", "seed")
    WIDGETS = {"n": {"type": pn.widgets.IntSlider, "throttled": True},
               "m": {"type": pn.widgets.IntInput, "step": 10},
               "bandwidth": {"type": pn.widgets.FloatInput, "step": 0.5},
               "delta": {"type": pn.widgets.FloatSlider, "throttled": True}}
    SUMMARY_WIDTH = 420
    PLOTS = (
        Plot("spectrum_view", "Gram spectrum",
             "Eigenvalues of K/n on log-log axes with the fitted decay: fast decay means few "
             "landmarks suffice."),
        Plot("effective_dimension_view", "Effective dimension",
             "Effective dimension N(λ) = Σ νᵢ/(νᵢ + λ): the number of directions the data "
             "really use at scale λ; λ(m) of Thm 4.1 is marked."),
        Plot("rules_view", "Landmark rules",
             "Landmark counts recommended by the theory next to the m that actually brings the "
             "Nyström projection error down to the empirical error."),
    )

    dataset = param.Selector(default=DATASETS[0], objects=list(DATASETS))
    d = param.Integer(default=10, bounds=(1, 50), doc="dimension (synthetic data)")
    n = param.Integer(default=1000, bounds=(50, 3000), doc="sample size")
    kernel = param.Selector(default="Gaussian", objects=list(KERNELS))
    bandwidth = param.Number(default=5.0)
    m = param.Integer(default=100, bounds=(2, 3000), doc="landmarks for λ(m)")
    delta = param.Number(default=0.05, bounds=(0.001, 0.5), step=0.005, label="δ")

    @property
    def data_key(self):
        return (self.dataset, self.d, self.n, self.seed)

    @property
    def kernel_key(self):
        return (self.kernel, float(self.bandwidth))

    def median_data(self) -> tuple:
        return (make_data(*self.data_key),)

    @param.depends(*DATA_PARAMS, *KERNEL_PARAMS)
    @guarded
    def spectrum_view(self):
        ev, fit = spectrum(self.data_key, self.kernel_key)
        return viz.spectrum_plot(ev, fit)

    @param.depends(*DATA_PARAMS, *KERNEL_PARAMS)
    @guarded
    def effective_dimension_view(self):
        """N(λ) of the spectrum; m and δ move the λ(m) marker in place."""
        ev, _ = spectrum(self.data_key, self.kernel_key)
        lams = np.logspace(-8, 1, 200)
        curve = K.effective_dimension(ev, lams)

        def marked():
            lam_m = float(lambda_of_m(self.m, delta=self.delta))
            N_m = K.effective_dimension(ev, lam_m)
            return viz.effective_dimension_plot(
                lams, curve, lam_m=lam_m, label_m=f"λ(m = {self.m}) = {lam_m:.3g}, N = {N_m:.1f}")

        return live_view(self, ("m", "delta"), marked)

    def _rules(self):
        ev, fit = spectrum(self.data_key, self.kernel_key)
        n = make_data(*self.data_key).shape[0]
        reached, target = m_reaching_empirical(self.data_key, self.kernel_key, self.seed)
        r = np.sqrt(n)
        rules = {
            "√n log √n": r * np.log(r),
            "Cor. 4.1 exponential": float(landmarks_exponential_decay(n, delta=self.delta)),
            f"Cor. 4.1 polynomial (γ = {fit.gamma:.2f})": float(
                landmarks_polynomial_decay(n, max(fit.gamma, 1e-3), delta=self.delta)),
            "Thm 4.1 sufficient (Lambert W)": float(sufficient_landmarks(
                delta=self.delta, cov_norm=float(ev[0]))),
        }
        if reached is not None:
            rules["reaches the empirical error"] = float(reached)
        return rules, reached, target, fit, n

    @param.depends(*DATA_PARAMS, *KERNEL_PARAMS, "delta")
    @guarded
    def rules_view(self):
        rules, *_ = self._rules()
        return viz.rules_bars({k: max(v, 1.0) for k, v in rules.items()})

    @param.depends(*DATA_PARAMS, *KERNEL_PARAMS, "m", "delta")
    @guarded
    def summary_view(self):
        rules, reached, target, fit, n = self._rules()
        ev, _ = spectrum(self.data_key, self.kernel_key)
        lam_m = float(lambda_of_m(self.m, delta=self.delta))
        rows = "\n".join(f"| {k} | {v:,.0f} |" for k, v in rules.items())
        decay = (f'<span class="kmeviz-decay">{fit.kind}</span> '
                 f"(R² exp {fit.r2_exponential:.3f}, poly {fit.r2_polynomial:.3f})")
        n_eff = K.effective_dimension(ev, lam_m)
        return pn.pane.Markdown(f"""
| | |
|---|---|
| n | {n} |
| spectrum decay | {decay} |
| N(λ(m)) at m = {self.m} | <span class="kmeviz-neff">{n_eff:.2f}</span> |
| estimated empirical error | {target:.5f} |
| m reaching it | <span class="kmeviz-reach">{reached if reached else "> n"}</span> |
{rows}
""", css_classes=["kmeviz-summary"], sizing_mode="stretch_width")

    def buttons(self) -> list:
        return [self.median_button()]


create_app = EffectiveDimensionExplorer.create_app
EffectiveDimensionExplorer.serve_if_script(__name__)
