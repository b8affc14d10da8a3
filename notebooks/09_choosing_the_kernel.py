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
# # Choosing the kernel: one bandwidth, or all of them (MMDAgg and KSDAgg)
#
# **What you will learn**
# - why the **median heuristic**, the default bandwidth of most kernel tests, can miss a
#   difference that another bandwidth sees at once;
# - why "try every bandwidth and keep the smallest p-value" is *not* a test at level α;
# - how **MMDAgg** ([Schrab et al., JMLR 2023](https://arxiv.org/abs/2110.15073)) tests
#   with a whole collection of bandwidths at once and still keeps its level, by a correction
#   estimated from the same permutations or wild bootstrap; and its goodness-of-fit twin **KSDAgg**
#   ([Schrab et al., NeurIPS 2022](https://arxiv.org/abs/2202.00824));
# - what the collection is made of, and when the authors' rule for it misses the scale
#   that matters.
#
# **What you need**: notebook 02 (MMD², its permutation and wild-bootstrap nulls). Runs
# in about half a minute on two cores.
#
# Terms are defined in the [glossary](../docs/glossary.md); the works cited are in the
# [bibliography](../docs/bibliography.md).

# %%
import holoviews as hv
import numpy as np

import kmeviz as K
from kmeviz import viz
from kmeviz.exercises import NB09_SIGMAS, min_p_rejection_rate

hv.extension("bokeh", logo=False, inline=True)  # BokehJS inline: works offline

# %% [markdown]
# ## 1. The median heuristic on the blob grid
#
# FastMMD's blob grid ([Sec. 4.1](https://arxiv.org/abs/1405.2664)) puts 25 Gaussian blobs on a 5 ×
# 5 grid with spacing 10. In P each blob is round (covariance I); in Q each is stretched along a
# diagonal with eigenvalue ratio ε. The difference lives at the scale of one blob, about 1; the
# points as a whole spread over about 40.
#
# The **median heuristic** sets the Gaussian kernel's bandwidth σ to the median distance
# between the pooled points. *Predict first:* on this grid, will that median be close to
# the blob scale (1) or to the grid scale (tens)?

# %%
X, Y = K.blobs_two_sample(500, epsilon=3.0, rng=5)
median = K.median_heuristic(X, Y)
print(f"median heuristic σ = {median:.1f}")

# %% tags=["plot"]
viz.samples_plot(X, Y)

# %% [markdown]
# The median is about 24: the typical distance between two points in *different* blobs,
# since a pair of points lands in the same blob only once in 25 tries. A Gaussian kernel
# of width 24 smooths each blob into its neighbours and sees a nearly uniform cloud in
# both samples; the elongation of the blobs is invisible to it.

# %% tags=["check", "remove-cell"]
assert 20 < median < 30

# %% [markdown]
# ## 2. One test per bandwidth
#
# Let us run the same test with ten bandwidths, from 0.2 to 50 on a log scale. kmeviz
# computes all ten in one pass: every kernel reads the same distance tile, and all
# B + 1 wild-bootstrap sign vectors are multiplied with each kernel's tile at once. The
# p-value of bandwidth j, p_j, is the fraction of its B replicates (and the observed
# value) at least as large as its observed statistic, the unbiased MMD²
#
# MMD²_u = (1 / (n(n − 1))) Σ_{i≠j} [k(xᵢ, xⱼ) + k(yᵢ, yⱼ) − k(xᵢ, yⱼ) − k(xⱼ, yᵢ)].

# %%
singles = K.KernelCollection([K.GaussianKernel(s) for s in NB09_SIGMAS]
                             + [K.GaussianKernel(median)])
one_by_one = K.mmd_test(X, Y, singles, estimator="mmdagg", n_resamples=1000,
                        rng=1).fitted["kernels"]
one_by_one[["kernel", "statistic", "p_value"]].round(5)

# %% tags=["check", "remove-cell"]
p = one_by_one.set_index("scale")["p_value"]
assert (p.loc[list(NB09_SIGMAS[2:4])] < 0.005).all()  # σ ≈ 0.7–1.3: the blob scale rejects
assert p.iloc[-1] > 0.05 and (p.loc[list(NB09_SIGMAS[-3:])] > 0.05).all()  # median, grid: keep

# %% [markdown]
# The bandwidths near the blob scale (0.7 and 1.3) reject with p-values of 0.002–0.005;
# the large ones, and the median heuristic's (the last row, p ≈ 0.64), keep H0. Had we
# known the blob scale, we would have picked σ ≈ 1. But we learned it from *these* data.

# %% [markdown]
# ## 3. Why "the best bandwidth" is not a test
#
# Suppose we ran the ten tests and rejected when the smallest p-value is ≤ α. Under H0
# each test alone rejects with probability α; but we now reject when *any* of them does.
# If the ten were independent, that would happen with probability 1 − (1 − α)¹⁰ ≈ 0.40;
# they are not independent (neighbouring bandwidths see similar features), so the truth
# lies between α and 0.40. Let us measure it: 200 draws with P = Q (round blobs in both
# samples), n = 100 per sample.

# %%
rate = min_p_rejection_rate()
low, high = K.experiments.binomial_interval(round(rate * 200), 200, 0.95)
print(f"min-p rule under H0: rejects {rate:.3f} of the time (95% interval "
      f"[{low:.3f}, {high:.3f}]), for a nominal α = 0.05")

# %% tags=["check", "remove-cell"]
assert low > 0.1 and high < 0.4

# %% [markdown]
# Three to four times α. The classical fix, Bonferroni, tests each bandwidth at α/10: its
# level is at most α whatever the dependence, but it throws away the fact that the ten
# tests are strongly correlated, and so loses power.

# %% [markdown]
# ## 4. MMDAgg: all bandwidths, one level-α test
#
# MMDAgg keeps the idea "reject when some bandwidth rejects" but calibrates the
# per-bandwidth levels on the data, from simulated statistics it computes anyway. With
# weights w_j (summing to 1) over the collection of J kernels, j = 1, …, J:
#
# 1. For each j, compute the observed statistic and B1 + B2 simulated ones (permutations,
#    or a wild bootstrap when n_X = n_Y).
# 2. For a number u, let q_j(u) be the (1 − u·w_j)-quantile of kernel j's B1 simulated
#    values (the observed one included).
# 3. **Level correction**: u_α is the largest u such that, among the other B2 simulated
#    labellings, at most a fraction α has *some* j above q_j(u). Found by bisection:
#
#    $$u_\alpha = \max\Big\{u :\ \frac1{B_2}\sum_{b=1}^{B_2}
#    \mathbb 1\Big[\max_{1\le j\le J}\big(\hat T_j^{(b)} - q_j(u)\big) > 0\Big]
#    \le \alpha\Big\}.$$
#
# 4. **Decision**: reject when some j's observed statistic exceeds q_j(u_α), that is,
#
#    $$\text{reject } H_0 \iff p_j \le u_\alpha\, w_j \text{ for some } j \le J .$$
#
# The B2 replicates play the role of H0 itself: u_α is chosen so that the *aggregated*
# rule rejects at most a fraction α of them. With uniform weights w_j = 1/J, each
# kernel's own level is u_α/J. When the ten tests are strongly dependent, u_α is much
# larger than α (less correction than Bonferroni); when they are independent, u_α falls
# to about α (Šidák: 1 − (1 − α)^{1/J} ≈ α/J per kernel), and each kernel's level
# u_α/J to about α/J, the Bonferroni level. The test is exact in the same sense as a
# permutation test (Schrab et al. 2023, [Prop. 1](https://arxiv.org/abs/2110.15073)), and its power
# adapts to the unknown smoothness of the difference (their minimax results).
#
# In kmeviz MMDAgg is one more entry of the test registry:
# `mmd_test(X, Y, estimator="mmdagg")`. Without a kernel it uses the authors' default
# collection, 10 Laplace and 10 Gaussian bandwidths with uniform weights 1/20.

# %%
authors = K.mmd_test(X, Y, estimator="mmdagg", n_resamples=2000, rng=2)
print(authors)
print("Gaussian σ of the collection:", np.round(authors.kernel.scales()[10:], 2))

# %% [markdown]
# It keeps H0 here (p ≈ 0.25). Look at the collection: its smallest Gaussian σ is about
# 2.7. The
# authors' rule starts the bandwidths at half the smallest distance between X and Y, or,
# when that is below 0.1 (it is, with 500 points), at half the *5 % quantile* of the
# distances. On this grid only 1 pair in 25 (4 %) lies in the same blob, so the 5 %
# quantile is already a distance *between* blobs. The rule was designed for data where
# close pairs are common; the blob grid is a case where they are rare. A lower quantile
# (1 %) brings the blob scale into the collection:

# %%
wider = K.mmdagg_kernels(X, Y, low_quantile=0.01)
aggregated = K.mmd_test(X, Y, wider, estimator="mmdagg", n_resamples=2000, rng=2)
print(aggregated)
table = aggregated.fitted["kernels"]
table[["kernel", "weight", "statistic", "p_value", "threshold", "reject"]].round(5)

# %% tags=["check", "remove-cell"]
assert not authors.reject and authors.kernel.scales()[10:].min() > 2.0
assert aggregated.reject and table["reject"].any()
assert wider.scales()[10:].min() < 0.6
# the decision is the level correction's: some p_j ≤ u_α w_j, and p-value ≤ α
assert (table["reject"] == (table["p_value"] <= table["threshold"])).all()
assert aggregated.p_value <= 0.05
assert 0.012 < table["threshold"].iloc[0] < 0.022 and 2.5 < authors.kernel.scales()[10] < 2.9
assert 0.2 < authors.p_value < 0.4
# %% [markdown]
# The `threshold` column is u_α·w_j ≈ 0.015: about six times α/20 = 0.0025, what
# Bonferroni would give every kernel. The twenty tests are so dependent that the
# correction costs far less than a union bound. Now the kernel-choice picture: each
# Gaussian bandwidth's statistic over its threshold q_j(u_α), on a log-σ axis. Above 1,
# that bandwidth rejects.

# %%
gaussian = K.mmdagg_kernels(X, Y, family="gaussian", low_quantile=0.01)
result = K.mmd_test(X, Y, gaussian, estimator="mmdagg", n_resamples=2000, rng=2)

# %% tags=["plot"]
viz.kernel_choice_plot(result.fitted["kernels"], median=median, reject=result.reject,
                       alpha=result.alpha)

# %% tags=["check", "remove-cell"]
gt = result.fitted["kernels"]
assert result.reject and gt.loc[gt["reject"], "scale"].max() < median / 3

# %% [markdown]
# ## 5. It keeps its level
#
# An adaptive test is only useful if it is still a level-α test. Under H0 (round blobs in
# both samples), over 200 draws:

# %%
rng = np.random.default_rng(5)
rejections = 0
for _ in range(200):
    X0, Y0 = K.blobs_two_sample(100, epsilon=1.0, rng=rng)
    rejections += K.mmd_test(X0, Y0, K.mmdagg_kernels(X0, Y0, low_quantile=0.01),
                             estimator="mmdagg", n_resamples=199, rng=rng).reject
low, high = K.experiments.binomial_interval(rejections, 200, 0.95)
print(f"MMDAgg under H0: {rejections}/200 = {rejections / 200:.3f} "
      f"(95% interval [{low:.3f}, {high:.3f}])")

# %% tags=["check", "remove-cell"]
# (the 99% interval: a 95% one misses α in 1 run of 20 on another CPU's numbers)
low99, high99 = K.experiments.binomial_interval(rejections, 200, 0.99)
assert low99 <= 0.05 <= high99

# %% [markdown]
# Compare with the min-p rule's 0.17 of Section 3: the same "some bandwidth rejects"
# decision, but with thresholds calibrated on the B2 replicates. (200 draws resolve a
# rate to about ±0.03; over 1000 draws at n = 200 the rate is 0.050.) `docs/results` has
# the power against ε on the blob grid for the median heuristic, the best single
# bandwidth in hindsight and MMDAgg (`kmeviz reproduce mmdagg-power`).

# %% [markdown]
# ## 6. KSDAgg: the same for goodness of fit
#
# The kernel Stein discrepancy (notebook 05) has the same problem: its IMQ base kernel
# has a scale. KSDAgg aggregates the KSD U-statistic over ten IMQ scales (from 1/d to the
# sample's largest distance over d, as the authors' code does) with a wild bootstrap. A
# Laplace sample against 𝒩(0, I₅):

# %%
rng = np.random.default_rng(7)
Z = rng.laplace(scale=1 / np.sqrt(2), size=(500, 5))
ksdagg = K.ksd_test(Z, K.NormalTarget(np.zeros(5)), estimator="ksdagg", n_resamples=1000,
                    rng=0)
print(ksdagg)
ksdagg.fitted["kernels"][["kernel", "statistic", "p_value", "threshold", "reject"]].round(5)

# %% tags=["check", "remove-cell"]
assert ksdagg.reject

# %% [markdown]
# ## 7. In the dashboard
#
# The **Bootstrap null explorer** (`kmeviz serve`) has a kernel-choice row: the plot of
# Section 4 for the data of its widgets, a choice of the rule for the smallest
# bandwidth, and a button that estimates, over 100 draws, the power of every bandwidth
# of the collection beside MMDAgg's and the median heuristic's. Move ε and watch which
# bandwidths reject.

# %% [markdown]
# ## Exercises
# Each `check_…` says whether your answer is right and, if not, gives a hint.
# Worked answers, with the reasoning, are on the course's
# [Solutions page](../docs/course/solutions.md).
#
# **1.** *Predict, then check.* Under H0, how often does "reject when the smallest of
# the ten single-bandwidth p-values is ≤ 0.05" reject: `"about 0.05"`, `"between 0.1 and
# 0.4"` or `"above 0.5"`? (Answer before you look back at Section 3.)

# %% tags=["exercise"]
from kmeviz.exercises import check_min_p_size, check_smallest_collection_sigma

answer = None  # "about 0.05", "between 0.1 and 0.4" or "above 0.5"
check_min_p_size(answer)

# %% [markdown]
# **2.** *Predict, then check.* The authors' rule starts the collection at half the 5 %
# quantile of the distances between the points of X and those of Y (divided by √2 for a
# Gaussian's σ). On the blob grid, `X, Y = K.blobs_two_sample(500, epsilon=3.0, rng=5)`,
# only 1 pair in 25 has both points in the same blob. Predict whether the smallest σ is
# below, near or well above 0.5, the scale of a blob's difference; then compute it with
# `K.mmdagg_kernels(X, Y, family="gaussian").scales()` and explain what it means for the
# test.

# %% tags=["exercise"]
answer = None  # a number
check_smallest_collection_sigma(answer)


# %% [markdown]
# **3. Implement.** Write the median heuristic: the median of the distances
# between the points of the pooled sample, each pair once. Which distances must you leave
# out?

# %% tags=["exercise"]
from kmeviz.exercises import check_median_heuristic_function


def answer(X, Y):
    """The median heuristic σ."""
    return None  # your code


check_median_heuristic_function(answer)

# %% [markdown]
# ## Problems
# Derivations to do on paper, one step at a time; the instructor edition of the course has the
# worked solutions.
#
# **P1. The min-p trap.** Each of $J$ bandwidths gives a valid p-value. Show that rejecting when
# the smallest is below $\alpha$ has size $1 - (1 - \alpha)^J \approx J\alpha$ when the p-values
# are independent, and a size between $\alpha$ and $J\alpha$ in general. Where do the p-values of
# neighbouring bandwidths lie in that range, and what did §3 measure?
#
# **P2. MMDAgg's correction is never worse than Bonferroni's.** MMDAgg rejects when some kernel's
# statistic exceeds its $(1 - u\,w_j)$ permutation quantile, with weights $\sum_j w_j = 1$ and
# $u$ the largest value whose estimated probability of any exceedance under $H_0$ is at most
# $\alpha$ (Schrab et al. 2023). Show that $u = \alpha$ (Bonferroni) satisfies the constraint, so
# MMDAgg rejects whenever the Bonferroni-corrected test does.

# %% [markdown] tags=["solution"]
# ### Solutions (instructor edition)
# **P1.** Independent: $\Pr(\min p \le \alpha) = 1 - \prod_j \Pr(p_j > \alpha) = 1 - (1 -
# \alpha)^J$. In general it is at least $\Pr(p_1 \le \alpha) = \alpha$ and at most $\sum_j
# \Pr(p_j \le \alpha) = J\alpha$. Neighbouring bandwidths see nearly the same features of the
# data, so their p-values are strongly positively dependent and the size lies well inside the
# range, several times $\alpha$ but below $J\alpha$, as §3's measured size shows.
#
# **P2.** Under the permutation distribution each kernel's statistic exceeds its $(1 - \alpha
# w_j)$ quantile with probability at most $\alpha w_j$, so by the union bound some kernel exceeds
# with probability at most $\sum_j \alpha w_j = \alpha$: $u = \alpha$ is admissible, so the
# largest admissible $u$ is at least $\alpha$, each threshold is at most Bonferroni's, and every
# Bonferroni rejection is an MMDAgg rejection. The level itself holds because, under $H_0$, the
# observed and permuted statistics are exchangeable and $u$ is computed from all of them
# symmetrically.
