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
# # Independence: do X and Y depend on each other? (HSIC)
#
# **What you will learn**
# - why a correlation near 0 does not mean independence, and what does;
# - the **Hilbert–Schmidt independence criterion** (**HSIC**, [Gretton et al.
#   2005](https://doi.org/10.1007/11564089_7)) as the MMD between the joint law P_XY and
#   the product of its marginals P_X ⊗ P_Y, under the **product kernel** k ⊗ l;
# - the **cross-covariance operator**, the centred-Gram formula tr(KHLH)/n² and the
#   witness of dependence, the picture of *where* X and Y depend;
# - three nulls (permutations, a Gamma law, eigenvalues) and when each is valid;
# - how the power depends on the bandwidth, and what the linear-time versions ([Zhang et
#   al. 2018](https://doi.org/10.1007/s11222-016-9721-7)) cost in power; and **dHSIC**
#   ([Pfister et al. 2018](https://doi.org/10.1111/rssb.12235)) for more than two variables.
#
# **What you need**: notebooks 01 (the MMD and its witness) and 02 (permutation tests).
# Runs in about half a minute on two cores.
#
# Terms are defined in the [glossary](../docs/glossary.md); the works cited are in the
# [bibliography](../docs/bibliography.md).

# %%
import holoviews as hv
import numpy as np

import kmeviz as K
from kmeviz import viz
from kmeviz.distributions.dependence import rotated_sources, sinusoid, xor

hv.extension("bokeh", logo=False, inline=True)  # BokehJS inline: works offline

# %% [markdown]
# ## 1. Correlation is not dependence
#
# Draw two independent uniform sources and turn them by θ = π/4: X and Y are the two
# coordinates of a square standing on its corner ([Gretton et al.
# 2005](https://doi.org/10.1007/11564089_7)'s ICA benchmark). *Predict first:* what is
# Pearson's correlation r of X and Y? Are they independent?

# %% [markdown]
# **Exercise 2 (predict before you read on).** With `X, Y = rotated_data()` (300 pairs
# of section 1's sources, θ = π/4), does `K.hsic_test(X, Y, rng=0)` `"reject"` or
# `"keep"` H0 at α = 0.05? Predict from Pearson's r alone first; then run it and explain
# the difference.

# %% tags=["exercise"]
from kmeviz.exercises import check_rotated_sources_decision, rotated_data

X, Y = rotated_data()
answer = None  # "reject" or "keep"
check_rotated_sources_decision(answer)

# %%
X, Y = rotated_sources(300, np.pi / 4, rng=0)
r = np.corrcoef(X[:, 0], Y[:, 0])[0, 1]
result = K.hsic_test(X, Y, rng=0)
print(f"Pearson r = {r:.3f}; HSIC test p-value = {result.p_value_text()}")

# %% tags=["plot"]
viz.joint_sample_plot(X, Y, title=f"Rotated sources, θ = π/4: r = {r:.3f}")

# %% [markdown]
# The correlation is 0 (up to sampling noise): a rotation of two independent sources of
# equal variance leaves the covariance matrix a multiple of I. Yet X and Y are not
# independent: where |x| is near its largest value, y is pinned near 0. Every vertical
# slice of the square has another spread of y. HSIC's test rejects at once.

# %% tags=["check", "remove-cell"]
assert abs(r) < 0.1 and result.p_value < 0.01, (r, result.p_value)

# %% [markdown]
# ## 2. HSIC: the MMD between the joint law and the product of the marginals
#
# X and Y are independent exactly when P_XY = P_X ⊗ P_Y. Notebook 01 measured the
# distance between two laws by the MMD; here the two laws live on pairs (x, y), so the
# kernel is one on pairs, the product kernel k((x, y), (x', y')) = k(x, x') l(y, y'). The
# mean embedding of P_X ⊗ P_Y is μ_X ⊗ μ_Y, and HSIC = ‖μ_XY − μ_X ⊗ μ_Y‖².
#
# From a sample, P_XY is the n pairs (xᵢ, yᵢ), and P_X ⊗ P_Y is all n² pairs (xᵢ, yⱼ).
# The biased MMD² between those two samples simplifies to the centred-Gram formula
#
# HSIC_b = tr(K H L H) / n², with K = [k(xᵢ, xⱼ)], L = [l(yᵢ, yⱼ)], H = I − 11ᵀ/n
#
# ([Gretton et al. 2008](https://papers.nips.cc/paper/3201), Eq. 4). Let us check all
# three on the XOR data: Y's sign is a function of |X| < ½, and r is again 0.

# %%
X, Y = xor(60, 0.1, rng=1)
k = K.GaussianKernel(0.5)
Kx, Ly = k.gram(X, X), k.gram(Y, Y)
n = len(X)
H = np.eye(n) - np.ones((n, n)) / n
by_formula = np.trace(Kx @ H @ Ly @ H) / n**2

i, j = np.divmod(np.arange(n * n), n)  # every pair (x_i, y_j): the product sample


def mean_product_gram(A, B):
    return np.mean(k.gram(A[0], B[0]) * k.gram(A[1], B[1]))


joint, product = (X, Y), (X[i], Y[j])
by_mmd = (mean_product_gram(joint, joint) + mean_product_gram(product, product)
          - 2 * mean_product_gram(joint, product))
by_kmeviz = K.hsic(X, Y, kernel_x=k, kernel_y=k)
print(f"tr(KHLH)/n² = {by_formula:.8f}\nMMD²(joint, product) = {by_mmd:.8f}\n"
      f"K.hsic = {by_kmeviz:.8f}")

# %% [markdown]
# The three agree to rounding. `K.hsic` never forms H or the n² product sample: the
# formula needs only Σ K∘L, the row sums K1 and L1 (and the diagonals for the unbiased
# HSIC_u of [Song et al. 2012](https://jmlr.org/papers/v13/song12a.html)), one threaded
# pass over the Gram tiles in O(n) memory per tile row.

# %% tags=["check", "remove-cell"]
assert abs(by_formula - by_mmd) < 1e-10 * by_formula
assert abs(by_formula - by_kmeviz) < 1e-10 * by_formula

# %% [markdown]
# ## 3. The cross-covariance operator and the witness of dependence
#
# μ_XY − μ_X ⊗ μ_Y is the **cross-covariance operator** C_XY = E[(φ(X) − μ_X) ⊗ (ψ(Y) −
# μ_Y)]: the covariance of the features of X with those of Y, every feature against
# every feature. Its squared Hilbert–Schmidt norm (the sum of its squared entries in any
# orthonormal basis) is HSIC; with linear kernels it is the squared covariance, so HSIC with a
# characteristic kernel sees every kind of dependence, the covariance only the linear
# one.
#
# As a function of a pair (u, v), the empirical C_XY is the witness
# w(u, v) = (1/n) Σᵢ k(xᵢ, u) l(yᵢ, v) − [(1/n) Σᵢ k(xᵢ, u)] [(1/n) Σⱼ l(yⱼ, v)]:
# positive where pairs occur more often than the marginals predict.

# %%
X, Y = sinusoid(400, 1.0, rng=2)
grid = np.linspace(-np.pi, np.pi, 60)
kx, ky = K.GaussianKernel(1.0), K.GaussianKernel(1.0)
W = K.hsic_witness(X, Y, grid, grid, kernel_x=kx, kernel_y=ky)
value = K.hsic(X, Y, kernel_x=kx, kernel_y=ky)

# %% tags=["plot"]
viz.dependence_witness_plot(grid, grid, W, X, Y, hsic_b=value)

# %% [markdown]
# The sinusoid's density is ∝ 1 + sin(x) sin(y): more pairs where sin x and sin y share
# their sign. The witness is red in those two quadrants and blue in the others. Its
# squared norm is HSIC_b, and averaging it over the joint sample minus over all pairs
# gives the same number: (1/n) Σᵢ w(xᵢ, yᵢ) − (1/n²) Σᵢⱼ w(xᵢ, yⱼ) = ‖w‖² = HSIC_b.

# %%
W_sample = K.hsic_witness(X, Y, X, Y, kernel_x=kx, kernel_y=ky)
identity = np.mean(np.diag(W_sample)) - W_sample.mean()
print(f"witness identity {identity:.8f} vs HSIC_b {value:.8f}")

# %% tags=["check", "remove-cell"]
assert abs(identity - value) < 1e-9 * value
assert W[15, 15] > 0 and W[15, 45] < 0  # red at (−π/2, −π/2), blue at (−π/2, π/2)

# %% [markdown]
# ## 4. Three nulls, and when each is valid
#
# Under H0 (independence), pairing xᵢ with any other yⱼ is as likely as with yᵢ. So:
#
# - **permutations**: recompute HSIC with Y's rows shuffled B times. Exact at every n
#   (the observed pairing is one of the equally likely ones), and kmeviz does it without
#   recomputing a kernel: each replicate is Σ K̃∘L̃[π, π] of the centred Grams held once,
#   as low-rank factors when their spectra decay;
# - **Gamma**: n·HSIC_b is matched to a Gamma law by its H0 mean and variance,
#   closed forms in the Grams ([Gretton et al. 2008](https://papers.nips.cc/paper/3201));
#   asymptotic, fast;
# - **spectral**: n·HSIC_b tends to Σ νₐ ν'_b z²_ab, z i.i.d. 𝒩(0, 1), with νₐ and ν'_b the
#   eigenvalues of K̃/n and L̃/n (for HSIC: [Zhang et al.
#   2011](https://arxiv.org/abs/1202.3775), the unconditional case of KCI, as [Gretton et
#   al. 2009](https://papers.nips.cc/paper/3738) did for MMD); simulated from the
#   eigenvalues, asymptotic.
#
# The null distributions on the sinusoid, with the statistic:

# %%
X, Y = sinusoid(200, 1.0, rng=3)
tests = {null: K.hsic_test(X, Y, null=null, rng=0) for null in ("permutation", "gamma",
                                                                 "spectral")}
for null, res in tests.items():
    print(f"{null:12s} p = {res.p_value_text():>8s}  threshold {res.threshold:.5f}")

# %% tags=["plot"]
viz.null_histogram(tests["permutation"], statistic="HSIC")

# %% [markdown]
# The three thresholds are close at n = 200. How do they fare at a small n? The size
# (rejection rate under independence) over 400 draws of n = 20 independent pairs, with
# its 99 % Clopper–Pearson interval:

# %%
from kmeviz.experiments import independence_size_table

size = independence_size_table(n=20, n_repeats=400, rng=5,
                               tests=["biased/permutation", "biased/gamma", "biased/spectral"])
size[["test", "rate", "ci_low", "ci_high"]].round(3)

# %% [markdown]
# All three keep α = 0.05 inside their intervals here. The permutation test does so by
# construction. The Gamma and spectral nulls are asymptotic, and the table says only that
# at n = 20 their rates are within these intervals, which at 400 draws span about ±0.03
# (a size near 0.07 would pass): it does not show that n·HSIC_b has reached its limit.
# At a given n, the Gamma and spectral nulls are approximations that a permutation test does not
# need, and they are worth it only when B permutations cost too much.

# %% tags=["check", "remove-cell"]
thresholds = [res.threshold for res in tests.values()]
assert max(thresholds) / min(thresholds) < 1.3, thresholds
assert size["within_interval"].all(), size
assert ((size["ci_high"] - size["ci_low"]) / 2).between(0.02, 0.035).all(), size  # "±0.03"

# %% [markdown]
# ## 5. Power against the frequency ℓ, and the bandwidth
#
# The sinusoid p(x, y) ∝ 1 + sin(ℓx) sin(ℓy) ([Sejdinovic et al.
# 2013](https://doi.org/10.1214/13-AOS1140)) hides its dependence in a checkerboard of
# cells π/ℓ wide: the higher ℓ, the finer. It is the benchmark of the aggregated HSIC
# test ([Albert et al. 2022](https://doi.org/10.1214/21-AOS2103), with permutations and
# their own collections). kmeviz's HSICAgg takes the defaults of Schrab et al.'s code
# (`agginc`, [Schrab et al. 2022](https://arxiv.org/abs/2206.09194)): 25 bandwidth pairs
# (λ = 2ⁱ times the median distance in exp(−d²/λ²), i = −2, …, 2, on each variable),
# MMDAgg's level correction, and a wild bootstrap of the full centred Grams (agginc's
# null, without its incomplete U-statistic). *Predict first:* which frequency is hardest
# for a Gaussian kernel at the median heuristic (about 1.8 here)?

# %% [markdown]
# **Exercise 3 (predict before you read on).** On the sinusoid at ℓ = 2 with n = 200,
# which of `"biased/permutation"`, `"hsicagg"`, `"nystrom/spectral"` and
# `"block/normal"` keeps its power? Explain with the bandwidths each one uses.

# %% tags=["exercise"]
from kmeviz.exercises import check_test_for_frequency_two

answer = None  # one of the four test names
check_test_for_frequency_two(answer)

# %%
from kmeviz.experiments import sinusoid_power_table

power = sinusoid_power_table(frequencies=(1, 2, 4), n=200, n_repeats=40, rng=3,
                             tests=["biased/permutation", "hsicagg", "block/normal"])
power.pivot(index="test", columns="frequency", values="rate")

# %% [markdown]
# At ℓ = 1 every test rejects almost always. At ℓ = 2 the median-heuristic test falls to
# its level: a Gaussian exp(−d²/(2σ²)) weighs the frequency ℓ of one variable by
# exp(−σ²ℓ²/2), about 0.0015 for σ = 1.8, ℓ = 2, and HSIC sees the term sin(ℓx) sin(ℓy)
# through both kernels, weighed by the product of the two, about 2 · 10⁻⁶: the pattern is
# smoothed away. HSICAgg's smallest bandwidth pair sees it: its λ = median/4 in
# exp(−d²/λ²) is σ = λ/√2 ≈ 0.32, a weight of about 0.8 per variable, 0.66 for both.
# At ℓ = 4 the cells are finer still, and the two tests cannot be told apart: each
# rejects a few of the 40 draws, a difference within the sampling error of 40 draws
# (the check below bounds it).

# %% tags=["check", "remove-cell"]
rate = power.set_index(["test", "frequency"])["rate"]
assert rate[("biased/permutation", 1)] > 0.9 and rate[("hsicagg/wild-bootstrap", 1)] > 0.9
assert rate[("biased/permutation", 2)] < 0.3 < 0.8 < rate[("hsicagg/wild-bootstrap", 2)]
assert rate[("hsicagg/wild-bootstrap", 4)] < 0.4 and rate[("biased/permutation", 4)] < 0.3
# "cannot be told apart": a difference of rates under 0.2 at 40 draws each (Fisher's exact
# test of two such counts is far from significant)
assert abs(rate[("hsicagg/wild-bootstrap", 4)] - rate[("biased/permutation", 4)]) < 0.2
median = K.median_heuristic(sinusoid(200, 2.0, rng=3)[0])
assert abs(median - 1.8) < 0.1


def weight(sigma, frequency=2.0):  # a Gaussian exp(−d²/(2σ²)) on the frequency ℓ
    return np.exp(-(sigma**2) * frequency**2 / 2)


assert abs(weight(median) - 0.0015) < 0.0005 and 1e-6 < weight(median) ** 2 < 4e-6
smallest = median / (4 * np.sqrt(2))  # λ = median/4 in exp(−d²/λ²)
assert abs(smallest - 0.32) < 0.02 and abs(weight(smallest) ** 2 - 0.66) < 0.04
assert 0.0005 < np.exp(-(median**2) * 2**2 / 2) < 0.002  # "about 0.001"

# %% [markdown]
# ## 6. Linear-time HSIC, and its price in power
#
# The exact tests cost O(n²) kernel evaluations. For millions of pairs, [Zhang et al.
# 2018](https://doi.org/10.1007/s11222-016-9721-7) compare three ways down to O(n):
#
# - **block HSIC**: HSIC_u on disjoint blocks of b pairs, averaged; asymptotically normal;
# - **Nyström HSIC**: features on m landmarks per variable, HSIC of the features;
# - **RFF HSIC**: random Fourier features, the same.
#
# The last two keep the spectral null, from the m × m feature covariances. kmeviz reads
# the samples in row blocks (dask arrays too), so memory does not grow with n. The price
# is power: at n = 60 on the sinusoid at ℓ = 1,

# %%
from kmeviz.experiments import rejection_rates


def runner(**options):
    return lambda data, *, alpha, rng: K.hsic_test(*data, alpha=alpha, rng=rng, **options)


price = rejection_rates(lambda rng: sinusoid(60, 1.0, rng=rng),
                        {"exact": runner(),
                         "block (b = 7)": runner(estimator="block"),
                         "Nyström (m = 4)": runner(estimator="nystrom", n_landmarks=4),
                         "RFF (L = 4)": runner(estimator="rff", n_features=4)},
                        n_repeats=100, rng=4)
price[["test", "rate", "ci_low", "ci_high"]].round(2)

# %% [markdown]
# The block test throws away every pair of points in different blocks: with 8 blocks of 7
# pairs it has about half the exact test's power here. The feature tests lose much less:
# the pattern at ℓ = 1 is smooth, and even 4 landmarks per variable span it, so Nyström
# HSIC keeps nearly all the power; RFF with 4 random frequencies lands between the two.
# With m or L in the hundreds (the defaults) they approximate the kernel closely at a
# fraction of the exact test's cost.

# %% tags=["check", "remove-cell"]
rates = price.set_index("test")["rate"]
assert rates["exact"] > 0.8 and rates["block (b = 7)"] < rates["exact"] - 0.2, rates
assert 0.3 < rates["block (b = 7)"] / rates["exact"] < 0.7, rates  # "about half"
assert rates["Nyström (m = 4)"] > rates["exact"] - 0.1, rates
assert rates["block (b = 7)"] < rates["RFF (L = 4)"] <= rates["exact"] + 0.05, rates

# %% [markdown]
# ## 7. More than two variables: dHSIC
#
# Three variables can be independent two by two and still depend jointly. Take a, b
# independent standard normals and c = sign(ab)·|e|: c is independent of a, and of b,
# but the sign of c is the sign of ab. **dHSIC** ([Pfister et al.
# 2018](https://doi.org/10.1111/rssb.12235)) is ‖μ_{P_abc} − μ_a ⊗ μ_b ⊗ μ_c‖²; with
# two variables it is HSIC.

# %%
rng = np.random.default_rng(0)
a, b, e = rng.normal(size=(3, 300, 1))
c = np.sign(a * b) * np.abs(e)
pairwise = {name: K.hsic_test(u, c, rng=0).p_value for name, u in (("a, c", a), ("b, c", b))}
joint = K.dhsic_test(a, b, c, n_resamples=500, rng=0)
print(pairwise, f"dHSIC p-value = {joint.p_value_text()}")

# %% tags=["check", "remove-cell"]
assert min(pairwise.values()) > 0.05 and joint.p_value < 0.01, (pairwise, joint)

# %% [markdown]
# ## Play with it
# The **Independence explorer** below (also served by `kmeviz serve`) draws from five
# kinds of dependence: the sinusoid (ℓ), the rotated sources (θ), a noisy circle, XOR
# and correlated Gaussians (ρ). Watch the witness follow ℓ, compare every test in its
# table, and press *Power curve* to fill in the rejection rate against the strength.
# (Live in JupyterLab.)

# %% tags=["plot"]
import panel as pn

from kmeviz.apps import IndependenceExplorer

pn.extension(inline=True)
explorer = IndependenceExplorer(n=200)
explorer

# %% tags=["check", "remove-cell"]
assert explorer.failures() == {} and explorer.problem == "sinusoid"

# %% [markdown]
# ## Exercises
# Each `check_…` says whether your answer is right and, if not, gives a hint; it never
# shows the answer. When you are right it also says why.
# Worked answers, with the reasoning, are on the course's
# [Solutions page](../docs/course/solutions.md).
#
# Exercises 2 and 3 are the predictions of §1 and §5: answer them there, before the
# text below them gives the answer away.
#
# **1. Implement.** Write HSIC_b = tr(KHLH)/n² from the two Gram matrices K and L.

# %% tags=["exercise"]
from kmeviz.exercises import check_hsic_b_from_grams


def answer(K, L):
    """The biased HSIC from the Gram matrices of X and of Y."""
    return None  # your code


check_hsic_b_from_grams(answer)

# %% [markdown]
# ## Problems
# Derivations to do on paper, one step at a time; the instructor edition of the course has the
# worked solutions.
#
# **P1. HSIC is an MMD.** With the product kernel $\kappa((x, y), (x', y')) = k(x, x')\,l(y,
# y')$, show that $\mathrm{MMD}^2_\kappa(P_{XY}, P_X \otimes P_Y)$ is $\mathrm{HSIC}$, and that
# the plug-in estimate with the empirical joint $\frac1n\sum_i\delta_{(x_i, y_i)}$ and the
# product of the empirical marginals $\frac{1}{n^2}\sum_{i,j}\delta_{(x_i, y_j)}$ is
# $\mathrm{tr}(KHLH)/n^2$, with $H = I - \frac1n\mathbf{1}\mathbf{1}^\top$.
#
# **P2. The witness identity of §3.** With $w = \hat\mu_{XY} - \hat\mu_X \otimes \hat\mu_Y$, show
# $\frac1n\sum_i w(x_i, y_i) - \frac{1}{n^2}\sum_{i,j} w(x_i, y_j) = \|w\|^2 = \mathrm{HSIC}_b$.

# %% [markdown] tags=["solution"]
# ### Solutions (instructor edition)
# **P1.** $\mathrm{MMD}^2_\kappa = \mathbb{E}\,\kappa(Z, Z') - 2\,\mathbb{E}\,\kappa(Z, W) +
# \mathbb{E}\,\kappa(W, W')$ with $Z \sim P_{XY}$, $W \sim P_X \otimes P_Y$, which is the
# population HSIC. With the two empirical laws the three terms are
# $\frac{1}{n^2}\sum_{ij}K_{ij}L_{ij} = \frac{\mathrm{tr}(KL)}{n^2}$,
# $\frac{2}{n^3}\sum_{ijq}K_{ij}L_{iq} = \frac{2\,\mathbf{1}^\top KL\mathbf{1}}{n^3}$ and
# $\frac{1}{n^4}(\mathbf{1}^\top K\mathbf{1})(\mathbf{1}^\top L\mathbf{1})$. Expanding
# $\mathrm{tr}(KHLH)$ with $H = I - \frac1n\mathbf{1}\mathbf{1}^\top$ gives $\mathrm{tr}(KL) -
# \frac2n\mathbf{1}^\top KL\mathbf{1} + \frac{1}{n^2}(\mathbf{1}^\top
# K\mathbf{1})(\mathbf{1}^\top L\mathbf{1})$ (symmetry of $K$ and $L$ and the cyclic trace), the
# same sum times $n^2$.
#
# **P2.** By the reproducing property of $\kappa$, $\langle w, \hat\mu_{XY}\rangle =
# \frac1n\sum_i w(x_i, y_i)$ and $\langle w, \hat\mu_X \otimes \hat\mu_Y\rangle =
# \frac{1}{n^2}\sum_{i,j} w(x_i, y_j)$; their difference is $\langle w, w\rangle$, which is
# $\mathrm{HSIC}_b$ by P1.
