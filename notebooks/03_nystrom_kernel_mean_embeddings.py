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
# # Nyström kernel mean embeddings
#
# **What you will learn**
# - the Nyström estimator μ̂_m = P_m μ̂: project the empirical embedding onto the span of m
#   random landmarks, with weights α = (1/n) K_m⁺ K_mn 1_n
#   ([Eq. (5)](https://arxiv.org/abs/2201.13055) of Chatalic et al. 2022);
# - how to measure its error *exactly* on a Gaussian mixture, whose embedding has a closed
#   form ([App. G](https://arxiv.org/abs/2201.13055));
# - that m ≈ √n log √n landmarks already give the error of the full empirical embedding
#   ([Fig. 1](https://arxiv.org/abs/2201.13055)), while uniform weights on the same landmarks do
#   much worse.
#
# **What you need**: notebook 01 (kernel mean embeddings, MMD). Runs in well under a minute.
#
# Terms are defined in the [glossary](../docs/glossary.md); the works cited are in the
# [bibliography](../docs/bibliography.md).

# %%
import holoviews as hv
import numpy as np
import pandas as pd

import kmeviz as K
from kmeviz import viz
from kmeviz.experiments import nystrom_error_vs_m, paper_mixture

hv.extension("bokeh", logo=False, inline=True)  # BokehJS inline: works offline

# %% [markdown]
# ## 1. A distribution whose embedding we know
#
# The paper's mixture: 8 unit-variance Gaussians in d = 10 with centres drawn from
# 𝒩(0, 5 I); Gaussian kernel with the median inter-point distance as bandwidth. For it,
# μ(z) and ||μ||² are closed forms, so the error ||μ − Σ αⱼ φ(xⱼ)|| of *any* weighted
# point set is exact — no Monte Carlo.

# %%
rng = np.random.default_rng(0)
mixture = paper_mixture(d=10, rng=rng)
kernel = K.GaussianKernel(K.median_heuristic(mixture.sample(1000, rng=rng), rng=rng))
X = mixture.sample(5000, rng=rng)
print(f"bandwidth = {kernel.bandwidth:.4f}")
print(f"||mu||^2  = {mixture.squared_norm(kernel):.6f}")
print(f"empirical error, n = 5000: {mixture.error_of(K.EmpiricalKME(kernel).fit(X)):.5f}")

# %% tags=["check", "remove-cell"]
# Checks run by the test suite (tests/test_notebooks.py); they compare values, never bytes.
# Seeded numbers: 1e-6 relative (round-off between CPUs is ~1e-13, a real change is larger).
assert np.isclose(kernel.bandwidth, 10.3313809823, rtol=1e-6)
assert np.isclose(mixture.squared_norm(kernel), 0.627732356134, rtol=1e-6)
empirical_error = mixture.error_of(K.EmpiricalKME(kernel).fit(X))
assert np.isclose(empirical_error, 0.00937645354279, rtol=1e-6)
# Independent check of the App. G closed form: ||μ||² = E k(X, X') by Monte Carlo over
# 20 000 independent pairs (standard error < 0.003, tolerance 0.015 = 5 standard errors).
P, Q = mixture.sample(20_000, rng=100), mixture.sample(20_000, rng=101)
pairs = np.exp(-np.sum((P - Q) ** 2, axis=1) / (2 * kernel.bandwidth**2))
assert abs(pairs.mean() - mixture.squared_norm(kernel)) < 0.015
# And E ||μ̂ − μ||² = (1 − ||μ||²)/n for the empirical embedding: one draw within a factor 2.
assert 0.5 < empirical_error**2 / ((1 - mixture.squared_norm(kernel)) / 5000) < 2

# %% [markdown]
# ## 2. Nyström vs uniform subsampling
#
# **The estimator, derived.** Draw m landmarks x̃₁, …, x̃_m from the sample and let H_m be
# the span of their features k(x̃ⱼ, ·). The element of H_m closest to the empirical
# embedding μ̂ = (1/n) Σᵢ k(xᵢ, ·) is its orthogonal projection P_m μ̂ = Σⱼ αⱼ k(x̃ⱼ, ·).
# By the reproducing property the squared distance is a quadratic in the weights,
#
# $$\Big\|\sum_j \alpha_j k(\tilde x_j,\cdot) - \hat\mu\Big\|^2
# = \alpha^\top K_{mm}\,\alpha - \tfrac{2}{n}\,\alpha^\top K_{mn}\mathbf 1_n
# + \tfrac{1}{n^2}\,\mathbf 1_n^\top K_{nn}\mathbf 1_n ,$$
#
# and setting its gradient to zero gives K_mm α = (1/n) K_mn 1_n, hence
# α = (1/n) K_mm⁺ K_mn 1_n ([Eq. (5)](https://arxiv.org/abs/2201.13055)). The
# pseudo-inverse covers a singular K_mm (a landmark drawn twice, or two almost equal);
# every solution gives the same projection. The cost is the n × m matrix K_mn, O(nm)
# kernel values, plus O(m³) for the solve, and evaluating μ̂_m at a point costs m kernel
# values instead of n.
#
# The **uniform subsample** keeps the same m landmarks but gives each the weight 1/m: it
# is the empirical embedding of a sample of size m, so its error is about
#
# $$\Big\|\frac1m\sum_{j=1}^m k(\tilde x_j,\cdot) - \mu\Big\| \approx
# \sqrt{\frac{1 - \|\mu\|^2}{m}}\,,
# \qquad\text{since}\quad \mathbb E\,\|k(X,\cdot) - \mu\|^2 = 1 - \|\mu\|^2
# \text{ when } k(x,x) = 1 .$$
#
# The Nyström weights are the best of all weights on these landmarks *for approximating
# μ̂*, the empirical embedding: P_m μ̂ is the point of their span closest to μ̂. The table
# measures the distance to μ, which no weights see, so that optimality does not promise a
# smaller error at every m; it does make the projection error shrink fast. **Predict
# first:** at m = 300, how close to the n = 5000 empirical error (0.0094) does each come?

# %%
rows = []
for m in (10, 30, 100, 300):
    ny = K.NystromKME(kernel, m, rng=1).fit(X)
    sub = K.UniformSubsampleKME(kernel, m, rng=1).fit(X)
    rows.append({"m": m, "Nyström": mixture.error_of(ny), "uniform": mixture.error_of(sub),
                 "sum of α": ny.weights_.sum()})
print(pd.DataFrame(rows).round(5).to_string(index=False))
print(f"\n√n log √n = {np.sqrt(5000) * np.log(np.sqrt(5000)):.0f}")

# %% tags=["check", "remove-cell"]
table = pd.DataFrame(rows).set_index("m")
assert np.allclose(table["Nyström"], [0.149018402796, 0.0300210240136, 0.0114678155320,
                                      0.00947241256915], rtol=1e-6)
assert (table["Nyström"] < table["uniform"]).all()  # optimal weights beat 1/m
assert np.all(np.diff(table["Nyström"]) < 0)  # more landmarks, smaller error
assert table.loc[300, "Nyström"] < 1.02 * empirical_error  # m ≈ √n log √n suffices
assert np.allclose(table["sum of α"], 1, atol=0.03)
# The numbers quoted below (seeded, 1e-3 relative) and the uniform law √((1 − ‖μ‖²)/m).
assert np.allclose(table.loc[[100, 300], "uniform"], [0.07400, 0.02737], rtol=1e-3)
assert table.loc[30, "Nyström"] > table.loc[300, "uniform"] > table.loc[100, "Nyström"]
uniform_law = np.sqrt((1 - mixture.squared_norm(kernel)) / np.array([100, 300]))
assert np.allclose(uniform_law, [0.0610, 0.0352], rtol=2e-3)
assert np.allclose(table.loc[[10, 300], "sum of α"], [0.9752, 0.9993], atol=1e-4)
weights_300 = ny.weights_  # the loop's last fit: m = 300
assert (weights_300 < -1e-12).sum() == 72  # 8 more are exactly 0 (|α| ≥ 2e-5 otherwise)

# %% [markdown]
# **Reading the table.** The uniform column follows its law: √((1 − ‖μ‖²)/m) is 0.061 at
# m = 100 and 0.035 at m = 300, and these draws give 0.074 and 0.027. The Nyström column
# falls much faster: at m = 100 (0.0115) it is already better than the uniform subsample
# at m = 300 (0.0274; at m = 30 it is 0.0300, just above), and at m = 300 it is within
# 1 % of the empirical error. It cannot go much
# lower, because it approximates μ̂, not μ. The triangle inequality splits its error in two,
#
# $$\|P_m\hat\mu - \mu\| \;\le\; \underbrace{\|\hat\mu - \mu\|}_{\text{statistical},
# \;\sim 1/\sqrt n} \;+\; \underbrace{\|P_m\hat\mu - \hat\mu\|}_{\text{projection}} ,$$
#
# a statistical part that no choice of landmarks removes, and a projection part that
# shrinks as the landmarks come to span the directions in which μ̂ has mass. A Gaussian
# kernel has few such directions (notebook 04 counts them), so a few hundred landmarks
# suffice.
#
# The weights sum to 0.975 at m = 10 and to 0.999 at m = 300. Nothing forces them to sum
# to 1, or even to be positive (72 of the 300 are negative): a projection is a
# least-squares fit in the RKHS, not a probability vector. As m grows, P_m μ̂ tends to
# μ̂, whose weights sum to 1.

# %% [markdown]
# ## 3. Error vs m (a small [Fig. 1](https://arxiv.org/abs/2201.13055))
#
# Mean and 5–95% band over a few trials, for n = 1000 and n = 4000. The dotted line is
# √n log √n: by then the Nyström error sits on the empirical one.

# %%
ms = (4, 8, 16, 32, 64, 128, 256, 512)
df = nystrom_error_vs_m(ns=(1000, 4000), ms=ms, n_repeats=3, mixture=mixture,
                        bandwidth=kernel.bandwidth, rng=2)
at = df[(df.estimator != "uniform") & df.m.isin([128, 256, 1000, 4000])]
print(at[["n", "estimator", "m", "mean_error", "p05", "p95"]].round(5).to_string(index=False))

# %% tags=["check", "remove-cell"]
# Fig. 1: at m = 256 ≈ √n log √n the Nyström error is within 5% of the empirical one.
mean_error = at.set_index(["n", "estimator", "m"]).mean_error
for n_, m_empirical in ((1000, 1000), (4000, 4000)):
    assert mean_error[n_, "nystrom", 256] < 1.05 * mean_error[n_, "empirical", m_empirical]
assert np.isclose(mean_error[4000, "nystrom", 256], 0.0105874559854, rtol=1e-6)

# %% tags=["plot"]
n = 4000
fig1 = viz.error_vs_m_plot(df[df.n == n], marker=np.sqrt(n) * np.log(np.sqrt(n)))
fig1

# %% [markdown]
# **Reading the plot.** The uniform curve falls like 1/√m, a straight line of slope −½
# on these log–log axes, all the way to m = n. The Nyström curve falls much faster at
# first, because each new landmark adds a direction in which μ̂ has mass. It then bends
# onto the flat line of the empirical error near the dotted marker, m = √n log √n ≈ 262
# for n = 4000. Past that point more landmarks buy nothing: what remains is the error of
# μ̂ itself, which only more data can reduce. Read as a rule, the marker says that m may
# grow like √n, so the cost O(nm) grows like n^{3/2} log n instead of the n² of methods
# that touch every pair.

# %% tags=["check", "remove-cell"]
assert np.isclose(np.sqrt(4000) * np.log(np.sqrt(4000)), 262.28, rtol=1e-4)
curves = {c.label: c for c in fig1.traverse(lambda e: e, [hv.Curve])}
nystrom_rows = df[(df.n == n) & (df.estimator == "nystrom")].sort_values("m")
assert {"nystrom", "empirical", "uniform"} <= set(curves)
assert np.allclose(curves["nystrom"].dimension_values("error"), nystrom_rows.mean_error)

# %% [markdown]
# ## 4. What the Nyström embedding looks like
#
# In two dimensions we can draw μ̂_m(z) = Σ αⱼ k(x̃ⱼ, z) next to the true μ(z). The
# landmarks are sized by |αⱼ|.

# %% tags=["plot"]
mix2 = paper_mixture(d=2, n_centres=5, spread=5.0, rng=np.random.default_rng(3))
k2 = K.GaussianKernel(1.5)
X2 = mix2.sample(3000, rng=4)
ny2 = K.NystromKME(k2, 80, rng=5).fit(X2)
xs = np.linspace(X2[:, 0].min() - 1, X2[:, 0].max() + 1, 60)
ys = np.linspace(X2[:, 1].min() - 1, X2[:, 1].max() + 1, 60)
gx, gy = np.meshgrid(xs, ys)
Z = np.column_stack([gx.ravel(), gy.ravel()])
left = viz.embedding_map(xs, ys, ny2.evaluate(Z).reshape(60, 60), title="Nyström, m = 80",
                         points=ny2.landmarks_, sizes=np.abs(ny2.weights_))
right = viz.embedding_map(xs, ys, mix2.embedding(Z, k2).reshape(60, 60), title="true μ")
print(f"error with m = 80: {mix2.error_of(ny2):.4f};"
      f" empirical: {mix2.error_of(K.EmpiricalKME(k2).fit(X2)):.4f}")
maps = left + right
maps

# %% tags=["check", "remove-cell"]
# Both maps show 60 × 60 values; the Nyström map is the true μ up to a few per cent.
nystrom_map, true_map = (m.traverse(lambda e: e, [hv.Image])[0] for m in maps)
values = [img.dimension_values(2, flat=False) for img in (nystrom_map, true_map)]
assert values[0].shape == values[1].shape == (60, 60)
assert np.allclose(values[1], mix2.embedding(Z, k2).reshape(60, 60), rtol=1e-12)
assert np.abs(values[0] - values[1]).max() < 0.05 * values[1].max()
assert np.isclose(mix2.error_of(ny2), 0.0156385517545, rtol=1e-6)
assert np.isclose(mix2.error_of(K.EmpiricalKME(k2).fit(X2)), 0.01202, rtol=1e-3)
assert ny2.weights_.min() < -5 and ny2.weights_.max() > 2.9

# %% [markdown]
# The two maps agree to a few per cent, although the left one is a sum of 80 bumps and the right
# one an integral over the whole mixture. The error, 0.016, is close to the empirical embedding's
# 0.012 with all 3000 points. Look at the sizes: the weights are far from 1/80. They range from
# −5.1 to 2.9, and each of the eight landmarks whose weight exceeds 1 in size has a nearest
# neighbour of the opposite sign (the cell below lists them): the two nearly cancel. That is the
# least-squares fit at work with a wide kernel (σ = 1.5): two close landmarks have almost the same
# feature, so the fit can trade weight between them at little cost. Individual weights mean little;
# only the function they add up to does.

# %%
# The landmarks with |α| > 1, each with its nearest landmark's weight and distance
gaps = np.linalg.norm(ny2.landmarks_[:, None] - ny2.landmarks_[None], axis=-1)
np.fill_diagonal(gaps, np.inf)
for j in np.flatnonzero(np.abs(ny2.weights_) > 1):
    near = gaps[j].argmin()
    print(f"α = {ny2.weights_[j]:+.2f}   nearest: α = {ny2.weights_[near]:+.2f}"
          f" at distance {gaps[j, near]:.2f}")

# %% tags=["check", "remove-cell"]
# The text: the nearest landmark of each landmark with |α| > 1 has the opposite sign
# (8 of 8 here).
large = np.abs(ny2.weights_) > 1
nearest_sign = np.sign(ny2.weights_[gaps.argmin(axis=1)])
assert large.sum() == 8 and (nearest_sign[large] != np.sign(ny2.weights_[large])).all()

# %% [markdown]
# ## 5. Two Nyström MMDs
#
# Landmarks give the MMD between two samples A and B at O(nm) cost, in two different
# ways that are easy to confuse.
#
# - The **Nyström-embedding MMD** ([Chatalic et al.](https://arxiv.org/abs/2201.13055)
#   [Sec. 5](https://arxiv.org/abs/2201.13055), `K.mmd2_nystrom`): fit each sample's Nyström
#   embedding on *its own* m landmarks and take ‖P₁μ̂_A − P₂μ̂_B‖. By the triangle inequality its
#   error is at most the sum of the two projection errors ‖P₁μ̂_A − μ̂_A‖ + ‖P₂μ̂_B − μ̂_B‖, which
#   [Thm 5.1](https://arxiv.org/abs/2201.13055) bounds. It can be too large *or* too small:
#
# $$\Big|\,\|P_1\hat\mu_A - P_2\hat\mu_B\| - \|\hat\mu_A - \hat\mu_B\|\,\Big|
# \le \|P_1\hat\mu_A - \hat\mu_A\| + \|P_2\hat\mu_B - \hat\mu_B\|.$$
#
# - The **pooled-landmark Nyström MMD** (`K.mmd_test(estimator="pooled-nystrom")`,
#   the scaled-out test of notebook 07): draw one set of landmarks from A ∪ B and project
#   both samples on it. A projection never lengthens a vector, so ‖P(μ̂_A − μ̂_B)‖ is at
#   most the exact MMD.
#
# A projection error is a distance between two embeddings, so it needs only kernel values:
# for P μ̂ = Σ_j α_j k(z_j, ·) and μ̂ = (1/n) Σ_i k(x_i, ·),
#
# $$\|P\hat\mu - \hat\mu\|^2 = \alpha^\top K_{zz}\,\alpha
# - \tfrac{2}{n}\,\alpha^\top K_{zx} \mathbf 1 + \tfrac{1}{n^2}\,\mathbf 1^\top K_{xx} \mathbf 1.$$
#
# **Predict first.** At m = 30, will each estimate be above or below the exact MMD?

# %%
A, B = mix2.sample(3000, rng=6), mix2.sample(3000, rng=7) + np.array([0.5, 0.0])
exact_mmd = np.sqrt(K.mmd2(A, B, k2))


def projection_error(embedding, S):
    """‖Pμ̂ − μ̂‖ of a fitted Nyström embedding of the sample S (the formula above)."""
    z, alpha = embedding.landmarks_, embedding.weights_
    sq = alpha @ k2(z) @ alpha - 2 * alpha @ k2(z, S).mean(axis=1) + k2(S).mean()
    return np.sqrt(max(sq, 0.0))


rows = []
for m in (30, 100, 300):
    rng = np.random.default_rng(0)  # as mmd2_nystrom(..., rng=0) draws them: A's, then B's
    ny_a, ny_b = K.NystromKME(k2, m, rng=rng).fit(A), K.NystromKME(k2, m, rng=rng).fit(B)
    pooled = K.mmd_test(A, B, k2, estimator="pooled-nystrom", n_landmarks=m, n_resamples=9,
                        rng=0)
    rows.append({"m": m, "exact": exact_mmd,
                 "Nyström-embedding": np.sqrt(K.mmd2_nystrom(A, B, k2, n_landmarks=m, rng=0)),
                 "pooled-landmark": np.sqrt(pooled.statistic),
                 "‖P₁μ̂_A − μ̂_A‖": projection_error(ny_a, A),
                 "‖P₂μ̂_B − μ̂_B‖": projection_error(ny_b, B)})
two_mmds = pd.DataFrame(rows).set_index("m")
print(two_mmds.round(5).to_string())

# %% tags=["check", "remove-cell"]
assert np.isclose(exact_mmd, 0.067371389588, rtol=1e-6)
# mmd2_nystrom is the distance of the two embeddings fitted above (same landmarks): an
# identity checked through their weights and Gram matrices, 1e-8 relative.
za, aa, zb, ab = ny_a.landmarks_, ny_a.weights_, ny_b.landmarks_, ny_b.weights_
direct = aa @ k2(za) @ aa - 2 * aa @ k2(za, zb) @ ab + ab @ k2(zb) @ ab
assert np.isclose(direct, K.mmd2_nystrom(A, B, k2, n_landmarks=300, rng=0), rtol=1e-8)
t = two_mmds
# the text's numbers (seeded, 1e-3 relative) and its two laws: the triangle inequality
# bounds the Nyström-embedding error, and the pooled projection never exceeds the exact MMD
assert np.allclose(t.loc[30, ["Nyström-embedding", "pooled-landmark", "‖P₁μ̂_A − μ̂_A‖",
                              "‖P₂μ̂_B − μ̂_B‖"]], [0.13910, 0.05951, 0.08647, 0.05302],
                   rtol=1e-3)
assert ((t["Nyström-embedding"] - t.exact).abs()
        <= t["‖P₁μ̂_A − μ̂_A‖"] + t["‖P₂μ̂_B − μ̂_B‖"] + 1e-12).all()
assert (t["pooled-landmark"] <= t.exact * (1 + 1e-9)).all()
assert (abs(t.loc[300, ["Nyström-embedding", "pooled-landmark"]] / exact_mmd - 1) < 0.01).all()

# %% [markdown]
# At m = 30 the Nyström-embedding MMD is 0.139, twice the exact 0.067. Nothing is wrong:
# the two projection errors, 0.086 and 0.053, are as large as the MMD itself, and since
# each sample has its own landmarks they point in unrelated directions and add to the
# difference instead of cancelling. The pooled-landmark value, 0.060, is below the exact
# one, as a projection must be. With m = 100 both are within 8 %, and at m = 300 — above
# √n log √n ≈ 219 for n = 3000, the landmark count of [Cor. 4.1](https://arxiv.org/abs/2201.13055)
# under a fast-decaying spectrum — both agree with the exact MMD to 4 digits. Small m does
# not give a rough MMD; it can give a *biased* one. Only the pooled-landmark estimator has
# a guaranteed sign (never above the exact MMD); the Nyström-embedding one was above it
# here, but can fall on either side.

# %% [markdown]
# ## Play with it
# The **Nyström error vs m** explorer below starts on a 2-D mixture with n = 2000 and
# m = 30 landmarks in the map, as in Sec. 4 above. Change m and watch the Nyström map
# approach the true embedding; change the mixture, n, the landmark scheme and the
# baselines and watch the error curves. (Live in JupyterLab.)

# %% tags=["plot"]
import panel as pn

from kmeviz.apps import NystromErrorExplorer

pn.extension(inline=True)
explorer = NystromErrorExplorer(d=2, n=2000, m_view=30, m_max=300)
explorer

# %% tags=["check", "remove-cell"]
assert explorer.failures() == {} and explorer.m_view == 30

# %% [markdown]
# ## Exercises
# Each `check_…` says whether your answer is right and, if not, gives a hint; it never
# shows the answer.
# Worked answers, with the reasoning, are on the course's
# [Solutions page](../docs/course/solutions.md).
#
# **1.** With `mixture, X, kernel = nystrom_data()`, fit a Nyström KME with m = 50
# landmarks and `rng=0`. What is the sum of its weights α? (Why need it not be 1?)

# %% tags=["exercise"]
from kmeviz.exercises import (
    LANDMARK_COUNTS,
    check_landmarks_for_error,
    check_weight_sum,
    nystrom_data,
)

mixture, X, kernel = nystrom_data()
answer = None  # the sum of the weights
check_weight_sum(answer)

# %% [markdown]
# **2. Predict, then check.** The empirical embedding of these 2000 points is itself
# about 0.017 from μ (`mixture.error_of(K.EmpiricalKME(kernel).fit(X))`). Predict from
# that floor and from √n log √n which m of `LANDMARK_COUNTS` = (5, 10, 20, 50, 100) is
# the smallest whose Nyström KME (`rng=0`) has an exact error `mixture.error_of(...)`
# below 0.02; then compute the errors and explain why the smaller counts miss.

# %% tags=["exercise"]
print("candidates:", LANDMARK_COUNTS)
answer = None  # one of them
check_landmarks_for_error(answer)


# %% [markdown]
# **3. Implement.** Write the Nyström weights α = (1/n) K_mm⁺ K_mn 1_n
# (section 2) from K_mm, the Gram matrix of the m landmarks, and K_mn, their kernel values
# with the n points (`np.linalg.pinv` is the pseudo-inverse). The checker compares the
# embedding your weights give with `K.NystromKME`'s.

# %% tags=["exercise"]
from kmeviz.exercises import check_nystrom_weights


def answer(K_mm, K_mn):
    """The Nyström weights (m,) of the landmarks."""
    return None  # your code


check_nystrom_weights(answer)

# %% [markdown]
# ## Problems
# Derivations to do on paper, one step at a time; the instructor edition of the course has the
# worked solutions.
#
# **P1. The Nyström weights.** Among the functions $\sum_j \alpha_j k(z_j, \cdot)$ of the
# landmarks' span, find the one nearest to $\hat\mu = \frac1n \sum_i k(x_i, \cdot)$: show that
# every minimiser solves $K_{mm}\alpha = \frac1n K_{mn}\mathbf{1}$, that $\alpha = \frac1n
# K_{mm}^{+} K_{mn}\mathbf{1}$ is one, and that all minimisers give the same function (Chatalic
# et al. 2022, Eq. 5).
#
# **P2. Its error.** Show that $\|\hat\mu - P_m\hat\mu\|^2 = \frac{1}{n^2}\mathbf{1}^\top(K_{nn} -
# K_{nm}K_{mm}^{+}K_{mn})\mathbf{1}$, and that adding a landmark never increases it.

# %% [markdown] tags=["solution"]
# ### Solutions (instructor edition)
# **P1.** $\|\hat\mu - \sum_j \alpha_j k(z_j, \cdot)\|^2 = \|\hat\mu\|^2 - \frac2n \alpha^\top
# K_{mn}\mathbf{1} + \alpha^\top K_{mm}\alpha$, a convex quadratic in $\alpha$ whose gradient
# vanishes when $K_{mm}\alpha = \frac1n K_{mn}\mathbf{1}$. The right side lies in the range of
# $K_{mm}$ (it is $K_{mn}$ applied to a vector, and $K_{mn}$'s columns are in that range for a
# PSD kernel matrix of landmarks and points), so the pseudo-inverse solves it. Two solutions
# differ by $c \in \ker K_{mm}$, and $\|\sum_j c_j k(z_j, \cdot)\|^2 = c^\top K_{mm} c = 0$: the
# function is the same.
#
# **P2.** Put the minimiser back: $\|\hat\mu\|^2 - \alpha^\top K_{mm}\alpha =
# \frac{1}{n^2}\mathbf{1}^\top K_{nn}\mathbf{1} - \frac{1}{n^2}\mathbf{1}^\top
# K_{nm}K_{mm}^{+}K_{mn}\mathbf{1}$. A landmark more makes the span larger, and the distance to a
# larger subspace is no larger (the old best function is still available).
