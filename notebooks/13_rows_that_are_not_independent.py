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
# # When rows are not independent: time series and Markov chains
#
# **What you will learn**
# - why a permutation test needs **exchangeable** rows, and what happens to its level on
#   two unrelated but slowly drifting series;
# - how serial dependence widens the null distribution of a degenerate V-statistic (HSIC,
#   MMD², KSD²), and how kmeviz checks the row order before every i.i.d. null;
# - the **dependent wild bootstrap** ([Chwialkowski, Sejdinovic & Gretton
#   2014](https://proceedings.neurips.cc/paper/2014/hash/5b8add2a5d98b1a652ea7fd72d942dac-Abstract.html)):
#   multipliers that are themselves a slowly varying process, and why their correlation
#   length ℓ matters;
# - circular shifts of one series against the other ([Chwialkowski & Gretton
#   2014](https://proceedings.mlr.press/v32/chwialkowski14.html)), a search over lags
#   and what it costs in multiple testing;
# - the use KSD was designed for: testing the output of an MCMC sampler ([Chwialkowski,
#   Strathmann & Gretton 2016](https://proceedings.mlr.press/v48/chwialkowski16.html)).
#
# **What you need**: notebooks 02 (permutation tests), 05 (the KSD and its wild
# bootstrap) and 10 (HSIC). Runs in about half a minute on two cores.
#
# Terms are defined in the [glossary](../docs/glossary.md); the works cited are in the
# [bibliography](../docs/bibliography.md).

# %%
import holoviews as hv
import numpy as np

import kmeviz as K
from kmeviz import viz
from kmeviz.distributions.series import (
    independent_ar1_pair,
    lagged_dependence,
    random_walk_metropolis,
)

hv.extension("bokeh", logo=False, inline=True)  # BokehJS inline: works offline

# %% [markdown]
# ## 1. Permutations need exchangeable rows
#
# A permutation test of independence compares HSIC(X, Y) with HSIC(X, Y[π]) for random
# orders π. Under H0 *and exchangeable rows*, (X, Y[π]) has the law of (X, Y), so the
# statistic is one more draw of the null: the p-value is exact. Two independent AR(1)
# series x_t = φ x_{t−1} + √(1 − φ²) e_t are independent of each other, but each one's
# rows are not exchangeable: a permutation breaks the slow drift that both share by
# chance.
#
# *Predict first:* on one such pair with φ = 0.9 and n = 300, will the permutation test
# keep H0?

# %%
X, Y = independent_ar1_pair(300, 0.9, rng=1)
with np.errstate(all="ignore"):
    iid = K.hsic_test(X, Y, rows="iid", rng=0)  # rows="iid": no check, as in most libraries
print(f"permutation HSIC test: p = {iid.p_value_text()}")

# %% tags=["plot"]
viz.series_plot({"X": X, "Y": Y}) + viz.autocorrelation_plot({"X": X, "Y": Y})

# %% tags=["check", "remove-cell"]
assert iid.p_value < 0.01, iid

# %% [markdown]
# It rejects. This is not bad luck: over 200 independent pairs the permutation test
# rejects far more often than α (below; [Chwialkowski & Gretton
# 2014](https://proceedings.mlr.press/v32/chwialkowski14.html) report the same effect).
# kmeviz now checks the rows first: a Ljung–Box portmanteau test of each column's first
# five autocorrelations, at the Bonferroni level 10⁻⁴, flagging only positive serial
# dependence. The default call warns, says so in `result.fitted["note"]`, and names the
# time-series tests to use.

# %%
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    checked = K.hsic_test(X, Y, rng=0)
print(caught[0].category.__name__, "—", str(caught[0].message)[:160], "…")
check = K.serial_dependence({"X": X, "Y": Y}, family="independence")
print({name: round(info["lag1"], 2) for name, info in check.samples.items()})

# %% tags=["check", "remove-cell"]
assert caught and caught[0].category is K.SerialDependenceWarning
assert "serially dependent" in checked.fitted["note"] and check.fired

# %% [markdown]
# ## 2. Why the null is too narrow: the variance of a V-statistic under mixing
#
# HSIC_b = (1/n²) Σ_ij k̃(x_i, x_j) l̃(y_i, y_j) is a degenerate V-statistic under H0: n ·
# HSIC_b converges to a weighted sum of χ² variables, and its spread comes from the
# sums over pairs (i, j). With i.i.d. rows, only i = j pairs carry a mean; with serial
# dependence, the terms with |i − j| small are correlated too, and they add roughly
# Σ_k ρ_X(k) ρ_Y(k) times as much again: with φ = 0.9 for both series that factor is
# (1 + φ²)/(1 − φ²) ≈ 9.5. The permutation null, which destroys the order, cannot see it.
#
# Measure it: the spread of HSIC_b over 200 independent pairs, against the spread of one
# pair's permutation null.

# %%
def hsic_spread(phi, draws=200, n=200):
    values = []
    for k in range(draws):
        x, y = independent_ar1_pair(n, phi, rng=np.random.default_rng([2, k]))
        values.append(K.hsic(x, y, kernel_x=K.GaussianKernel(1.0),
                             kernel_y=K.GaussianKernel(1.0)))
    return np.std(values)


x, y = independent_ar1_pair(200, 0.9, rng=3)
permutation_null = K.hsic_test(x, y, kernel_x=K.GaussianKernel(1.0),
                               kernel_y=K.GaussianKernel(1.0), rows="iid", rng=0)
ratio = {phi: hsic_spread(phi) / np.std(permutation_null.null_samples) for phi in (0.0, 0.9)}
print({phi: round(r, 1) for phi, r in ratio.items()})

# %% tags=["check", "remove-cell"]
assert ratio[0.9] > 3 * ratio[0.0], ratio

# %% [markdown]
# The spread of the statistic over fresh pairs at φ = 0.9 is several times that at φ =
# 0 (both measured against the same permutation null's spread): the permutation null
# is too narrow by that factor, and its 95 % quantile is passed far more often than 5 %.

# %% [markdown]
# ## 3. The dependent wild bootstrap and its length ℓ
#
# The i.i.d. wild bootstrap (notebook 05) draws replicates (1/n²) Σ_ij w_i w_j h(z_i, z_j)
# with independent signs w. [Chwialkowski, Sejdinovic & Gretton
# 2014](https://proceedings.neurips.cc/paper/2014/hash/5b8add2a5d98b1a652ea7fd72d942dac-Abstract.html)
# replace them by a **multiplier process**
#
# W_1 = ε_1,  W_t = e^{−1/ℓ} W_{t−1} + √(1 − e^{−2/ℓ}) ε_t,  ε_t i.i.d. 𝒩(0, 1),
#
# stationary with unit variance and correlation E[W_s W_t] = e^{−|s−t|/ℓ}. In the
# replicate, the pairs of nearby rows now keep weight about 1, as in the true variance,
# while distant pairs are scrambled. ℓ must grow with n but slower than n: too short and
# the null is as narrow as the i.i.d. one; too long and the replicates barely vary.
# kmeviz takes ℓ from the data: τ = (1 + ρ)/(1 − ρ) from the largest lag-1
# autocorrelation ρ (for HSIC, of ρ_X ρ_Y), times a factor chosen by calibration
# (`kmeviz.timeseries.nulls.WILD_SCALES`), at most n/5 (n/10 for KSD).
#
# Measure the size at α = 0.05 on 100 independent pairs (φ = 0.9, n = 200) as ℓ grows.

# %%
def size_at(length, draws=100, n=200, phi=0.9):
    rejected = 0
    for k in range(draws):
        x, y = independent_ar1_pair(n, phi, rng=np.random.default_rng([4, k]))
        rejected += K.hsic_test(x, y, null="dependent-wild-bootstrap", wild_length=length,
                                n_resamples=200, rng=k).reject
    return rejected / draws


sizes = {length: size_at(length) for length in (0.01, 2.0, 10.0)}
default = K.hsic_test(X, Y, null="dependent-wild-bootstrap", rng=0)
print(sizes, f"— the default ℓ on section 1's pair: {default.null_params['wild_length']:.3g}, "
      f"p = {default.p_value_text()}")

# %% tags=["check", "remove-cell"]
assert sizes[0.01] > 0.3 and sizes[10.0] <= 0.12 and sizes[0.01] > sizes[2.0] > sizes[10.0]
assert default.p_value > 0.05

# %% [markdown]
# At ℓ → 0 the multipliers are independent and the test is as wrong as the permutation
# test; as ℓ reaches the series' memory the size comes down toward α. On section 1's
# pair the default ℓ keeps H0.

# %% [markdown]
# ## 4. Shifts, and a search over lags
#
# A second way to keep each series' memory: shift Y circularly by s against X. For s far
# beyond the memory of the series, (X, Y shifted by s) is an independent pair with the
# same serial structure: its HSIC is a draw of the null. kmeviz computes HSIC for *every*
# shift at once — with the centred Grams' circulant diagonals, Σ_ij K̃_ij L̃_{i+s, j+s}
# is a circular cross-correlation, one FFT per diagonal — and keeps the shifts s with
# A ≤ s ≤ n − A (A five autocorrelation times, at least 10). Neighbouring shifts give
# nearly equal statistics, so it ranks the statistic among shifts spaced by the
# autocorrelation time of the shifted statistics: a quantile read from many nearly equal
# values would be passed more often than α.
#
# The same shifted statistics answer a question the i.i.d. tests cannot ask: *does Y
# follow X with a delay?* `estimator="max-lag"` takes the largest HSIC(X_t, Y_{t+k}) over
# |k| ≤ K. Searching K lags is multiple testing; the null replicates are maxima over the
# same window of shifts, so the p-value pays for the search.

# %%
x, y = lagged_dependence(600, 3, 1.0, rng=5)
same_time = K.hsic_test(x, y, null="shift", rng=0)
searched = K.hsic_test(x, y, estimator="max-lag", null="shift", rng=0)
print(f"HSIC at lag 0 with shifts: p = {same_time.p_value_text()}; over |k| ≤ "
      f"{searched.null_params['max_lag']}: p = {searched.p_value_text()}, best lag "
      f"{searched.null_params['lag']}")

# %% tags=["check", "remove-cell"]
assert same_time.p_value > 0.05 and searched.p_value < 0.05
assert searched.null_params["lag"] == 3

# %% [markdown]
# Shifts spaced an autocorrelation time apart are few when the series remember long: about
# n/τ of them, and a p-value cannot go below 1/(their number + 1). *Blocks* give as many
# replicates as you ask for: the null of hyppo's DcorrX (Mehta et al. 2019) cuts Y, rotated
# by a random offset, into blocks of b consecutive rows (here max(⌈√n⌉, 4τ)), puts the
# blocks in a random order — every row once, each block's memory intact — and recomputes
# the lag search on each reordering.

# %%
blocked = K.hsic_test(x, y, estimator="max-lag", null="block-permutation", n_resamples=300,
                      rng=0)
print(f"over |k| ≤ {blocked.null_params['max_lag']} against {blocked.null_samples.size} "
      f"block permutations (b = {blocked.null_params['block_size']}): "
      f"p = {blocked.p_value_text()}; shifts gave {searched.null_samples.size} replicates")

# %% tags=["check", "remove-cell"]
assert blocked.p_value < 0.05 and blocked.null_samples.size == 300
assert searched.null_samples.size < 300

# %% [markdown]
# ## 5. Markov chains: the KSD test of a sampler's output
#
# The KSD test of goodness of fit was built for MCMC ([Chwialkowski, Strathmann &
# Gretton 2016](https://proceedings.mlr.press/v48/chwialkowski16.html)): does a chain
# sample from its target? Its wild bootstrap uses signs that flip with a small
# probability, a ±1 Markov chain of the same correlation e^{−|k|/ℓ}: the flip
# probability is (1 − e^{−1/ℓ})/2. With the i.i.d. signs (flip probability ½, Kalinke et
# al.'s Eq. 10) a correct but sticky chain is rejected.

# %%
chain = random_walk_metropolis(500, 0.5, rng=6)  # targets 𝒩(0, 1), small steps: sticky
target = K.NormalTarget(np.zeros(1))
iid_signs = K.ksd_test(chain, target, rows="iid", rng=0)
chain_signs = K.ksd_test(chain, target, null="dependent-wild-bootstrap", rng=0)
wrong = random_walk_metropolis(500, 1.0, target_scale=2.0, rng=6)
against_wrong = K.ksd_test(wrong, target, null="dependent-wild-bootstrap", rng=0)
print(f"correct chain: i.i.d. signs p = {iid_signs.p_value_text()}, chain signs p = "
      f"{chain_signs.p_value_text()}; a chain of 𝒩(0, 2²): p = "
      f"{against_wrong.p_value_text()}")

# %% tags=["check", "remove-cell"]
assert iid_signs.p_value < 0.05 < chain_signs.p_value and against_wrong.p_value < 0.05

# %% [markdown]
# ## Play with it
# The **Time-series explorer** below (also served by `kmeviz serve`) draws two AR(1)
# series, a lagged dependence, a change between two stretches, or a Metropolis chain;
# it shows the i.i.d. null beside the time-series null on one axis, and *Rejection
# rates* fills in both tests' rejection rates as φ grows. (Live in JupyterLab.)

# %% tags=["plot"]
import panel as pn

from kmeviz.apps import TimeSeriesExplorer

pn.extension(inline=True)
explorer = TimeSeriesExplorer(n=200)
explorer

# %% tags=["check", "remove-cell"]
assert explorer.failures() == {} and explorer.problem.startswith("independent")

# %% [markdown]
# ## Exercises
# Each `check_…` says whether your answer is right and, if not, gives a hint; it never
# shows the answer. When you are right it also says why.
# Worked answers, with the reasoning, are on the course's
# [Solutions page](../docs/course/solutions.md).
#
# **1. Implement.** Write the multiplier process: given innovations `eps` (n × B) and
# ℓ, return W with W_1 = ε_1 and W_t = e^{−1/ℓ} W_{t−1} + √(1 − e^{−2/ℓ}) ε_t down each
# column.

# %% tags=["exercise"]
from kmeviz.exercises import check_multiplier_process


def answer(eps, length):
    """The multiplier process of the innovations eps with correlation length ℓ."""
    return None  # your code


check_multiplier_process(answer)

# %% [markdown]
# **2. Predict, then explain.** As φ → 1 (n fixed), where does the permutation HSIC
# test's rejection rate on independent AR(1) pairs go: `"0"`, `"alpha"` or `"1"`?

# %% tags=["exercise"]
from kmeviz.exercises import check_iid_size_as_phi_grows

answer = None  # "0", "alpha" or "1"
check_iid_size_as_phi_grows(answer)

# %% [markdown]
# **3. Choose.** `two_stretch_data()` gives two stretches of one AR(1) series with φ =
# 0.9 (so H0: same distribution, holds). Which of `"biased/permutation"` and
# `"biased/dependent-wild-bootstrap"` do you trust? Run both first.

# %% tags=["exercise"]
from kmeviz.exercises import check_two_stretch_test, two_stretch_data

X1, X2 = two_stretch_data()
answer = None  # one of the two test names
check_two_stretch_test(answer)

# %% [markdown]
# ## Problems
# Derivations to do on paper, one step at a time; the instructor edition of the course has the
# worked solutions.
#
# **P1. How much wider.** For a stationary sequence with autocovariance $\gamma(\tau)$, show that
# $\mathrm{Var}(\frac1n\sum_t f_t) = \frac1n\sum_{|\tau| < n}(1 - \frac{|\tau|}{n})\gamma(\tau)$
# and, for an AR(1) with coefficient $\phi$, that it is about $\frac{\gamma(0)}{n}\frac{1 +
# \phi}{1 - \phi}$. How many times the i.i.d. variance is that at $\phi = 0.9$, and what does it
# do to a permutation test (§1–§2)?
#
# **P2. Why the wild bootstrap works under mixing.** The bootstrap statistic is
# $\frac1n\sum_{s,t}W_sW_t\,h(x_s, x_t)$ with a multiplier process of correlation $\rho(s - t) =
# e^{-|s - t|/\ell}$. Compute its mean over $W$ given the data and compare it with the null mean
# of the statistic $\frac1n\sum_{s,t}h(x_s, x_t)$ for a degenerate $h$. What goes wrong with
# i.i.d. multipliers ($\ell \to 0$), and why must $\ell$ grow with $n$ but slower than $n$
# (Leucht & Neumann 2013; Chwialkowski et al. 2014)?

# %% [markdown] tags=["solution"]
# ### Solutions (instructor edition)
# **P1.** $\mathrm{Var}(\frac1n\sum_t f_t) = \frac{1}{n^2}\sum_{s,t}\gamma(s - t)$, and lag
# $\tau$ occurs $n - |\tau|$ times. For the AR(1), $\gamma(\tau) = \gamma(0)\phi^{|\tau|}$ and
# $\sum_\tau \phi^{|\tau|} = 1 + \frac{2\phi}{1 - \phi} = \frac{1 + \phi}{1 - \phi}$ (the
# $|\tau|/n$ correction vanishes for large $n$). At $\phi = 0.9$ that is 19 times the i.i.d.
# variance, a spread $\sqrt{19} \approx 4.4$ times wider. A permutation destroys the order, so
# its null has the i.i.d. spread: the observed statistic falls in its far tail under $H_0$ and
# the test rejects far too often.
#
# **P2.** $\mathbb{E}_W[\frac1n\sum_{s,t}W_sW_th_{st}] = \frac1n\sum_{s,t}\rho(s - t)h_{st}$: the
# statistic's own sum with lag $\tau$ weighted by $e^{-|\tau|/\ell}$. For a degenerate $h$ the
# statistic's null mean is $\sum_{|\tau|<n}(1 - \frac{|\tau|}{n})\mathbb{E}\,h(x_0, x_\tau)$, the
# long-run sum that mixing makes depend on short lags only. With $\ell \to 0$ only the lag-0 term
# $\frac1n\sum_t h_{tt}$ remains: the i.i.d. null, too narrow. If $\ell$ grows, the weights tend
# to 1 on the lags that matter and the bootstrap mean tends to the long-run sum; if $\ell/n \to
# 0$, few distant, noisy lags get weight, so the bootstrap distribution converges (a tapered,
# HAC-like estimate).
