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
# - how a kernel mean embedding turns a distribution P into a point μ_P of a Hilbert space,
#   and how the maximum mean discrepancy MMD(P, Q) = ‖μ_P − μ_Q‖ compares two samples;
# - four estimators of MMD², derived from one formula, and why one can be negative;
# - the **witness function**, which shows where two samples differ;
# - what the kernel's bandwidth does, and how the usual rule of thumb fails;
# - FastMMD ([Zhao & Meng 2015](https://arxiv.org/abs/1405.2664)): MMD² as an average,
#   over random frequencies ω, of the **circular discrepancy**, and its accuracy.
#
# **What you need**: numpy, and the idea of a kernel k(x, y), a similarity of two points:
# here the Gaussian k(x, y) = exp(−‖x − y‖² / (2σ²)). Runs in a few seconds.
#
# Words in bold are defined in the [glossary](../docs/glossary.md); the works cited are in
# the [bibliography](../docs/bibliography.md).

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
# ## 1. The data
#
# The running example is the paper's 5 × 5 grid of Gaussian blobs
# ([FastMMD](https://arxiv.org/abs/1405.2664) [Sec. 4.1](https://arxiv.org/abs/1405.2664), after
# [Gretton et al. 2012](https://jmlr.org/papers/v13/gretton12a.html)). Both samples have 1000
# points, spread over the same 25 blobs with centres 10 apart. P's blobs are round; Q's blobs are
# stretched, with an eigenvalue ratio ε = 4 along a tilted axis. The means and the
# overall spread of the two samples are nearly equal: a test of means would see nothing.
# Look at the whole picture, then at one blob.

# %% tags=["plot"]
X, Y = K.blobs_two_sample(1000, epsilon=4.0, rng=0)
data = viz.plane_scatter(X, Y, ("x₁", "x₂"), ("P (round)", "Q (stretched)"))
data

# %% tags=["check", "remove-cell"]
# Checks run by the test suite (tests/test_notebooks.py); they compare values, never bytes.
# Seeded numbers quoted in the text: 1e-6 relative (round-off between CPUs and BLAS builds
# is ~1e-13, any real change is far larger). Identities: 1e-10 relative.
assert X.shape == Y.shape == (1000, 2)
assert [len(layer) for layer in data] == [1000, 1000]
# the sample means differ by less than a tenth of the blob spacing (10)
assert np.linalg.norm(X.mean(axis=0) - Y.mean(axis=0)) < 1.0

# %% [markdown]
# ## 2. A distribution as a point: the kernel mean embedding
#
# Every point x is mapped to a function, its **feature** φ(x) = k(x, ·): a bump centred
# on x. A distribution is mapped to the average bump,
#
# $$\mu_P = \mathbb{E}_{X\sim P}\, k(X,\cdot), \qquad \mu_P(t) = \mathbb{E}_{X\sim P}\,
# k(X, t),$$
#
# its **kernel mean embedding**. It lives in the reproducing kernel Hilbert space H of k
# (the **RKHS**), where the reproducing property ⟨f, k(x, ·)⟩ = f(x) gives
# ⟨f, μ_P⟩ = E_P f(X) for every f in H: the embedding knows every expectation of H's
# functions. From a sample x₁, …, x_n one estimates it by the average of the n bumps,
#
# $$\hat\mu_P(t) = \frac1n \sum_{i=1}^n k(x_i, t).$$
#
# A **characteristic** kernel (the Gaussian is one) loses nothing: μ_P = μ_Q only if
# P = Q. So the distance between two embeddings is a distance between distributions.

# %% [markdown]
# ## 3. MMD and its four estimators
#
# The **maximum mean discrepancy** is that distance. It is also the largest difference
# of expectations over the unit ball of H, and expanding the square with the reproducing
# property leaves only kernel values:
#
# $$\mathrm{MMD}(P,Q) = \sup_{\|f\|_H\le 1} \big(\mathbb{E}_P f - \mathbb{E}_Q f\big)
# = \|\mu_P-\mu_Q\|_H,$$
#
# $$\mathrm{MMD}^2 = \langle \mu_P-\mu_Q, \mu_P-\mu_Q\rangle
# = \mathbb{E}\,k(X,X') - 2\,\mathbb{E}\,k(X,Y) + \mathbb{E}\,k(Y,Y'),$$
#
# with X, X′ ~ P and Y, Y′ ~ Q independent. Each expectation can be estimated from the
# samples in several ways, and each way is an estimator of MMD².

# %% [markdown]
# - **Biased** (a **V-statistic**): plug in the empirical embeddings, ‖μ̂_P − μ̂_Q‖²:
#
# $$\widehat{\mathrm{MMD}}^2_b = \frac1{n_X^2}\sum_{i,j} k(x_i,x_j)
# - \frac2{n_X n_Y}\sum_{i,j} k(x_i,y_j) + \frac1{n_Y^2}\sum_{i,j} k(y_i,y_j),$$
#
#   for samples of n_X and n_Y points.
#
#   The sums include i = j, the terms k(x, x) = 1 that compare a point with itself.
# - **Unbiased** (a **U-statistic**): drop those terms and divide by n_X(n_X − 1) and
#   n_Y(n_Y − 1) instead. Its expectation is exactly MMD²; it can be negative.
# - **Linear-time**: split the samples into n/2 disjoint pairs and average
#   h = k(x, x′) + k(y, y′) − k(x, y′) − k(x′, y) over the pairs. Each h uses 4 kernel
#   values, so the cost is 2n evaluations instead of n², and the variance is much larger.
# - **B-test**: the unbiased estimate within blocks of B points, averaged over blocks
#   ([Zaremba et al. 2013](https://arxiv.org/abs/1307.1954)): between the two in cost
#   and in variance.
#
# The exact sums need all n² kernel values; kmeviz sums them in tiles so that memory
# stays O(n).

# %%
kernel = K.GaussianKernel(bandwidth=1.0)
exact_b = K.mmd2(X, Y, kernel)
exact_u = K.mmd2(X, Y, kernel, estimator="unbiased")
linear = K.mmd2_linear(X, Y, kernel)
h = (kernel.paired(X[0::2], X[1::2]) + kernel.paired(Y[0::2], Y[1::2])
     - kernel.paired(X[0::2], Y[1::2]) - kernel.paired(X[1::2], Y[0::2]))
print(f"biased MMD²   = {exact_b:.6f}")
print(f"unbiased MMD² = {exact_u:.6f}")
print(f"linear-time   = {linear:.6f}   (standard error {h.std(ddof=1) / np.sqrt(h.size):.4f})")
print(f"B-test        = {K.mmd2_block(X, Y, kernel):.6f}")

# %% tags=["check", "remove-cell"]
# Each estimator against its formula written out on the full (2n)² Gram matrix.
Z = np.vstack([X, Y])
a = np.r_[np.full(len(X), 1 / len(X)), np.full(len(Y), -1 / len(Y))]
assert np.isclose(exact_b, a @ kernel(Z) @ a, rtol=1e-10)  # the naive (2n)² formula
Kxx, Kyy, Kxy = kernel(X), kernel(Y), kernel(X, Y)
n_x, n_y = len(X), len(Y)
u = ((Kxx.sum() - np.trace(Kxx)) / (n_x * (n_x - 1))
     + (Kyy.sum() - np.trace(Kyy)) / (n_y * (n_y - 1)) - 2 * Kxy.mean())
assert np.isclose(exact_u, u, rtol=1e-10)
assert np.isclose(linear, h.mean(), rtol=1e-10)
assert np.isclose(exact_b, 0.00418009634, rtol=1e-6)
assert np.isclose(exact_u, 0.00220071762, rtol=1e-6)
assert np.isclose(linear, -0.00329757401, rtol=1e-6)
assert np.isclose(h.std(ddof=1) / np.sqrt(h.size), 0.0064255, rtol=1e-4)
# the quoted distance: (0.0022 − (−0.0033)) / 0.0064 = 0.86 standard errors
assert np.isclose((exact_u - linear) / (h.std(ddof=1) / np.sqrt(h.size)), 0.8557, rtol=1e-3)
assert exact_b > exact_u  # as the text says: the diagonal k(x, x) = 1 is included
# the floor: biased − unbiased ≈ (1/n_X)(1 − mean k(x, x')) + (1/n_Y)(…) is ~2/n_X here
assert abs((exact_b - exact_u) - 2 / n_x) < 0.2 * 2 / n_x

# %% [markdown]
# Three things in these numbers deserve a word.
#
# - The biased value is larger than the unbiased one by almost exactly 2/1000: the n_X + n_Y
#   diagonal terms k(x, x) = 1 enter with weights 1/n_X² and 1/n_Y², which adds about
#   1/n_X + 1/n_Y whatever P and Q are. That floor matters when MMD² is small, as here.
# - The linear-time estimate is *negative*, −0.0033. An unbiased estimator has no floor:
#   its fluctuations go both ways. Its standard error, 0.0064, is three times the
#   unbiased MMD² (0.0022), so −0.0033 lies 0.86 standard errors below the value 0.0022
#   that both estimate — a typical draw. Cheap estimators pay in variance; notebook 02
#   shows what that costs a test.
# - The B-test sits between the two in variance, as in cost.

# %% [markdown]
# ### A kernel that cannot see the difference
#
# Why insist on a *characteristic* kernel? Take the linear kernel k(x, y) = xᵀy. Its
# feature is x itself, so μ_P = E X and
#
# $$\mathrm{MMD}^2_{\text{linear}}(P, Q) = \big\|\mathbb E_P X - \mathbb E_Q Y\big\|^2 :$$
#
# it compares means and nothing else. **Predict first**: the blobs of P and Q differ in shape, not
# in centre. What will a permutation test with the linear kernel conclude? (kmeviz takes any Gram
# matrix as a `PrecomputedKernel`; its points are row indices.)

# %%
Z = np.vstack([X, Y])
linear_kernel = K.PrecomputedKernel(Z @ Z.T)
rows_x, rows_y = linear_kernel.samples(np.repeat(["P", "Q"], len(X)))
blind = K.mmd_test(rows_x, rows_y, linear_kernel, n_resamples=999, rng=0)
sees = K.mmd_test(X, Y, kernel, n_resamples=999, rng=0)
print(f"linear kernel:   MMD² = ‖mean X − mean Y‖² = {blind.statistic:.4f}, "
      f"p = {blind.p_value:.3f}")
print(f"Gaussian kernel: p = {sees.p_value:.3f}")

# %% tags=["check", "remove-cell"]
assert np.isclose(blind.statistic, np.sum((X.mean(axis=0) - Y.mean(axis=0)) ** 2),
                  rtol=1e-9)
assert not blind.reject and np.isclose(blind.p_value, 0.317, atol=1e-9) and sees.reject

# %% [markdown]
# The linear kernel keeps H0 (p = 0.32): the two means differ by no more than chance
# allows, and that is all it looks at. The Gaussian kernel rejects at the smallest
# p-value 999 permutations allow. A non-characteristic kernel is not wrong, it answers a
# narrower question; make sure it is the question you mean.

# %% [markdown]
# ## 4. The witness function: where the samples differ
#
# The supremum in the definition of MMD is attained. The function that attains it is the
# **witness**: the difference of the two embeddings, normalised,
#
# $$f^* = \frac{\mu_P-\mu_Q}{\|\mu_P-\mu_Q\|_H}, \qquad
# \hat f(t) = \hat\mu_P(t) - \hat\mu_Q(t)
# = \frac1{n_X}\sum_i k(x_i,t) - \frac1{n_Y}\sum_j k(y_j,t).$$
#
# It is positive where P puts more mass than Q (as seen through a bump of width σ),
# negative where Q does. Averaging it over the samples gives back the biased estimate:
# (1/n_X) Σ f̂(x_i) − (1/n_Y) Σ f̂(y_j) = ‖μ̂_P − μ̂_Q‖² = MMD²_b. `K.mmd_witness` evaluates
# f̂ at any points.
#
# **Predict first.** In one blob, P is round and Q is stretched along a tilted axis. Where
# do you expect the witness to be positive, and where negative? Decide before you run the
# next cell.

# %% tags=["plot"]
blob_witness = viz.witness_window(X, Y, kernel, centre=(0, 0), half_width=4,
                                  title="Witness μ̂_P − μ̂_Q on the blob at the origin")
blob_witness

# %% tags=["check", "remove-cell"]
# The plotted values against a direct evaluation of the formula at the plotted points,
# and the witness's identity with MMD²_b: (1/n_X) Σ f̂(x_i) − (1/n_Y) Σ f̂(y_j) = MMD²_b.
image = blob_witness.traverse(lambda e: e, [hv.Image])[0]
at = np.column_stack([image.dimension_values(0), image.dimension_values(1)])
shown = image.dimension_values("witness")
assert np.allclose(shown, kernel(at, X).mean(axis=1) - kernel(at, Y).mean(axis=1),
                   rtol=1e-10, atol=1e-14)
assert np.isclose(K.mmd_witness(X, Y, kernel, X).mean() - K.mmd_witness(X, Y, kernel, Y).mean(),
                  exact_b, rtol=1e-10)
# as the text says: positive at the blob's centre, negative somewhere along Q's long axis
assert K.mmd_witness(X, Y, kernel, np.zeros((1, 2)))[0] > 0
assert shown.min() < -0.2 * shown.max()

# %% [markdown]
# Red is positive: P's round blob has more mass at the centre, so the witness peaks
# there. Blue is negative: Q's stretched blob puts its mass further out along its long
# axis, in two lobes on either side. A statistician reading this map learns *how* the
# samples differ, not only *that* they do. The test of notebook 02 rejects because
# this pattern, repeated in each of the 25 blobs, is larger than chance could make it.

# %% [markdown]
# ## 5. What the bandwidth does
#
# **Predict first.** The unbiased MMD² depends on σ. What happens to it when σ is far
# smaller than the distances between points (every bump sees only its own point)? And
# when σ is far larger than the whole picture (every bump is flat over the data)? Where
# in between should it be largest for these blobs? Write your guesses down, then run.

# %%
sigmas = np.geomspace(0.05, 50, 13)
sweep = pd.DataFrame({"σ": sigmas, "unbiased MMD²": [
    K.mmd2(X, Y, K.GaussianKernel(s), estimator="unbiased") for s in sigmas]})
median = K.median_heuristic(X, Y)
best = sweep.loc[sweep["unbiased MMD²"].idxmax()]
print(f"largest at σ = {best['σ']:.2f}; the median heuristic gives σ = {median:.1f}")

# %% tags=["plot"]
bandwidth_sweep = (hv.Curve(sweep, "σ", "unbiased MMD²").opts(logx=True, color="black")
                   * hv.VLine(median).opts(color="firebrick", line_dash="dashed")).opts(
    title="Unbiased MMD² vs bandwidth σ", **viz.theme.size(320))
bandwidth_sweep

# %% tags=["check", "remove-cell"]
assert np.isclose(best["σ"], 1.5811, rtol=1e-3)
assert np.isclose(median, 24.126, rtol=1e-4)
values = sweep["unbiased MMD²"].to_numpy()
assert values[0] < 0.01 * values.max() and values[-1] < 0.05 * values.max()

# %% [markdown]
# Both ends go to zero. With a tiny σ, k(x, y) ≈ 0 for every pair of distinct points, so
# the off-diagonal sums vanish and nothing is left to compare (the biased estimate keeps
# its floor 1/n_X + 1/n_Y). With a huge σ, every k(x, y) ≈ 1 and the two samples look alike.
# The curve peaks near σ ≈ 1.6, the scale of one blob, where the kernel resolves a blob's
# shape.
#
# The **median heuristic** — σ = the median distance between pooled points, the most
# common default — gives σ ≈ 24 here (the dashed line). How much does it lose?

# %%
at_median = K.mmd2(X, Y, K.GaussianKernel(median), estimator="unbiased")
print(f"unbiased MMD² at the median heuristic: {at_median:.5f} "
      f"({at_median / best['unbiased MMD²']:.0%} of the peak)")

# %% tags=["check", "remove-cell"]
# the printed share: 13 % of the peak (seeded; 1e-3 relative)
assert np.isclose(at_median / best["unbiased MMD²"], 0.12898, rtol=1e-3)

# %% [markdown]
# The median measures the distances *between* blobs, 10 to 40 apart, where the kernel
# sees only that both samples cover the same 25 blobs. It fails whenever the difference
# lives at a scale much smaller than the data's spread.
#
# Do not fix this by picking the σ with the largest MMD² on the very data you then test:
# the test would no longer hold its level (choosing σ is part of the statistic). Two
# remedies keep the level. Aggregate over a collection of bandwidths with a corrected
# level (MMDAgg, notebook 09). Or split the data: choose σ on one part and test on the
# other. There, the criterion is not the largest MMD² either, which ignores how noisy
# the estimate is, but MMD² divided by its standard deviation under H1, the criterion
# that maximises the test's asymptotic power (Sutherland et al. 2017; Liu et al. 2020).
# Notebook 12 learns σ that way, with MMD-FUSE as the alternative that needs no split.

# %% [markdown]
# ## 6. The circular picture
#
# Back to σ = 1. Bochner's theorem writes a shift-invariant kernel as an average of
# cosines: for the Gaussian, k(x, y) = E_ω cos(ω′(x − y)) with ω ~ 𝒩(0, σ⁻² I). Put it in
# the biased estimator. With weights aᵢ = 1/n_X on the points of X and −1/n_Y on those of Y,
# and z_i their projections ω′x_i,
#
# $$\widehat{\mathrm{MMD}}^2_b = \sum_{i,j} a_i a_j\, \mathbb{E}_\omega
# \cos\big(\omega'(x_i-x_j)\big) = \mathbb{E}_\omega \Big|\sum_i a_i e^{\mathrm{i} z_i}
# \Big|^2 = \mathbb{E}_\omega\, \eta^2(\omega).$$
#
# η(ω) is the modulus of the difference of the two samples' empirical characteristic
# functions at ω. The picture: project each point on ω and wrap z_i mod 2π. Each sample
# becomes a cloud of points on the unit circle. The function y ↦ Σᵢ aᵢ sin(y − zᵢ) is the
# imaginary part of e^{iy} Σ aᵢ e^{−i zᵢ}, a single sinusoid; its **amplitude** is η(ω),
# the circular discrepancy ([Claim 5](https://arxiv.org/abs/1405.2664)), and the diameter
# where it peaks separates the samples best.

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
# ## 7. FastMMD: an ensemble of circular discrepancies
#
# Draw L frequencies and average η²(ω): by the formula above ([Claim
# 6](https://arxiv.org/abs/1405.2664)) the average converges to the exact biased MMD² as
# L grows, at cost O(L n d) instead of O(n² d). Algorithm 1 of the paper (amplitudes and
# phases) and Algorithm 2 (random Fourier features: cos and sin of each zᵢ, averaged per
# sample) compute the same number, because |Σ aᵢ e^{i zᵢ}|² = (Σ aᵢ cos zᵢ)² + (Σ aᵢ sin
# zᵢ)².

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
# ## 8. Accuracy versus L (a small [Fig. 5](https://arxiv.org/abs/1405.2664))
#
# The running mean above wanders, then settles. How fast? Each η²(ω) is one independent
# draw, so the average of L of them has a standard deviation ∝ 1/√L, and so does the
# relative error of MMD.
#
# **Predict first.** At L = 16 the mean relative error of MMD is about 27 %. About how
# many frequencies do you need to bring it to 1 %? Write a number, then run the table:
# relative error of MMD (as plotted in the paper) for FastMMD-Fourier and
# FastMMD-Fastfood (Fastfood draws its frequencies in structured blocks, which makes
# them cheaper to apply in high dimension), averaged over 10 draws of the frequencies.

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
drop = table.loc[16] / table.loc[4096]  # the falls quoted below: 29× and 20×
assert np.isclose(drop["fourier"], 28.86, rtol=1e-3)
assert np.isclose(drop["fastfood"], 20.09, rtol=1e-3)

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
# From L = 16 to 4096 is 256 times more frequencies, and a 1/√L law would cut the error
# 16 times. The table does better: Fourier features fall 29 times (27.6 % to 0.96 %),
# Fastfood 20 times (26.7 % to 1.3 %). Means of 10 draws at five values of L do not pin
# the rate down; what they show is its order: a 1 % error takes thousands of frequencies,
# not tens — the price of a Monte Carlo average. Fastfood tracks dense Fourier features
# closely, at L log d cost instead of L d.
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
# shows the answer. When you are right it also says *why*. Worked answers are on the
# course's [Solutions page](../docs/course/solutions.md).
#
# **1.** With `X, Y = mmd_data()` (two samples of 200 points: 𝒩(0, I₂) and 𝒩((0.5, 0),
# I₂)), compute the biased MMD² with a Gaussian kernel of bandwidth 1.

# %% tags=["exercise"]
from kmeviz.exercises import (
    check_mmd2,
    check_narrow_kernel_floor,
    check_witness_at_origin,
    mmd_data,
)

X, Y = mmd_data()
answer = None  # your biased MMD² here
check_mmd2(answer)

# %% [markdown]
# **2. Predict, then check.** Take σ = 0.1 on the same data: far below the typical
# distance between two points, so k(x_i, x_j) ≈ 0 for every pair of *distinct* points.
# Without running anything, use the biased formula of §3 to predict the biased MMD² as a
# number (it depends only on n_X = n_Y = 200). Then compute it, and also for two samples of
# the *same* law. What does that tell you about ranking bandwidths by the raw biased
# value?

# %% tags=["exercise"]
answer = None  # your predicted biased MMD² at σ = 0.1
check_narrow_kernel_floor(answer)

# %% [markdown]
# **3. Predict, then check.** X is centred at the origin and Y at (0.5, 0). Predict the
# sign of the witness f̂ = μ̂_X − μ̂_Y (σ = 1) at the origin, and at (3, 0). Then compute
# f̂ at the origin with `K.mmd_witness(X, Y, K.GaussianKernel(1.0), np.zeros((1, 2)))`.

# %% tags=["exercise"]
answer = None  # the witness at the origin (one number)
check_witness_at_origin(answer)


# %% [markdown]
# **4. Implement.** Write the biased MMD² from the three Gram matrices
# Kxx = [k(xᵢ, xⱼ)], Kyy and Kxy (section 3's formula, with means). The checker runs your
# function on two pairs of samples and compares it with `K.mmd2`.

# %% tags=["exercise"]
from kmeviz.exercises import check_mmd2_from_grams


def answer(Kxx, Kyy, Kxy):
    """The biased MMD² from the three Gram matrices."""
    return None  # your code


check_mmd2_from_grams(answer)

# %% [markdown]
# ## Problems
# Derivations to do on paper, one step at a time; the instructor edition of the course has the
# worked solutions.
#
# **P1. The biased estimate's floor.** Write $\mathrm{MMD}^2(P, Q) = \|\mu_P - \mu_Q\|^2$ as
# $\mathbb{E}\,k(X, X') + \mathbb{E}\,k(Y, Y') - 2\,\mathbb{E}\,k(X, Y)$ and show that the biased
# estimate of §3, from samples of $n_X$ and $n_Y$ points, has expectation
#
# $$
# \mathbb{E}\,\widehat{\mathrm{MMD}}{}^2_b = \mathrm{MMD}^2 + \frac{\mathbb{E}\,k(X, X) -
# \mathbb{E}\,k(X, X')}{n_X} + \frac{\mathbb{E}\,k(Y, Y) - \mathbb{E}\,k(Y, Y')}{n_Y}.
# $$
#
# What does it tend to for a Gaussian kernel whose bandwidth tends to 0, whatever $P$ and $Q$?
#
# **P2. MMD as an average of circular discrepancies.** Using Bochner's theorem, $k(x, y) = \int
# e^{i\omega^\top (x - y)}\,d\Lambda(\omega)$ with $\Lambda = \mathcal{N}(0, \sigma^{-2} I)$ for
# the Gaussian kernel, show $\mathrm{MMD}^2 = \int |\varphi_P(\omega) -
# \varphi_Q(\omega)|^2\,d\Lambda(\omega)$, with $\varphi$ the characteristic function, and read
# $|\varphi_P(\omega) - \varphi_Q(\omega)|$ as a distance between two points of the plane built
# from the samples wrapped on the unit circle (§6).

# %% [markdown] tags=["solution"]
# ### Solutions (instructor edition)
# **P1.** By the reproducing property $\langle \mu_P, \mu_Q \rangle = \mathbb{E}\,k(X, Y)$, so
# expanding the square gives the three terms. Of the $n_X^2$ terms of $\frac{1}{n_X^2}\sum_{i,j}
# k(x_i, x_j)$, $n_X$ lie on the diagonal, each with mean $\mathbb{E}\,k(X, X)$, and $n_X(n_X-1)$
# off it, each with mean $\mathbb{E}\,k(X, X')$; so its expectation is $\mathbb{E}\,k(X, X') +
# (\mathbb{E}\,k(X, X) - \mathbb{E}\,k(X, X'))/n_X$. The same holds for $Y$, and the cross term
# is unbiased. For a Gaussian kernel $k(x, x) = 1$ and $\mathbb{E}\,k(X, X') \to 0$ as the
# bandwidth tends to 0, so the expectation tends to $1/n_X + 1/n_Y$ whatever $P$ and $Q$: the
# floor of exercise 2.
#
# **P2.** $\mathbb{E}\,k(X, Y) = \int \mathbb{E}\,e^{i\omega^\top
# X}\,\overline{\mathbb{E}\,e^{i\omega^\top Y}}\,d\Lambda = \int \varphi_P
# \overline{\varphi_Q}\,d\Lambda$ (Fubini; the integrand is bounded). The three terms combine to
# $\int (|\varphi_P|^2 + |\varphi_Q|^2 - 2\,\mathrm{Re}\,\varphi_P\overline{\varphi_Q})\,d\Lambda
# = \int |\varphi_P - \varphi_Q|^2\,d\Lambda$. For one $\omega$, $e^{i\omega^\top x} = (\cos
# \omega^\top x, \sin \omega^\top x)$ is the projection $\omega^\top x$ wrapped on the unit
# circle, and $\varphi_P(\omega)$ the mean of the wrapped points: $|\varphi_P(\omega) -
# \varphi_Q(\omega)|^2$ is the squared distance between the two samples' means on the circle, the
# circular discrepancy. Averaging it over $L$ draws $\omega_\ell \sim \Lambda$ is FastMMD's
# estimate (Zhao & Meng, Alg. 1).
