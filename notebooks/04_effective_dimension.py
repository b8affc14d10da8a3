# ---
# jupyter:
#   jupytext:
#     notebook_metadata_filter: kernelspec,jupytext,-jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Effective dimension: how many landmarks are enough?
#
# **What you will learn**
# - the spectrum of the Gram matrix K/n and why its decay controls Nyström methods;
# - the effective dimension N(λ) = Σ σᵢ/(σᵢ + λ) and the regularisation λ(m) of Thm 4.1;
# - the landmark counts the theory recommends (Thm 4.1, Cor. 4.1) compared with the m that
#   actually reaches the empirical error.
#
# **What you need**: notebook 03. Runs in a few seconds.

# %%
import holoviews as hv
import numpy as np
import pandas as pd

import kmeviz as K
from kmeviz import viz
from kmeviz.embeddings.spectrum import (
    lambda_of_m,
    landmarks_exponential_decay,
    landmarks_polynomial_decay,
    sufficient_landmarks,
)
from kmeviz.experiments import paper_mixture

hv.extension("bokeh", logo=False, inline=True)  # BokehJS inline: works offline

# %% [markdown]
# ## 1. Gram spectra decay at different speeds
#
# A smooth kernel (Gaussian) has a fast-decaying spectrum, a rough one (Laplace) a slow
# one. The fit compares log σᵢ against i (exponential) and log i (polynomial); with
# σᵢ ∝ i^(−1/γ), a small γ means fast decay and few landmarks.

# %%
rng = np.random.default_rng(0)
X = paper_mixture(d=5, rng=rng).sample(1500, rng=rng)
bw = K.median_heuristic(X, rng=0)
spectra = {}
for name, kern in {"Gaussian": K.GaussianKernel(bw), "Laplace": K.LaplaceKernel(bw)}.items():
    ev = K.gram_spectrum(X, kern)
    fit = K.fit_decay(ev)
    spectra[name] = (ev, fit)
    print(f"{name:8s} decay: {fit.kind:11s} rate = {fit.rate:.4f}  γ = {fit.gamma:.3f}"
          f"  (R² exp {fit.r2_exponential:.3f}, poly {fit.r2_polynomial:.3f})")

# %% tags=["check", "remove-cell"]
# Checks run by the test suite (tests/test_notebooks.py); they compare values, never bytes.
# tr(K/n) = k(x, x) = 1 and K/n is PSD: identities up to round-off (1e-10).
for ev_, _ in spectra.values():
    assert np.isclose(ev_.sum(), 1.0, rtol=1e-10) and ev_.min() > -1e-10
# The fits use eigenvalues down to 1e-12·σ₁, whose round-off is up to ~1e-4 of their size:
# fitted values are checked to 1e-4 relative, the top eigenvalue to 1e-8.
gauss, laplace = spectra["Gaussian"][1], spectra["Laplace"][1]
assert np.isclose(spectra["Gaussian"][0][0], 0.6192375, rtol=1e-6)
assert np.isclose(gauss.gamma, 0.308483429525, rtol=1e-4)
assert np.isclose(laplace.gamma, 0.907470401182, rtol=1e-4)
assert gauss.gamma < laplace.gamma  # the smooth kernel's spectrum decays faster

# %% tags=["plot"]
spectrum_plots = (viz.spectrum_plot(*spectra["Gaussian"]).opts(title="Gaussian kernel")
                  + viz.spectrum_plot(*spectra["Laplace"]).opts(title="Laplace kernel"))
spectrum_plots

# %% tags=["check", "remove-cell"]
for overlay, (ev_, _) in zip(spectrum_plots, spectra.values(), strict=True):
    shown = overlay.traverse(lambda e: e, [hv.Scatter])[0].dimension_values(1)
    assert np.isclose(shown[0], ev_.max(), rtol=1e-12) and np.all(np.diff(shown) <= 0)

# %% [markdown]
# ## 2. The effective dimension
#
# N(λ) counts the eigen-directions above scale λ. Thm 4.1 uses λ(m) = 12K² log(m/δ)/m:
# the more landmarks, the smaller λ(m), the more directions Nyström can resolve.

# %% tags=["plot"]
ev = spectra["Gaussian"][0]
for m in (10, 100, 1000):
    lam = float(lambda_of_m(m, delta=0.05))
    print(f"m = {m:5d}: λ(m) = {lam:.4g}, N(λ(m)) = {K.effective_dimension(ev, lam):.3f}")
lams = np.logspace(-7, 1, 200)
n_of_lambda = viz.effective_dimension_plot(lams, K.effective_dimension(ev, lams),
                                           lam_m=float(lambda_of_m(100)), label_m="λ(m = 100)")
n_of_lambda

# %% tags=["check", "remove-cell"]
# N(λ) = Σ σᵢ/(σᵢ + λ) by its definition, and it falls from ≈ rank to ≈ 0 as λ grows.
N = n_of_lambda.traverse(lambda e: e, [hv.Curve])[0].dimension_values("N(λ)")
assert np.allclose(N, [np.sum(ev / (ev + lam)) for lam in lams], rtol=1e-10)
assert np.all(np.diff(N) < 0) and N[-1] < 0.1 < 100 < N[0]
assert np.isclose(float(lambda_of_m(100, delta=0.05)), 0.9121, rtol=1e-3)

# %% [markdown]
# ## 3. Landmark rules vs what is needed
#
# The theory's counts are sufficient conditions with conservative constants. The last
# row is measured: the smallest m whose Nyström projection error ||μ̂ − P_m μ̂|| falls below
# the estimated empirical error ||μ̂ − μ||.

# %%
n = X.shape[0]
kern = K.GaussianKernel(bw)
G = kern(X)
target = np.sqrt((1.0 - (G.sum() - n) / (n * (n - 1))) / n)
reached = None
for m in np.unique(np.geomspace(2, n, 40).astype(int)):
    ny = K.NystromKME(kern, int(m), rng=0).fit(X)
    if np.sqrt(max(G.mean() - ny.weights_ @ kern(ny.landmarks_) @ ny.weights_, 0)) <= target:
        reached = int(m)
        break
r = np.sqrt(n)
rules = pd.Series({
    "√n log √n": r * np.log(r),
    "Cor. 4.1 exponential": float(landmarks_exponential_decay(n)),
    "Cor. 4.1 polynomial (fitted γ)": float(landmarks_polynomial_decay(
        n, max(spectra["Gaussian"][1].gamma, 1e-3))),
    "Thm 4.1 sufficient (Lambert W)": float(sufficient_landmarks(cov_norm=float(ev[0]))),
    "measured: reaches empirical error": float(reached),
})
print(rules.round(0).to_string())

# %% tags=["check", "remove-cell"]
# The theory's counts are sufficient, so conservative: each is above the measured m.
assert np.isclose(target, 0.0162573599478, rtol=1e-6)
assert 2 < reached < rules.drop("measured: reaches empirical error").min()

# %% [markdown]
# ## Play with it
# The **Effective dimension spectrum** explorer below starts on the paper's mixture in
# d = 10 with n = 1000, as above. Try other data (including real NYC taxi data shipped
# with HoloViews), kernels and bandwidths, and move m to see λ(m) and N(λ) respond. (Live
# in JupyterLab.)

# %% tags=["plot"]
import panel as pn

from kmeviz.apps import EffectiveDimensionExplorer

pn.extension(inline=True)
explorer = EffectiveDimensionExplorer(d=10, n=1000)
explorer

# %% tags=["check", "remove-cell"]
assert explorer.failures() == {} and (explorer.d, explorer.n) == (10, 1000)

# %% [markdown]
# ## Exercises
# Each `check_…` says whether your answer is right and, if not, gives a hint; it never
# shows the answer.
#
# **1.** With `mixture, X, kernel = nystrom_data()`, compute the effective dimension
# N(λ) at λ = 10⁻³ of the Gram spectrum of the first 500 points.

# %%
from kmeviz.exercises import (
    check_effective_dimension,
    check_effective_dimension_trend,
    nystrom_data,
)

mixture, X, kernel = nystrom_data()
answer = None  # N(1e-3)
check_effective_dimension(answer)

# %% [markdown]
# **2.** As λ decreases, does N(λ) `"increase"` or `"decrease"`? What does that mean for
# the number of landmarks that Thm 4.1 asks for?

# %%
answer = None  # "increase" or "decrease"
check_effective_dimension_trend(answer)
