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
# # MMD and the circular discrepancy
#
# **What you will learn**
# - how a kernel mean embedding turns a distribution into a point μ_P of a Hilbert space, and
#   how the maximum mean discrepancy MMD(P, Q) = ‖μ_P − μ_Q‖ compares two samples;
# - FastMMD (Zhao & Meng): for a shift-invariant kernel, MMD² is an *average over random
#   frequencies ω* of a one-dimensional quantity, the **circular discrepancy** — both samples
#   projected on ω and wrapped around the unit circle;
# - how accurate FastMMD is as the number of frequencies L grows (a small Fig. 5).
#
# **What you need**: numpy, and the idea of a kernel k(x, y). Runs in a few seconds.

# %%
import holoviews as hv
import numpy as np
import pandas as pd

import kmeviz as K
from kmeviz import viz
from kmeviz.twosample.circular import running_mean

hv.extension("bokeh", logo=False, inline=True)  # BokehJS inline: works offline
np.set_printoptions(precision=5, suppress=True)

# %% [markdown]
# ## 1. From mean embeddings to MMD
#
# The data are the paper's 5 × 5 grid of Gaussian blobs: P has round blobs, Q blobs
# stretched with an eigenvalue ratio ε = 4. With a Gaussian kernel of bandwidth σ = 1
# (the scale of one blob), the exact MMD² needs all n² kernel values; kmeviz sums them in
# tiles so memory stays small.

# %%
X, Y = K.blobs_two_sample(1000, epsilon=4.0, rng=0)
kernel = K.GaussianKernel(bandwidth=1.0)
exact_b = K.mmd2(X, Y, kernel)
exact_u = K.mmd2(X, Y, kernel, estimator="unbiased")
print(f"biased MMD²   = {exact_b:.6f}")
print(f"unbiased MMD² = {exact_u:.6f}")
print(f"linear-time   = {K.mmd2_linear(X, Y, kernel):.6f}")
print(f"B-test        = {K.mmd2_block(X, Y, kernel):.6f}")

# %% tags=["check", "remove-cell"]
# Checks run by the test suite (tests/test_notebooks.py); they compare values, never bytes.
# Seeded numbers quoted in the text: 1e-6 relative (round-off between CPUs and BLAS builds
# is ~1e-13, any real change is far larger). Identities: 1e-10 relative.
Z = np.vstack([X, Y])
a = np.r_[np.full(len(X), 1 / len(X)), np.full(len(Y), -1 / len(Y))]
assert np.isclose(exact_b, a @ kernel(Z) @ a, rtol=1e-10)  # the naive (2n)² formula
assert np.isclose(exact_b, 0.00418009634, rtol=1e-6)
assert np.isclose(exact_u, 0.00220071762, rtol=1e-6)
assert exact_b > exact_u  # as the text says: the diagonal k(x, x) = 1 is included

# %% [markdown]
# The biased estimate is larger: it includes the diagonal terms k(x, x) = 1. The
# unbiased one removes them (App. A.1 of FastMMD gives the exact relation). The linear-time
# and B-test estimates target the unbiased value but use only a fraction of the pairs, so
# they are noisier.

# %% [markdown]
# ## 2. The circular picture
#
# Bochner's theorem writes the Gaussian kernel as k(x, y) = E_ω cos(ω'(x − y)) with
# ω ~ N(0, σ⁻² I). Fix one ω: project each point on ω and wrap the result mod 2π. Each sample
# becomes a cloud of points on the unit circle. The function y ↦ Σᵢ aᵢ sin(y − xᵢ)
# (aᵢ = 1/m on X, −1/n on Y) is a single sinusoid; its **amplitude** η(ω) is the circular
# discrepancy (Claim 5), and the diameter where it peaks separates the samples best.

# %%
omega = kernel.sample_frequencies(1, 2, rng=3)[0]
cd = K.circular_discrepancy(X, Y, omega)
grid = np.linspace(0, 2 * np.pi, 100_001)
print("omega           =", omega)
print(f"amplitude η(ω)  = {cd.amplitude:.6f}")
print(f"max over a grid = {cd.objective(grid).max():.6f}")
print(f"peak at y*      = {cd.maximiser:.4f} rad")

# %% tags=["check", "remove-cell"]
# The grid max is below η by at most η·h²/8 (h = 2π/10⁵), i.e. 5e-10 relative.
assert np.isclose(cd.objective(grid).max(), cd.amplitude, rtol=1e-8)
assert np.isclose(cd.objective(np.array([cd.maximiser]))[0], cd.amplitude, rtol=1e-10)
assert np.isclose(cd.amplitude, 0.0491914151, rtol=1e-6)

# %% tags=["plot"]
objective = viz.objective_plot(cd)
circle_and_objective = (viz.circle_plot(cd) + objective).opts(shared_axes=False)
circle_and_objective

# %% tags=["check", "remove-cell"]
# The plot shows both wrapped samples and the sinusoid that peaks at η(ω).
circle, sinusoid = circle_and_objective
wrapped = [p for p in circle.traverse(lambda e: e, [hv.Points]) if p.label]
assert [len(p) for p in wrapped] == [len(X), len(Y)]
curve = sinusoid.traverse(lambda e: e, [hv.Curve])[0]
assert np.isclose(curve.dimension_values("objective").max(), cd.amplitude, rtol=1e-3)

# %% [markdown]
# ## 3. FastMMD: an ensemble of circular discrepancies
#
# Draw L frequencies and average η²(ω): by Claim 6 the average converges to the exact
# biased MMD². Algorithm 1 of the paper (amplitudes and phases) and Algorithm 2 (random
# Fourier features) compute the same number.

# %%
W = kernel.sample_frequencies(4096, 2, rng=1)
eta2 = K.circular_ensemble(X, Y, W, kernel=kernel)
alg1 = K.mmd2_fastmmd(X, Y, kernel, frequencies=W, algorithm="amplitude")
alg2 = K.mmd2_fastmmd(X, Y, kernel, frequencies=W, algorithm="features")
print(f"ensemble mean η² = {eta2.mean():.6f}")
print(f"Alg. 1           = {alg1:.6f}")
print(f"Alg. 2           = {alg2:.6f}   |Alg.1 - Alg.2| < 1e-12: {abs(alg1 - alg2) < 1e-12}")
print(f"exact            = {exact_b:.6f}")

# %% tags=["check", "remove-cell"]
assert np.isclose(alg1, alg2, rtol=1e-10) and np.isclose(eta2.mean(), alg1, rtol=1e-10)
assert np.isclose(alg1, 0.00410126767, rtol=1e-6)
# L = 4096 frequencies: the ensemble is within a few per cent of the exact MMD².
assert abs(alg1 - exact_b) / exact_b < 0.05

# %% tags=["plot"]
ensemble = viz.ensemble_plot(running_mean(eta2), exact_biased=exact_b, exact_unbiased=exact_u,
                             linear=K.mmd2_linear(X, Y, kernel), block=K.mmd2_block(X, Y, kernel))
ensemble

# %% tags=["check", "remove-cell"]
running = ensemble.traverse(lambda e: e, [hv.Curve])[0].dimension_values("MMD²")
assert running.size == 4096 and np.isclose(running[-1], alg1, rtol=1e-10)

# %% [markdown]
# ## 4. Accuracy versus L (a small Fig. 5)
#
# Relative error of MMD (as plotted in the paper) for FastMMD-Fourier and
# FastMMD-Fastfood, averaged over 10 draws of the frequencies.

# %%
exact = np.sqrt(exact_b)
rows = []
for L in (16, 64, 256, 1024, 4096):
    for method in ("fourier", "fastfood"):
        est = [K.mmd2_fastmmd(X, Y, kernel, n_features=L, features=method, rng=s)
               for s in range(10)]
        err = np.abs(np.sqrt(np.maximum(est, 0)) - exact) / exact
        rows.append({"L": L, "method": method, "mean relative error": err.mean()})
table = pd.DataFrame(rows).pivot(index="L", columns="method", values="mean relative error")
print(table.round(3).to_string())

# %% tags=["check", "remove-cell"]
# Mean relative errors of 10 seeded draws, to 5 significant digits (1e-5 relative) ...
expected = {"fastfood": [0.26652530, 0.13152460, 0.07593810, 0.02320320, 0.01326710],
            "fourier": [0.27646740, 0.17670960, 0.06254090, 0.02162480, 0.00958120]}
for method, errors in expected.items():
    assert np.allclose(table[method], errors, rtol=1e-5, atol=0), table[method]
# ... and the claim of the text: from L = 16 to 4096 the error falls ~ 1/√L (16× in theory).
assert (table.loc[16] / table.loc[4096] > 10).all()

# %% tags=["plot"]
curves = [hv.Curve((table.index, table[m]), "L", "mean relative error of MMD", label=m)
          for m in table.columns]
error_vs_L = hv.Overlay(curves).opts(logx=True, logy=True, **viz.theme.size(320),
                                     title="FastMMD error vs L", legend_position="top_right")
error_vs_L

# %% tags=["check", "remove-cell"]
assert [c.label for c in error_vs_L] == list(table.columns)
assert all(np.allclose(c.dimension_values(1), table[c.label]) for c in error_vs_L)

# %% [markdown]
# The error falls roughly like 1/√L, Fastfood tracking dense Fourier features
# closely.
#
# ## Play with it
# Below is the **Circular discrepancy explorer**, the same one `kmeviz serve` serves, set to
# the blob data of this notebook with L = 256 frequencies. Move the angle and |ω| of the
# frequency by hand and watch the circle, the sinusoid and the ensemble react; then lower
# L and see the ensemble's estimate of MMD wander, as in the table above. (The widgets are
# live when the notebook runs in JupyterLab; a rendered page shows a still picture.)

# %% tags=["plot"]
import panel as pn

from kmeviz.apps import CircularExplorer

pn.extension(inline=True)
explorer = CircularExplorer(n=300, n_frequencies=256)
explorer

# %% tags=["check", "remove-cell"]
# Every view of the explorer computes at this setting (an error would show as a message).
assert explorer.failures() == {} and explorer.n_frequencies == 256

# %% [markdown]
# ## Exercises
# Each `check_…` says whether your answer is right and, if not, gives a hint; it never
# shows the answer.
#
# **1.** With `X, Y = mmd_data()` (two samples of 200 points), compute the biased MMD²
# with a Gaussian kernel of bandwidth 1.

# %%
from kmeviz.exercises import BANDWIDTHS, check_best_bandwidth, check_mmd2, mmd_data

X, Y = mmd_data()
answer = None  # your biased MMD² here
check_mmd2(answer)

# %% [markdown]
# **2.** Which bandwidth of `BANDWIDTHS` = (0.1, 1, 10) gives the largest MMD² on the same
# data? Why do the other two see less?

# %%
print("candidates:", BANDWIDTHS)
answer = None  # one of them
check_best_bandwidth(answer)
