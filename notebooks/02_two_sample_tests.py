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
# # Two-sample tests and their null distributions
#
# **What you will learn**
# - what the *null distribution* of an MMD statistic is, and how a test turns it into a
#   threshold and a p-value;
# - three ways to get it — permutations (exact, costly), the Gamma moment match and the
#   Gram spectrum (fast asymptotic approximations) — and when each is trustworthy;
# - how to measure a test's **size** (type-I error) and **power**, with confidence intervals;
# - the witness function of a test that rejects: *where* the samples differ;
# - FastMMD + bootstrap: power as a function of the number of frequencies L
#   ([FastMMD Fig. 8a](https://arxiv.org/abs/1405.2664));
# - two failure modes: an asymptotic null at small n, and what a p-value looks like when
#   H0 is true.
#
# **What you need**: notebook 01 (MMD, its estimators and the witness). Runs in under a
# minute.
#
# Terms are defined in the [glossary](../docs/glossary.md); the works cited are in the
# [bibliography](../docs/bibliography.md).

# %%
import holoviews as hv
import numpy as np
import pandas as pd
from scipy import stats

import kmeviz as K
from kmeviz import viz
from kmeviz.experiments import fastmmd_type2_vs_L, null_sampler, rejection_rates
from kmeviz.twosample.nulls import gamma_null_params

hv.extension("bokeh", logo=False, inline=True)  # BokehJS inline: works offline
kernel = K.GaussianKernel(1.0)

# %% [markdown]
# ## 1. A null distribution
#
# A test decides between H0: P = Q and H1: P ≠ Q from a statistic T, here the biased
# MMD². Is the observed T large? Only compared with what T looks like when P = Q: its
# **null distribution**. The test of level α rejects H0 when T exceeds the (1 − α)
# quantile of that distribution, the threshold; the **p-value** is the probability, under
# H0, of a statistic at least as large as the one observed.
#
# Pooling both samples and relabelling them at random makes P = Q true by construction;
# the statistics of B relabellings T₁, …, T_B form the **permutation null**, and
#
# $$p = \frac{1 + \#\{b : T_b \ge T\}}{1 + B}.$$
#
# The "1 +" counts the observed labelling as one of the relabellings; with it the test is
# exact: under H0, P(p ≤ α) ≤ α for every n and B. kmeviz computes all B statistics as
# one matrix product with the joint Gram matrix.

# %%
X, Y = K.blobs_two_sample(300, epsilon=2.0, rng=0)
res = K.mmd_test(X, Y, kernel, n_resamples=1000, rng=0)
print(f"statistic MMD²_b = {res.statistic:.5f}")
print(f"threshold (α = {res.alpha}) = {res.threshold:.5f}")
print(f"p-value = {res.p_value:.4f}  ->  reject H0: {res.reject}")

# %% tags=["check", "remove-cell"]
# Checks run by the test suite (tests/test_notebooks.py); they compare values, never bytes.
# Seeded statistics: 1e-6 relative (round-off between CPUs is ~1e-13). Monte Carlo
# outcomes are checked against the laws the text states, not against one run's counts.
assert np.isclose(res.statistic, 0.00995829556, rtol=1e-6)
assert res.null_samples.size == 1000 and res.p_value == 1 / 1001  # no permutation reaches it
assert np.mean(res.null_samples > res.threshold) <= res.alpha
assert res.threshold < res.statistic and res.reject

# %% tags=["plot"]
g = gamma_null_params(X, Y, kernel)
x = np.linspace(0, res.null_samples.max() * 1.3, 300)
null_plot = viz.null_histogram(res, overlays={
    "Gamma approximation": (x, stats.gamma(g["shape"], scale=g["scale"]).pdf(x))})
null_plot

# %% tags=["check", "remove-cell"]
# The histogram is a density of the 1000 replicates; the statistic is drawn where it is.
hist = null_plot.traverse(lambda e: e, [hv.Histogram])[0]
widths = np.diff(hist.interface.coords(hist, hist.kdims[0], edges=True))
assert np.isclose(np.sum(hist.dimension_values("density") * widths), 1.0, rtol=1e-9)
assert res.statistic in [v.data for v in null_plot.traverse(lambda e: e, [hv.VLine])]
# The Gamma moment match has the mean of the permutation null to within 10%.
assert abs(g["shape"] * g["scale"] / res.null_samples.mean() - 1) < 0.1

# %% [markdown]
# No relabelling reaches the observed statistic, so p = 1/1001, the smallest value
# B = 1000 allows. The orange curve is the Gamma approximation of section 3; it
# follows the histogram closely here.
#
# ## 2. Where the samples differ: the witness
#
# The test says *that* P ≠ Q. The witness f̂ = μ̂_P − μ̂_Q of notebook 01 says *where*.
# With ε = 2 instead of 4 the blobs of Q are less stretched; is the pattern still the
# same? Predict, then look at the blob at the origin.

# %% tags=["plot"]
blob_witness = viz.witness_window(X, Y, kernel, half_width=4,
                                  title="Witness μ̂_P − μ̂_Q, ε = 2, blob at the origin")
blob_witness

# %% tags=["check", "remove-cell"]
# Each plotted value is μ̂_P − μ̂_Q at its point, evaluated here from the formula; the
# test's statistic is the witness's mean over X minus its mean over Y.
image = blob_witness.traverse(lambda e: e, [hv.Image])[0]
points = np.column_stack([image.dimension_values(0), image.dimension_values(1)])
kx, ky = kernel(points, X), kernel(points, Y)
assert np.allclose(image.dimension_values("witness"), kx.mean(axis=1) - ky.mean(axis=1),
                   rtol=1e-10, atol=1e-14)
on_x, on_y = K.mmd_witness(X, Y, kernel, X), K.mmd_witness(X, Y, kernel, Y)
assert np.isclose(on_x.mean() - on_y.mean(), res.statistic, rtol=1e-10)
assert K.mmd_witness(X, Y, kernel, np.zeros((1, 2)))[0] > 0  # positive at the centre

# %% [markdown]
# The same pattern as in notebook 01, fainter: P is denser at the centre (red), Q along
# its tilted long axis (blue). With only 300 points per sample spread over 25 blobs, about
# 12 of each fall in this blob, so the map is noisy; the test pools the evidence of all
# 25 blobs, which is why it still rejects.

# %% [markdown]
# ## 3. Permutation vs Gamma vs spectral
#
# Permutations cost B statistics. Two shortcuts use what theory says about T for large
# samples. Under H0, with n = n_X + n_Y pooled points, the biased statistic has the limit law of
# [Gretton et al. 2012](https://jmlr.org/papers/v13/gretton12a.html) (Thm 12 states it for
# the unbiased one; the biased one adds a constant) and
# [Gretton et al. 2009](https://papers.nips.cc/paper/2009/hash/9246444d94f081e3549803b928260f56-Abstract.html),
# which also gives the spectral null below:
#
# $$\widehat{\mathrm{MMD}}^2_b \approx \Big(\frac1{n_X} + \frac1{n_Y}\Big) \sum_l \nu_l z_l^2,
# \qquad z_l \sim \mathcal 𝒩(0,1) \text{ independent},$$
#
# where ν_l are the eigenvalues of the kernel's covariance operator. The **spectral** null
# estimates them by the eigenvalues of the centred Gram matrix H K H *divided by n*
# (H = I − 11ᵀ/n) and simulates the sum. The **Gamma** null only matches the mean and
# variance of that law with a Gamma distribution: no eigenvalues, O(n²) once.

# %%
rows = []
for null in ("permutation", "gamma", "spectral"):
    r = K.mmd_test(X, Y, kernel, null=null, n_resamples=1000, rng=0)
    rows.append({"null": null, "p-value": round(r.p_value, 4),
                 "threshold": round(r.threshold, 5), "reject": r.reject})
print(pd.DataFrame(rows).to_string(index=False))

# %% tags=["check", "remove-cell"]
# The three nulls agree on the threshold within 5% and all reject.
thresholds = [row["threshold"] for row in rows]
assert max(thresholds) / min(thresholds) < 1.05 and all(row["reject"] for row in rows)

# %% [markdown]
# Here all three agree: 300 points per sample and a kernel at the scale of one blob are
# the regime the asymptotic law describes. When is each null trustworthy?
#
# - **Permutation**: always, for any n (exchangeability under H0); its cost is B
#   statistics, and its smallest p-value is 1/(B + 1).
# - **Spectral**: when n is large enough for the Gram eigenvalues to estimate the
#   operator's; it costs an n × n eigendecomposition.
# - **Gamma**: when the law is close to a Gamma with those two moments — large n, a
#   kernel neither far narrower nor far wider than the data's scale. It is the cheapest.
#
# Section 6 shows the Gamma null failing at small n.

# %% [markdown]
# ## 4. Size and power
#
# A test of level α should reject a true H0 at most a fraction α of the time (its
# **size**, or type-I error); under H1, its rejection rate is its **power** (one minus the
# type-II error). We estimate both over repeated draws, with exact (Clopper–Pearson) 95%
# intervals. B = 99 keeps it quick — the permutation test is exact for any B with
# α(B + 1) an integer.
#
# **Predict first.** Four tests see the same 150 + 150 points: the permutation and Gamma
# tests of the biased MMD², the linear-time test and FastMMD with 64 frequencies. Rank
# them by power on the blob grid with ε = 6, before you run the cell.

# %%
tests = {
    "perm": {"kernel": kernel, "n_resamples": 99},
    "gamma": {"kernel": kernel, "null": "gamma"},
    "linear": {"kernel": kernel, "estimator": "linear", "null": "normal"},
    "FastMMD L=64": {"kernel": kernel, "estimator": "fastmmd", "features": "fourier",
                     "n_features": 64,
                     "n_resamples": 99},
}
size = rejection_rates(null_sampler(150), tests, n_repeats=100, rng=1)
power = rejection_rates(lambda g: K.blobs_two_sample(150, epsilon=6.0, rng=g), tests,
                        n_repeats=40, rng=2)
cols = ["test", "rejections", "repeats", "rate", "ci_low", "ci_high"]
print("size (P = Q = 𝒩(0, I)):")
print(size[cols].round(3).to_string(index=False))
print("\npower (blob grid, ε = 6):")
print(power[cols].round(3).to_string(index=False))

# %% tags=["check", "remove-cell"]
# Size: each 95% interval covers α = 0.05 (the permutation test is exact; 100 draws).
assert ((size.ci_low <= 0.05) & (0.05 <= size.ci_high)).all()
assert (size.repeats == 100).all() and (power.repeats == 40).all()
# Power: the linear-time test is the weakest, as the text says.
rate = power.set_index("test").rate
assert rate["linear"] <= rate.drop("linear").min() and rate["linear"] < rate["perm"]
assert np.allclose(rate[["perm", "FastMMD L=64"]], [0.70, 0.30])  # quoted in the text

# %% tags=["plot"]
power_plot = viz.rejection_plot(power)
power_plot

# %% tags=["check", "remove-cell"]
assert np.allclose(power_plot.traverse(lambda e: e, [hv.Scatter])[0].dimension_values(1),
                   power.rate)

# %% [markdown]
# Every size interval covers α = 0.05: with 100 draws a rate of 0.03 and one of 0.06
# are both consistent with the nominal level, and the table cannot rank the tests by
# size (resolving ±0.01 would take about 2000 draws per test). That the permutation test
# holds its level is a theorem, not something this table shows.
#
# The linear-time test is cheap but weak. It averages n/2 terms of 4 kernel values each,
# 2n values in all, where the quadratic statistic uses all n² pairs. Under H0 its
# standard deviation is of order 1/√n against the quadratic statistic's 1/n (variances
# 1/n and 1/n²); under H1, the case that decides power, both are of order 1/√n, but the
# linear statistic's constant is much larger (Gretton et al. 2012, Sec. 6), so a
# difference must be larger for it to stand out.
# FastMMD with 64 frequencies keeps less than half of the exact test's power here (0.30
# against 0.70): 64 random directions see the blobs' shape only roughly. Section 5 shows
# how its power grows with L.

# %% [markdown]
# ## 5. FastMMD + bootstrap: power vs L (a small [Fig. 8a](https://arxiv.org/abs/1405.2664))
#
# FastMMD's statistic is the squared distance of the two samples' mean random features,
#
# $$\widehat{\mathrm{MMD}}^2_L = \Big\|\frac1{n_X}\sum_{i=1}^{n_X} z(x_i)
# - \frac1{n_Y}\sum_{j=1}^{n_Y} z(y_j)\Big\|^2,$$
#
# $$z(x) = \tfrac{1}{\sqrt L}\big(\cos\omega_l^\top x,\ \sin\omega_l^\top x\big)_{l=1}^{L},$$
#
# and permuting the rows of the n × 2L random-feature matrix gives its null at O(L n)
# per replicate. With few frequencies the statistic is a noisy estimate of MMD²
# (notebook 01, §8). The level does not suffer: given the frequencies, the statistic is
# an exact MMD² of the feature map z, and permuting rows gives its exact null. What few
# frequencies cost is power, since z sees the samples along only L directions.
#
# **Predict first.** With L = 1 the test looks at the samples along a single random
# direction. Will its type-II error be near 0, near 0.5, or near 1 − α? And at L = 256?
# The table uses 100 repeats per L: with 20, the 95 % intervals are ±0.2 wide and
# neighbouring L cannot be told apart.

# %%
fig8a = fastmmd_type2_vs_L(Ls=(1, 4, 16, 64, 256), n=300, epsilon=4.0, n_repeats=100,
                           n_resamples=99, rng=3)
cols = ["L", "type2_error", "type2_ci_low", "type2_ci_high"]
print(fig8a[cols].round(2).to_string(index=False))

# %% tags=["check", "remove-cell"]
# The seeded table as quoted below (100 repeats each: exact counts).
assert np.allclose(fig8a.type2_error, [0.89, 0.78, 0.73, 0.54, 0.40], atol=1e-9)
# More frequencies, more power: the type-II error never rises with L, and L = 256 beats
# L = 1 and L = 4 outright (disjoint 95% intervals).
errors = fig8a.type2_error.to_numpy()
assert np.all(np.diff(errors) <= 0)
assert fig8a.type2_ci_high.iloc[-1] < fig8a.type2_ci_low.iloc[:2].min()

# %% [markdown]
# From 0.89 at L = 1 (one direction misses the difference most of the time) to 0.40 at
# L = 256: each step in L lowers the type-II error, though neighbouring steps still have
# overlapping intervals. The paper's [Fig. 8a](https://arxiv.org/abs/1405.2664) goes on to L = 1024
# and 4096, where FastMMD's power reaches the exact test's; `kmeviz reproduce fastmmd-fig8a` runs
# it.

# %% [markdown]
# ## 6. When an asymptotic null fails, and what a p-value is under H0
#
# Take 30 points per sample from the *same* law, 𝒩(0, I₂), and a narrow kernel, σ = 0.2,
# far below the typical distance between points (about 1.8). H0 is true, so a level-5 %
# test should reject about 5 % of the time, and its p-values should be *uniform* on
# (0, 1): P(p ≤ t) = t for every t.
#
# **Predict first.** Will the Gamma test reject more than 5 % of the time, about 5 %, or
# less? And what will its p-values look like?

# %%
narrow = K.GaussianKernel(0.2)
draws = [K.NormalTarget(np.zeros(2)).sample(60, rng=seed) for seed in range(300)]
p_values = pd.DataFrame([
    {"permutation": K.mmd_test(Z[:30], Z[30:], narrow, n_resamples=99, rng=seed).p_value,
     "gamma": K.mmd_test(Z[:30], Z[30:], narrow, null="gamma").p_value}
    for seed, Z in enumerate(draws)])
print("fraction of p-values ≤ 0.05 over 300 draws under H0:")
print((p_values <= 0.05).mean().round(3).to_string())

# %% tags=["plot"]
edges = np.linspace(0, 1, 11)
histograms = [hv.Histogram(np.histogram(p_values[name], edges, density=True),
                           kdims="p-value", vdims="density", label=name).opts(alpha=0.5)
              for name in ("permutation", "gamma")]
p_value_plot = (hv.Overlay(histograms) * hv.HLine(1.0).opts(color="black")).opts(
    title="p-values under H0 (n = 30, σ = 0.2)", legend_position="top_left",
    **viz.theme.size(320))
p_value_plot

# %% tags=["check", "remove-cell"]
# Under H0 the permutation p-values are uniform: the fraction ≤ 0.05 is inside the 99%
# binomial interval of 0.05 for 300 draws, and a KS test does not reject uniformity at 1%
# (p-values on the grid k/100 are uniform up to the grid). The Gamma p-values bunch in the
# middle, as the text says: fewer than 2% at or below 0.05, fewer than 6% at or below 0.1
# and fewer than 3% at or above 0.9, where a uniform law puts 5%, 10% and 10%.
rate = (p_values <= 0.05).mean()
low, high = stats.binom.interval(0.99, 300, 0.05)
assert low / 300 <= rate["permutation"] <= high / 300
assert stats.kstest(p_values["permutation"], "uniform").pvalue > 0.01
assert rate["gamma"] < 0.02 and (p_values["gamma"] <= 0.1).mean() < 0.06
assert (p_values["gamma"] >= 0.9).mean() < 0.03
assert [h.label for h in histograms] == ["permutation", "gamma"]
# "about 1.7 times the permutation null's" variance... of the first draw, in sd terms
first = K.mmd_test(draws[0][:30], draws[0][30:], narrow, n_resamples=2000, rng=0)
fit = gamma_null_params(draws[0][:30], draws[0][30:], narrow)
assert 1.4 < np.sqrt(fit["shape"]) * fit["scale"] / first.null_samples.std() < 2.2

# %% [markdown]
# The permutation p-values are flat, as a valid test's must be. The Gamma p-values bunch
# in the middle: almost none below 0.05 and almost none above 0.9. A null that is too
# *wide* does that: every statistic looks ordinary. The Gamma fit takes its variance from
# the large-sample formula; with σ = 0.2, each point sees almost only itself and 30
# points are far from that regime: on the first draw the fitted standard deviation is
# about 1.7 times the permutation null's. Here the test is **conservative**: it keeps H0
# too often, and will miss real differences. (The Gamma null carries no level guarantee
# at all; in other settings it can reject too often.) At small n, or with a kernel far
# narrower than the data, prefer permutations. Every asymptotic null, the linear-time
# test's normal one included, needs the same caution.

# %% [markdown]
# ## Play with it
# The **Bootstrap null explorer** below (the one `kmeviz serve` serves) starts on the blob
# grid with ε = 4 and n = 300, the case of the table above. Move α and watch the threshold
# slide over the histogram, change B, switch to the Gamma or spectral null, or to
# FastMMD, and press *Repeat 100 times* to estimate the power. (Live in JupyterLab; a
# rendered page shows a still picture.)

# %% tags=["plot"]
import panel as pn

from kmeviz.apps import BootstrapExplorer

pn.extension(inline=True)
explorer = BootstrapExplorer(epsilon=4.0, n=300)
explorer

# %% tags=["check", "remove-cell"]
assert explorer.failures() == {} and (explorer.epsilon, explorer.n) == (4.0, 300)

# %% [markdown]
# ## Exercises
# Each `check_…` says whether your answer is right and, if not, gives a hint; it never
# shows the answer. When you are right it also says why.
# Worked answers, with the reasoning, are on the course's
# [Solutions page](../docs/course/solutions.md).
#
# **1.** On the first 20 points of each sample of `X, Y = mmd_data()`, run the biased
# MMD test with a Gaussian kernel of bandwidth 1, the permutation null, B = 999 and
# `rng=0`. What is its p-value? (Try all 200 points too: why is the p-value then 1/1000?)

# %% tags=["exercise"]
from kmeviz.exercises import (
    check_gamma_size_small_n,
    check_permutation_p_value,
    check_size_interval_upper,
    mmd_data,
)

X, Y = mmd_data()
answer = None  # the p-value
check_permutation_p_value(answer)

# %% [markdown]
# **2. Predict, then check.** A test rejected 12 times in 200 draws under H0: a rate of
# 0.06. Predict: is that evidence that its level is wrong? Then compute the upper end of
# the 95 % confidence interval of its type-I error.

# %% tags=["exercise"]
answer = None  # the upper end of the interval
check_size_interval_upper(answer)

# %% [markdown]
# **3. Predict, then check.** Section 6 used 300 draws. Predict first whether, on 200 new
# draws (`null_sampler(30)`, σ = 0.2), the Gamma test's rejection rate under H0 will be
# above, near or below 0.05. Then compute it:
# `rejection_rates(null_sampler(30), {"gamma": {"kernel": K.GaussianKernel(0.2),
# "null": "gamma"}}, n_repeats=200, rng=4)` and read `.rate`.

# %% tags=["exercise"]
answer = None  # the measured rejection rate
check_gamma_size_small_n(answer)


# %% [markdown]
# **4. Implement.** Write a permutation test: given samples X, Y, a function
# `statistic(X, Y)`, the number B of permutations and a seed, return the p-value
# (1 + #{b : T_b ≥ T}) / (1 + B), where T_b is the statistic on the b-th random relabelling
# of the pooled sample (`np.random.default_rng(rng)`). The checker tries samples far apart,
# a constant statistic and samples of one law.

# %% tags=["exercise"]
from kmeviz.exercises import check_permutation_test_function


def answer(X, Y, statistic, n_resamples, rng):
    """The permutation p-value of statistic(X, Y)."""
    return None  # your code


check_permutation_test_function(answer)

# %% [markdown]
# ## Problems
# Derivations to do on paper, one step at a time; the instructor edition of the course has the
# worked solutions.
#
# **P1. Why the permutation test is exact.** Under $H_0$ the pooled sample is exchangeable. Show
# that the p-value $p = (1 + \#\{b : T_b \ge T\})/(1 + B)$ of §3 satisfies $\Pr(p \le \alpha) \le
# \alpha$ for every $n$, every $B$ and every $\alpha \in (0, 1)$.
#
# **P2. Why the null is not normal.** Write $\widehat{\mathrm{MMD}}{}^2_u$ ($n_X = n_Y = n$) as a
# U-statistic $\frac{1}{n(n-1)}\sum_{i \ne j} h(z_i, z_j)$ of the pairs $z_i = (x_i, y_i)$, with
# $h(z, z') = k(x, x') + k(y, y') - k(x, y') - k(x', y)$. Compute its first projection $h_1(z) =
# \mathbb{E}\,h(z, Z')$ and show that $h_1 \equiv 0$ when $P = Q$. What does that imply for the
# order of its variance under $H_0$, and for the scale at which it has a limit?

# %% [markdown] tags=["solution"]
# ### Solutions (instructor edition)
# **P1.** Let $T_0 = T$ and $T_1, \dots, T_B$ the permuted statistics. Given the pooled values
# (as a multiset), every arrangement is equally likely under $H_0$, so $(T_0, \dots, T_B)$ is
# exchangeable and the rank of $T_0$ among them is uniform (ties broken at random). Now $p \le
# \alpha$ requires at most $\lfloor \alpha(B + 1) \rfloor - 1$ of the $T_b$ to reach $T_0$, i.e.
# $T_0$ among the $\lfloor \alpha(B+1) \rfloor$ largest, which has probability at most $\lfloor
# \alpha(B + 1) \rfloor/(B + 1) \le \alpha$; counting ties as $T_b \ge T$ only makes $p$ larger.
#
# **P2.** $h_1(z) = \mu_P(x) + \mu_Q(y) - \mu_Q(x) - \mu_P(y)$, which vanishes when $\mu_P =
# \mu_Q$. By Hoeffding's decomposition $\mathrm{Var}\,U =
# \frac{4(n-2)}{n(n-1)}\mathrm{Var}\,h_1(Z) + \frac{2}{n(n-1)}\mathrm{Var}\,h$: under $H_0$ the
# first term is zero, the variance is $O(1/n^2)$, and $n\,\widehat{\mathrm{MMD}}{}^2_u$ (not
# $\sqrt{n}$ times it) has a limit, the weighted sum $\sum_\ell \nu_\ell (z_\ell^2 - 2)$ of
# centred chi-squares (Gretton et al. 2012, Thm 12) that the Gamma and spectral nulls
# approximate. Under $H_1$, $h_1 \ne 0$ and the statistic is asymptotically normal at scale
# $\sqrt{n}$ (notebook 12).
