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
# # Scaling out: ten million points on a dask cluster
#
# **What you will learn**
# - why the Nyström, random-feature, linear-time and block estimators scale: each reduces
#   the sample to sums over its rows, which can be computed chunk by chunk where the
#   chunks live, and added;
# - how to give kmeviz a `dask.array` that is never held in memory (here 10⁷ points drawn
#   lazily) and run a Nyström MMD two-sample test on it;
# - that the numbers are those of the in-memory path, and that the experiment runners run
#   their trials on the same cluster with identical tables.
#
# **What you need**: notebooks 02 and 03, and `pip install "kmeviz[dask]"`. Runs in about
# half a minute on two cores.
#
# Terms are defined in the [glossary](../docs/glossary.md); the works cited are in the
# [bibliography](../docs/bibliography.md).

# %%
import holoviews as hv
import numpy as np
from distributed import Client, LocalCluster

import kmeviz as K
from kmeviz import viz
from kmeviz.chunked import lazy_sample
from kmeviz.experiments import ksd_power

hv.extension("bokeh", logo=False, inline=True)  # BokehJS inline: works offline

# %% [markdown]
# ## 1. A cluster
#
# A `LocalCluster` starts a scheduler and worker processes on this machine; on a real
# cluster you would write `Client("tcp://scheduler-address:8786")` instead and change
# nothing else. The dashboard link shows the chunks being computed, worker by worker,
# while the cells below run.
#
# What runs where: the scheduler keeps a graph of tasks (draw chunk k, reduce it to its
# sums, add the sums) and hands each task to a worker, preferring the worker that already
# holds the task's input, so that chunks stay where they were made and only their small
# results move. Each worker here is a separate process with one thread, so two workers use
# the two cores of this machine; more workers than cores would only take turns. Nothing
# in kmeviz knows how many workers there are: the same code runs on one process or on a
# hundred machines.

# %%
cluster = LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                       dashboard_address=":0")
client = Client(cluster)
print("dask dashboard:", client.dashboard_link)

# %% [markdown]
# ## 2. Ten million points that are never in memory
#
# `lazy_sample(draw, n, dim=…, chunk_rows=…)` builds a dask array whose chunk k is
# `draw(rows, g_k)`, with g_k a generator of its own child seed: a chunk is the same
# whenever and wherever it is computed. X and Y are 𝒩(0, I₅) and the same law with its
# first coordinate shifted by δ = 0.004 — a difference far too small to see with a few
# thousand points.

# %%
def normal(shift, rows, rng):
    Z = rng.standard_normal((rows, 5))
    Z[:, 0] += shift
    return Z


n = 5_000_000  # per sample: 10⁷ points in all
X = lazy_sample(lambda rows, g: normal(0.0, rows, g), n, dim=5, chunk_rows=500_000, rng=1)
Y = lazy_sample(lambda rows, g: normal(0.004, rows, g), n, dim=5, chunk_rows=500_000, rng=2)
print(X)
print(f"{X.nbytes / 2**20:.0f} MiB per sample if it were loaded; chunks of "
      f"{X.chunks[0][0] * 5 * 8 / 2**20:.0f} MiB")

# %% [markdown]
# ## 3. A pooled-landmark Nyström MMD test on all of it
#
# `mmd_test(estimator="pooled-nystrom", null="spectral")` draws m landmarks z₁, …, z_m from
# the pooled sample (only their chunks are read). With R such that RᵀR = K_zz⁺, each point
# gets m features F(x) = R k(z, x), whose inner products are the Nyström kernel, and the
# statistic is the squared distance of the two feature means:
#
# $$T = \Big\|\frac1{n_X}\sum_{i=1}^{n_X} F(x_i) - \frac1{n_Y}\sum_{j=1}^{n_Y} F(y_j)\Big\|^2 .$$
#
# This is the squared **pooled-landmark** Nyström MMD: both samples are projected on the
# *same* m landmarks. It is not the Nyström-embedding MMD of notebook 03 (`mmd2_nystrom`,
# Chatalic et al., [Sec. 5](https://arxiv.org/abs/2201.13055)), which fits each sample's
# embedding on its own landmarks. Shared landmarks are what make T a function of the
# pooled features, so that relabelling the pooled sample (the null) leaves them unchanged.
# Its null is the spectral null of Gretton et al.,
#
# $$T \;\overset{H_0}{\approx}\; \Big(\frac1{n_X} + \frac1{n_Y}\Big)\sum_{j=1}^m \nu_j Z_j^2
# ,$$
#
# with ν_j the eigenvalues of the covariance of F over the pooled sample (m × m, whatever
# n is) and Z_j independent standard normals. Both need only Σ F and Σ F Fᵀ, m + m² numbers
# per chunk: a chunk of 500 000 × 5 values is reduced where it lives to 100 + 10 000
# numbers, and only those travel. That is what makes an estimator scale out. The exact
# MMD, whose n × n Gram matrix couples every pair of points, cannot be cut up this way.

# %%
kernel = K.GaussianKernel(2.0)
big = K.mmd_test(X, Y, kernel, estimator="pooled-nystrom", null="spectral", n_landmarks=100,
                 rng=3)
print(f"n = 2 × {n:,}: MMD² = {big.statistic:.3e}, p = {big.p_value:.4f}, "
      f"reject H0: {big.reject}")

small = K.mmd_test(X[:5000].compute(), Y[:5000].compute(), kernel,
                   estimator="pooled-nystrom", null="spectral", n_landmarks=100, rng=3)
print(f"n = 2 × 5,000:     MMD² = {small.statistic:.3e}, p = {small.p_value:.4f}, "
      f"reject H0: {small.reject}")

# %% tags=["plot"]
viz.null_histogram(big, title_prefix="10⁷ points: ")

# %% [markdown]
# The histogram is the simulated spectral null; the statistic sits far in its tail.
#
# **Reading the result.** For two Gaussians the population MMD² is a closed form. With
# X − X′ ∼ 𝒩(0, 2I₅) and bandwidth σ = 2,
#
# $$\mathrm{MMD}^2 = 2\Big(\frac{\sigma^2}{\sigma^2 + 2}\Big)^{5/2}
# \Big(1 - e^{-\delta^2 / (2(\sigma^2 + 2))}\Big) \approx 9.7\cdot 10^{-7}
# \quad\text{at } \delta = 0.004 .$$
#
# The statistic, 1.43·10⁻⁶, is about that plus the null's mean, 2.4·10⁻⁷: T estimates
# the squared distance plus the squared noise of the two means. The remaining 0.2·10⁻⁶ is
# well within the sampling noise of the signal itself. At n = 5000 the null's mean is
# 1000 times larger, 2.4·10⁻⁴, and the signal is 1 % of the null's standard deviation:
# that test sees only noise (p = 0.54).
#
# This gives a rule for the sample size. The signal MMD² stays put while the null shrinks
# like 1/n, so a difference is found once n is a few times Σν_j / MMD². Since MMD² grows
# like δ², halving δ needs four times the data.

# %% tags=["check", "remove-cell"]
# Checks run by the test suite (tests/test_notebooks.py); they compare values, never bytes.
# δ = 0.004 in 𝒩(0, I₅): MMD² ≈ δ² × (k-dependent factor) ~ 1e-6, found at 10⁷, not 10⁴.
assert big.reject and big.p_value < 0.01
assert not small.reject
assert 1e-7 < big.statistic < 1e-5
# The null is centred at (1/n_X + 1/n_Y) Σν, the statistic far above its 99th percentile.
assert big.statistic > np.quantile(big.null_samples, 0.99)
# The text's reading: the closed-form MMD² (9.7e-7), the statistic ≈ MMD² + null mean
# (within 3 null standard deviations and 1e-6 absolute), the null's mean scaling as 1/n,
# and the small test's signal at ~1 % of its null's standard deviation.
sigma2, delta = 4.0, 0.004
population = 2 * (sigma2 / (sigma2 + 2)) ** 2.5 * (1 - np.exp(-delta**2 / (2 * (sigma2 + 2))))
assert np.isclose(population, 9.677e-7, rtol=1e-3)
assert np.isclose(big.statistic, 1.4257e-6, rtol=1e-3)
assert np.isclose(big.null_samples.mean(), 2.4e-7, rtol=0.05)
assert np.isclose(small.null_samples.mean() / big.null_samples.mean(), 1000, rtol=0.05)
assert 0.005 < population / small.null_samples.std() < 0.02
assert np.isclose(small.p_value, 0.54, atol=0.01)

# %% [markdown]
# ## 4. The same numbers as in memory
#
# On a slice small enough to load, the dask path and the numpy path agree to round-off
# (they add the same numbers in another order).

# %%
Xs, Ys = X[:400_000], Y[:400_000]
on_dask = K.mmd_test(Xs, Ys, kernel, estimator="pooled-nystrom", null="spectral",
                     n_landmarks=100, rng=4)
in_memory = K.mmd_test(Xs.compute(), Ys.compute(), kernel, estimator="pooled-nystrom",
                       null="spectral", n_landmarks=100, rng=4)
print(f"statistic: dask {on_dask.statistic:.15e}\n           numpy {in_memory.statistic:.15e}")
print(f"relative difference {abs(on_dask.statistic / in_memory.statistic - 1):.1e}")

# %% [markdown]
# Here they agree to about the last digits printed (the relative difference above). Exact
# agreement would be luck of the order, not a promise: the cluster may add the chunks'
# sums in any order, and floating-point addition is not associative, so differences of
# about 10⁻¹⁵ relative are normal, and they depend on the machine. The check allows
# 10⁻¹⁰.

# %% tags=["check", "remove-cell"]
assert np.isclose(on_dask.statistic, in_memory.statistic, rtol=1e-10, atol=0)
assert on_dask.p_value == in_memory.p_value

# %% [markdown]
# ## 5. Experiments on the cluster
#
# Every runner takes `executor=`: any `concurrent.futures.Executor`, here the cluster's.
# Each draw has its own child seed (`SeedSequence.spawn`), so the table is the same as
# the serial one — only the `runtime_s` column, a wall-clock time, differs.
#
# The seeds are the point. Had the draws shared one generator, the numbers each draw got
# would depend on which worker asked first, and no two runs would agree. A child seed is
# a function of the parent seed and the draw's index only, so draw 17 is the same draw on
# a laptop, on this cluster or on a hundred machines. The task here is the KSD power of
# notebook 05 (Laplace against 𝒩(0, I₃), 20 draws): small, so that it runs in seconds, but
# the same call runs the paper's 500 draws with `kmeviz reproduce nksd-fig1b --workers 8`.

# %%
serial = ksd_power("laplace", [3], n=300, n_repeats=20, n_resamples=200, rng=0)
parallel = ksd_power("laplace", [3], n=300, n_repeats=20, n_resamples=200, rng=0,
                     executor=client.get_executor())
print(parallel[["test", "rejections", "rate", "ci_low", "ci_high"]].to_string(index=False))
same = serial.drop(columns="runtime_s").equals(parallel.drop(columns="runtime_s"))
print("identical to the serial table:", same)

# %% tags=["check", "remove-cell"]
assert same
assert (parallel["repeats"] == 20).all()

# %%
client.close()
cluster.close()

# %% [markdown]
# ## Try it
#
# - Halve δ: how many points does the test need to keep rejecting? (MMD² scales as δ², and
#   the null as 1/n.)
# - Replace `LocalCluster(...)` by `Client("tcp://<scheduler>:8786")` on a real cluster.

# %% [markdown]
# ## Exercises
# Each `check_…` says whether your answer is right and, if not, gives a hint; it never
# shows the answer.
# Worked answers, with the reasoning, are on the course's
# [Solutions page](../docs/course/solutions.md).
#
# **1.** How many chunks has `lazy_sample(draw, 2_500_000, dim=3, chunk_rows=1_000_000)`?
# Build it (nothing is drawn until you compute) and look.

# %% tags=["exercise"]
from kmeviz.exercises import check_chunk_count, check_exact_on_dask

answer = None  # the number of chunks
check_chunk_count(answer)

# %% [markdown]
# **2.** Which of `"mmd2"`, `"mmd2_linear"`, `"mmd2_nystrom"` refuses a dask array, and
# why? (Try it: the error names the alternatives.)

# %% tags=["exercise"]
answer = None  # the estimator's name
check_exact_on_dask(answer)


# %% [markdown]
# **3. Implement.** Write the linear-time MMD² from disjoint pairs (x₁, x₂), (x₃, x₄), …
# (the formula of notebook 08, §2), given `k(A, B)`, the kernel values of the rows of A
# and B pair by pair. Why is it O(n) in time *and* memory, and why do dask chunks suit
# it?

# %% tags=["exercise"]
from kmeviz.exercises import check_linear_mmd2


def answer(X, Y, k):
    """The linear-time MMD² of X and Y."""
    return None  # your code


check_linear_mmd2(answer)


# %% [markdown]
# **4. Implement.** Write the B-test statistic: the mean of the unbiased MMD²
# (`K.mmd2(..., estimator="unbiased")`) of consecutive disjoint blocks of `block_size`
# points of each sample. Where does it sit between the linear-time and the quadratic
# estimate, in cost and in variance?

# %% tags=["exercise"]
from kmeviz.exercises import check_block_mmd2


def answer(X, Y, kernel, block_size):
    """The B-test statistic."""
    return None  # your code


check_block_mmd2(answer)

# %% [markdown]
# ## Problems
# Derivations to do on paper, one step at a time; the instructor edition of the course has the
# worked solutions.
#
# **P1. The linear-time statistic.** For disjoint pairs, let $h_i = k(x_{2i-1}, x_{2i}) +
# k(y_{2i-1}, y_{2i}) - k(x_{2i-1}, y_{2i}) - k(x_{2i}, y_{2i-1})$. Show that $\mathbb{E}\,h_i =
# \mathrm{MMD}^2$, that the $h_i$ are i.i.d., and deduce a normal null whose variance the data
# estimate (Gretton et al. 2012, Sec. 6).
#
# **P2. Blocks interpolate.** The B-test averages the unbiased MMD² of $n/b$ disjoint blocks of
# $b$ points. Show it is unbiased and that under $H_0$ its variance is about
# $2\,\mathrm{Var}\,h/(nb)$. What do $b = 2$ and $b = n$ give, and at what cost in time?

# %% [markdown] tags=["solution"]
# ### Solutions (instructor edition)
# **P1.** Each of the four terms has the expectation of the matching term of $\mathrm{MMD}^2$
# (the points of a pair are independent draws), and pairs use disjoint rows, so the $h_i$ are
# independent and identically distributed. By the central limit theorem $\sqrt{n/2}\,(\bar h -
# \mathrm{MMD}^2) \to \mathcal{N}(0, \mathrm{Var}\,h)$, and $\mathrm{Var}\,h$ is estimated by the
# sample variance of the $h_i$: no permutations, $O(n)$ time and memory.
#
# **P2.** Each block's $\widehat{\mathrm{MMD}}{}^2_u$ is unbiased, so their mean is. Blocks are
# independent; under $H_0$ a block's statistic is degenerate with variance
# $\frac{2\,\mathrm{Var}\,h}{b(b-1)} \approx \frac{2\,\mathrm{Var}\,h}{b^2}$ (notebook 02, P2),
# so the mean of $n/b$ of them has variance $\frac{b}{n}\cdot\frac{2\,\mathrm{Var}\,h}{b^2} =
# \frac{2\,\mathrm{Var}\,h}{nb}$. $b = 2$ is the linear statistic; $b = n$ the full U-statistic.
# The time is $O(nb)$: a larger block buys a smaller variance, hence power.
