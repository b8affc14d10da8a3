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
# - FastMMD + bootstrap: power as a function of the number of frequencies L (FastMMD Fig. 8a).
#
# **What you need**: notebook 01 (MMD and FastMMD). Runs in about half a minute.

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
# Is the observed MMD² large? Only compared with what MMD² looks like when P = Q. Pooling
# both samples and relabelling them at random makes P = Q true by construction; the
# statistics of B relabellings form the **permutation null**. kmeviz computes all B of them
# as one matrix product with the joint Gram matrix.

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
# ## 2. Permutation vs Gamma vs spectral
#
# The Gamma null matches the mean and variance of the asymptotic law
# MMD²_b ≈ (1/m + 1/n) Σ λ_l z_l²; the spectral null simulates that law from the
# eigenvalues λ_l of the centred Gram matrix. Both avoid the B replicates.

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
# ## 3. Size and power
#
# A test of level α should reject a true H0 at most a fraction α of the time (its
# **size**); under H1, the rejection rate is its **power**. We estimate both over repeated
# draws, with exact (Clopper–Pearson) 95% intervals. B = 99 keeps it quick — the
# permutation test is exact for any B with α(B + 1) an integer.

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
print("size (P = Q = N(0, I)):")
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

# %% tags=["plot"]
power_plot = viz.rejection_plot(power)
power_plot

# %% tags=["check", "remove-cell"]
assert np.allclose(power_plot.traverse(lambda e: e, [hv.Scatter])[0].dimension_values(1),
                   power.rate)

# %% [markdown]
# The linear-time test is cheap but weak: it uses only n/2 kernel values. Asymptotic
# nulls are approximations: on the blob grid with σ = 1 (a kernel much narrower than the
# grid spacing) the Gamma and spectral tests come out conservative at n = 200 (about 3%
# instead of 5% over 1000 draws), while the permutation test stays exact.

# %% [markdown]
# ## 4. FastMMD + bootstrap: power vs L (a small Fig. 8a)
#
# Permuting the rows of the n × 2L random-feature matrix gives FastMMD's null at O(L n)
# per replicate. More frequencies, better approximation of MMD, more power.

# %%
fig8a = fastmmd_type2_vs_L(Ls=(1, 4, 16, 64), n=300, epsilon=4.0, n_repeats=20,
                           n_resamples=99, rng=3)
cols = ["L", "type2_error", "type2_ci_low", "type2_ci_high"]
print(fig8a[cols].round(2).to_string(index=False))

# %% tags=["check", "remove-cell"]
# More frequencies, more power: over 20 repeats a step in L may raise the type-II error
# only within the previous value's 95% interval, and the largest L beats L = 1 outright.
errors, high = fig8a.type2_error.to_numpy(), fig8a.type2_ci_high.to_numpy()
assert np.all(errors[1:] <= high[:-1]) and errors[-1] < fig8a.type2_ci_low.iloc[0]

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
# shows the answer.
#
# **1.** On the first 20 points of each sample of `X, Y = mmd_data()`, run the biased
# MMD test with a Gaussian kernel of bandwidth 1, the permutation null, B = 999 and
# `rng=0`. What is its p-value? (Try all 200 points too: why is the p-value then 1/1000?)

# %%
from kmeviz.exercises import check_permutation_p_value, check_size_interval_upper, mmd_data

X, Y = mmd_data()
answer = None  # the p-value
check_permutation_p_value(answer)

# %% [markdown]
# **2.** A test rejected 12 times in 200 draws under H0. What is the upper end of the 95 %
# confidence interval of its type-I error? Is α = 0.05 inside the interval?

# %%
answer = None  # the upper end of the interval
check_size_interval_upper(answer)
