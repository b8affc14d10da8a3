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
# # Kernel Stein discrepancy and its Nyström acceleration
#
# **What you will learn**
# - Stein's identity: for the Langevin Stein operator (T_p f)(x) = ∇log p(x)·f(x) + ∇·f(x),
#   E_{X∼P}[(T_p f)(X)] = 0 — and it only needs the *score* ∇log p, never the normalising
#   constant of p;
# - the Stein kernel h_p (Eq. 3 of Kalinke et al.) and the kernel Stein discrepancy
#   KSD²(Q) = ‖E_{X∼Q} h_p(·, X)‖², estimated by V- and U-statistics in O(n²);
# - the Nyström KSD (Lemma 1): project the embedding on m = 4√n landmarks, O(nm + m³);
# - goodness-of-fit tests with the wild bootstrap (Eq. 9–10) and its Nyström version (Eq. 11).
#
# **What you need**: notebook 03 (Nyström embeddings). Runs in about half a minute.

# %%
import time

import holoviews as hv
import numpy as np
import pandas as pd

import kmeviz as K
from kmeviz import viz
from kmeviz.experiments.ksd import ksd_power

hv.extension("bokeh", logo=False, inline=True)  # BokehJS inline: works offline

# %% [markdown]
# ## 1. Stein's identity
#
# Take p = N(0, I₂) and f(x) = k(x, z)·a for a Gaussian k. Averaging (T_p f)(X) over samples
# of P gives ≈ 0 (within Monte Carlo error); over samples of a shifted Q it does not. This
# is what every Stein discrepancy measures.

# %%
rng = np.random.default_rng(0)
p = K.NormalTarget(np.zeros(2))
z, a = np.array([0.5, -0.3]), np.array([1.0, 0.5])


def stein_operator_on_f(X):
    diff = X - z
    k = np.exp(-0.5 * np.sum(diff**2, axis=1))
    return k * (p.score(X) @ a) - k * (diff @ a)  # s·f + ∇·f


stein_means = {}
for name, X in [("from P", p.sample(100_000, rng=rng)),
                ("from Q = P shifted by 0.5", p.sample(100_000, rng=rng) + 0.5)]:
    v = stein_operator_on_f(X)
    stein_means[name] = (v.mean(), v.std() / np.sqrt(v.size))
    print(f"{name:28s} mean (T_p f)(X) = {v.mean():+.4f} ± {v.std() / np.sqrt(v.size):.4f}")

# %% tags=["check", "remove-cell"]
# Checks run by the test suite (tests/test_notebooks.py); they compare values, never bytes.
# Stein's identity as a statistical law: under P the mean is within 4 standard errors of 0;
# under the shifted Q it is more than 50 standard errors away.
(mean_p, se_p), (mean_q, se_q) = stein_means.values()
assert abs(mean_p) < 4 * se_p and abs(mean_q) > 50 * se_q

# %% [markdown]
# ## 2. The Stein kernel needs only the score
#
# A Gaussian mixture's score is known in closed form; its normalising constant would not be
# needed even if it were unknown. The Stein Gram matrix is symmetric positive semi-definite
# — it is a kernel, h_p(x, y) = ⟨ξ_p(x), ξ_p(y)⟩ (Eq. 3).

# %%
mixture = K.GaussianMixture([[-1.5, 0.0], [1.5, 0.0]], variances=[0.7**2, 0.7**2])
kernel = K.IMQKernel(c=1.0, beta=-0.5)
X = mixture.sample(300, rng=1)
H = K.SteinKernel(kernel, mixture)(X)
eig = np.linalg.eigvalsh(H)
print(f"symmetric: {np.allclose(H, H.T)}, "
      f"positive semi-definite up to round-off: {eig[0] > -1e-10 * eig[-1]}")

# %% tags=["check", "remove-cell"]
assert np.allclose(H, H.T, rtol=1e-12, atol=0) and eig[0] > -1e-10 * eig[-1]

# %% [markdown]
# ## 3. KSD²: V- and U-statistics
#
# Under H0 (Q = P) the V-statistic decays like 1/n and the U-statistic is centred at 0;
# under an alternative both converge to KSD²(Q) > 0.

# %%
rows = []
for n in (250, 1000, 4000):
    for name, X in [("Q = P", mixture.sample(n, rng=n)),
                    ("Q = P scaled by 1.3", 1.3 * mixture.sample(n, rng=n))]:
        rows.append({"n": n, "sample": name, "V-statistic": K.ksd2(X, mixture, kernel),
                     "U-statistic": K.ksd2(X, mixture, kernel, estimator="unbiased")})
print(pd.DataFrame(rows).round(5).to_string(index=False))

# %% tags=["check", "remove-cell"]
# Seeded values: 1e-6 relative. Laws the text states: under H0 the V-statistic decays
# like 1/n (16× more points, at least 8× smaller) and the U-statistic is near 0; under the
# alternative V and U agree to O(1/n).
ksd = pd.DataFrame(rows).set_index(["n", "sample"])
null, alt = ksd.xs("Q = P", level="sample"), ksd.xs("Q = P scaled by 1.3", level="sample")
assert np.isclose(alt.loc[4000, "V-statistic"], 0.227024924967, rtol=1e-6)
assert null.loc[4000, "V-statistic"] < null.loc[250, "V-statistic"] / 8
assert (null["U-statistic"].abs() < 0.01).all() and (alt["U-statistic"] > 0.15).all()
assert abs(alt.loc[4000, "V-statistic"] - alt.loc[4000, "U-statistic"]) < 0.005

# %% [markdown]
# ## 4. Why Nyström
#
# The V-statistic touches all n² pairs. Nyström KSD (Eq. 8) projects the Stein embedding on
# m landmarks drawn with replacement: β = K_mn 1/n, KSD̃² = βᵀ K_mm⁺ β, in O(nm + m³). With
# all n points as landmarks it *is* the V-statistic; with m = 4√n it is close and much
# cheaper. (Timings vary by machine; they are not checked.)

# %%
X = 1.3 * mixture.sample(2000, rng=7)
print(f"V-statistic                 {K.ksd2(X, mixture, kernel):.6f}")
every_point = K.ksd2_nystrom(X, mixture, kernel, landmarks=np.arange(2000))
print(f"Nyström, all points         {every_point:.6f}")
for m in (20, 180, 500):
    value = K.ksd2_nystrom(X, mixture, kernel, n_landmarks=m, rng=0)
    print(f"Nyström, m = {m:4d}            {value:.6f}")

# %% tags=["check", "remove-cell"]
# With every point as a landmark, Nyström KSD *is* the V-statistic (an identity, up to
# the eigenvalue floor of the pseudo-inverse: 1e-8 relative); m = 500 is within 1%.
v_statistic = K.ksd2(X, mixture, kernel)
assert np.isclose(v_statistic, 0.192114142184, rtol=1e-6)
assert np.isclose(every_point, v_statistic, rtol=1e-8)
assert abs(value / v_statistic - 1) < 0.01

# %%
big = K.NormalTarget(np.zeros(10))
Xb = big.sample(8000, rng=3)
t0 = time.perf_counter()
K.ksd2(Xb, big, kernel)
t_full = time.perf_counter() - t0
t0 = time.perf_counter()
K.ksd2_nystrom(Xb, big, kernel, rng=0)
t_nys = time.perf_counter() - t0
print(f"n = 8000, d = 10: Nyström (m = 358) is {'faster' if t_nys < t_full else 'slower'} "
      "than the V-statistic")

# %% [markdown]
# ## 5. Goodness-of-fit tests
#
# H0: the sample comes from p. The wild bootstrap multiplies the Stein Gram by random signs
# (Eq. 9, signs from the Markov chain of Eq. 10); the Nyström bootstrap (Eq. 11) computes
# all D = 500 replicates as ‖R K_mn w‖²/n² in one pass. Here: a Laplace sample with unit
# variance against N(0, I₅), n = 1000 (the setting of Fig. 1b).

# %%
target = K.NormalTarget(np.zeros(5))
X = np.random.default_rng(11).laplace(scale=1 / np.sqrt(2), size=(1000, 5))
full = K.ksd_test(X, target, kernel, estimator="full", rng=0)
nys = K.ksd_test(X, target, kernel, estimator="nystrom", rng=0)
for r in (full, nys):
    print(f"{r.estimator:8s} KSD² = {r.statistic:.5f}  p = {r.p_value:.4f}  reject: {r.reject}")

# %% tags=["check", "remove-cell"]
assert np.isclose(full.statistic, 0.0297761513147, rtol=1e-6)
assert np.isclose(nys.statistic, 0.0188931968474, rtol=1e-6)
for r in (full, nys):  # far in the tail: no bootstrap replicate reaches the statistic
    assert r.reject and r.null_samples.size == 500 and r.p_value == 1 / 501

# %% tags=["plot"]
nulls = (viz.null_histogram(full, statistic="KSD²", title_prefix="full: ")
         + viz.null_histogram(nys, statistic="KSD²", title_prefix="Nyström: "))
nulls

# %% tags=["check", "remove-cell"]
for overlay, r in zip(nulls, (full, nys), strict=True):
    lines = [v.data for v in overlay.traverse(lambda e: e, [hv.VLine])]
    assert overlay.traverse(lambda e: e, [hv.Histogram]) and r.statistic in lines

# %% [markdown]
# Repeating the experiment estimates the power; under H0 (a sample from p itself) the
# rejection rate estimates the level α = 0.05. A small version (40 draws each; the full
# tables are in `docs/results/`):

# %%
methods = {"KSD IMQ": ("full", "imq", None),
           "N-KSD IMQ (m = 4√n)": ("nystrom", "imq", 4)}
power = ksd_power("laplace", [5], n=500, n_repeats=40, methods=methods, rng=5)
size = ksd_power("null", [5], n=500, n_repeats=40, methods=methods, rng=6)
print(pd.concat([power, size])[["problem", "test", "rate", "ci_low", "ci_high"]]
      .round(3).to_string(index=False))

# %% tags=["check", "remove-cell"]
# Power against the Laplace alternative is high; under H0 the 95% interval covers α.
assert (power.repeats == 40).all() and (power.rate >= 0.9).all()
assert ((size.ci_low <= 0.05) & (0.05 <= size.ci_high)).all()

# %% [markdown]
# ## Play with it
# The **Stein explorer** below starts where this notebook did: a standard normal target
# and a Laplace sample of n = 500. Change the target, the sampling distribution, the
# kernel and m, and watch the witness and both null distributions. (Live in JupyterLab.)

# %% tags=["plot"]
import panel as pn

from kmeviz.apps import SteinExplorer

pn.extension(inline=True)
explorer = SteinExplorer(sampler="Laplace (unit variance)", n=500)
explorer

# %% tags=["check", "remove-cell"]
assert explorer.failures() == {} and explorer.sampler == "Laplace (unit variance)"

# %% [markdown]
# ## Exercises
# Each `check_…` says whether your answer is right and, if not, gives a hint; it never
# shows the answer.
#
# **1.** With `target, same, laplace = stein_data()`, compute the V-statistic KSD² of the
# Laplace sample against the target with the IMQ kernel (c = 1, β = −½).

# %%
from kmeviz.exercises import check_ksd2, check_larger_ksd, stein_data

target, same, laplace = stein_data()
answer = None  # KSD²
check_ksd2(answer)

# %% [markdown]
# **2.** Which sample has the larger KSD², `"target"` (drawn from the target) or
# `"laplace"`? Predict first, then compute.

# %%
answer = None  # "target" or "laplace"
check_larger_ksd(answer)
