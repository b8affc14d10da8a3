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
# # Conditional mean embeddings as regressors
#
# **What you will learn**
# - the conditional mean embedding μ̂(x) = Σᵢ αᵢ(x) l(yᵢ, ·), α(x) = (K + nλI)⁻¹ k_x, is a
#   kernel ridge regression whose outputs are the feature vectors l(yᵢ, ·) (Grünewälder et
#   al. 2012, [Eq. 1](https://arxiv.org/abs/1205.4656)), so E[h(Y) | X = x] ≈ Σᵢ αᵢ(x) h(yᵢ) for
#   any h in the RKHS;
# - choosing λ and the input bandwidth by cross-validating the surrogate loss
#   ([Eq. 8](https://arxiv.org/abs/1205.4656));
# - sparse embeddings ([Sec. 5](https://arxiv.org/abs/1205.4656)): FISTA on an ℓ1-penalised fit vs
#   incomplete Cholesky, on the pendulum of [Sec. 5.1](https://arxiv.org/abs/1205.4656)
#   ([Fig. 1](https://arxiv.org/abs/1205.4656)).
#
# **What you need**: kernels and ridge regression. Runs in about half a minute.
#
# Terms are defined in the [glossary](../docs/glossary.md); the works cited are in the
# [bibliography](../docs/bibliography.md).

# %%
import holoviews as hv
import numpy as np
from scipy import linalg

import kmeviz as K
from kmeviz import viz
from kmeviz.conditional import cross_validate, kl_norm2
from kmeviz.experiments import sparsity_path

hv.extension("bokeh", logo=False, inline=True)  # BokehJS inline: works offline

# %% [markdown]
# ## 1. A conditional expectation from a regression
#
# **Where the weights come from.** With a kernel k on the inputs and a kernel l on the
# outputs (K and K_Y their Gram matrices), treat the feature l(y, ·) of each output as the target
# of a regression, and fit a function μ from inputs to the output RKHS 𝒢 by ridge
# regression:
#
# $$\hat\mu = \arg\min_{\mu}\ \frac1n\sum_{i=1}^n \big\|l(y_i,\cdot) - \mu(x_i)\big\|_{\mathcal
# G}^2 + \lambda\,\|\mu\|^2 .$$
#
# This is the paper's point: the conditional mean embedding *is* this regressor. As in
# scalar kernel ridge regression, the minimiser is a combination of the training targets,
# μ̂(x) = Σᵢ αᵢ(x) l(yᵢ, ·) with α(x) = (K + nλI)⁻¹ k_x and k_x = (k(x₁, x), …, k(x_n, x)).
# The weights depend on the inputs only. For h in 𝒢 the reproducing property,
# h(yᵢ) = ⟨h, l(yᵢ, ·)⟩, turns the embedding into conditional expectations:
#
# $$\mathbb E[h(Y)\mid X = x] \;\approx\; \langle h, \hat\mu(x)\rangle_{\mathcal G}
# = \sum_{i=1}^n \alpha_i(x)\, h(y_i).$$
#
# Below, h(y) = y and h(y) = y², which are *not* in 𝒢: a Gaussian RKHS holds no non-zero
# polynomial. The right-hand side still makes sense for them, for another reason: it is
# the kernel ridge regression of the numbers h(yᵢ) on the xᵢ (the same α(x) = (K + nλI)⁻¹
# k_x), a consistent estimate of E[h(Y) | X = x] for any h with finite variance. The RKHS
# reading explains *why* one set of weights serves every h; the regression reading is what
# licenses the polynomials.
#
# One linear solve serves every h. The weights look like those of a local average
# (Nadaraya–Watson), but nothing constrains them: they may be negative and need not sum to 1.
#
# Y = sin X + 0.3 ε with X uniform on [−3, 3]. The weights α(x) come from one Cholesky
# factorisation of K + nλI; the same weights estimate E[h(Y) | x] for every h — here h(y) = y
# (truth sin x) and h(y) = y² (truth sin² x + 0.09).

# %%
rng = np.random.default_rng(0)
X = rng.uniform(-3, 3, size=(400, 1))
Y = np.sin(X) + 0.3 * rng.normal(size=X.shape)
kx, ky = K.GaussianKernel(0.5), K.GaussianKernel(0.5)
cme = K.ConditionalMeanEmbedding(kx, ky, reg=1e-3).fit(X, Y)
grid = np.linspace(-2.8, 2.8, 200)[:, None]
alpha = cme.weights(grid)
print("weights shape:", alpha.shape, " row sums in", alpha.sum(1).min().round(3),
      "…", alpha.sum(1).max().round(3))
rms = {}
for name, h, truth in [("y", Y[:, 0], np.sin(grid[:, 0])),
                       ("y²", Y[:, 0] ** 2, np.sin(grid[:, 0]) ** 2 + 0.09)]:
    rms[name] = np.sqrt(np.mean((alpha @ h - truth) ** 2))
    print(f"E[{name} | x]: RMS error over the grid = {rms[name]:.3f}")

# %% tags=["check", "remove-cell"]
# Checks run by the test suite (tests/test_notebooks.py); they compare values, never bytes.
# Seeded numbers: 1e-6 relative (round-off between CPUs is ~1e-13). The weights are
# (K + nλI)⁻¹ k_x, checked against a dense solve (1e-8: K + nλI has condition ~1e5).
K_reg = kx(X) + 400 * 1e-3 * np.eye(400)
assert np.allclose(alpha, np.linalg.solve(K_reg, kx(X, grid)).T, rtol=1e-8, atol=1e-10)
assert np.isclose(rms["y"], 0.0519935289994, rtol=1e-6)
# Both conditional expectations are within the noise level 0.3 / 3 of the truth.
assert max(rms.values()) < 0.1
# The quoted row sums, smallest weight and second RMS error (seeded, 1e-3 absolute).
assert np.isclose(alpha.sum(1).min(), 0.989, atol=1e-3)
assert np.isclose(alpha.sum(1).max(), 1.009, atol=1e-3)
assert np.isclose(alpha.min(), -0.0114, atol=1e-3) and np.isclose(rms["y²"], 0.078, atol=1e-3)

# %% [markdown]
# The row sums of α lie between 0.989 and 1.009 and the smallest weight is −0.011: almost
# a local average, but not quite. The same weights give both estimates; E[y² | x] is
# further from its truth (RMS 0.078 against 0.052) because y² is noisier than y given x.

# %% tags=["plot"]
regression = viz.cme_data_plot(X, Y, grid[:, 0], alpha @ Y[:, 0], np.sin(grid[:, 0]),
                               h_label="Y")
regression

# %% tags=["check", "remove-cell"]
estimate = [c for c in regression.traverse(lambda e: e, [hv.Curve]) if "CME" in c.label][0]
assert np.allclose(estimate.dimension_values("y"), alpha @ Y[:, 0], rtol=1e-12)

# %% [markdown]
# The embedding itself is a function of y for each x: μ̂(x)(y) = Σᵢ αᵢ(x) l(yᵢ, y), a
# smoothed picture of the conditional law.

# %% tags=["plot"]
ys = np.linspace(-2, 2, 120)[:, None]
embedding_map = viz.cme_embedding_map(grid[:, 0], ys[:, 0], cme.embedding(grid, ys).T)
embedding_map

# %% tags=["check", "remove-cell"]
# μ̂(x)(y) = Σᵢ αᵢ(x) l(yᵢ, y): the map shows exactly that, on the 120 × 200 grid.
shown = embedding_map.dimension_values(2, flat=False)
assert shown.shape == (120, 200)
assert np.allclose(shown, (alpha @ ky(Y, ys)).T, rtol=1e-10, atol=1e-12)
# The text's law: each slice peaks near sin x at height √(0.25/0.34) ≈ 0.857 (the median
# over x of the peaks within 0.03; the ridge's y within 0.1 of sin x on average).
peaks = shown.max(axis=0)
assert abs(np.median(peaks) - np.sqrt(0.25 / 0.34)) < 0.03
assert np.mean(np.abs(ys[shown.argmax(axis=0), 0] - np.sin(grid[:, 0]))) < 0.1

# %% [markdown]
# **Reading the map.** A vertical slice at x₀ is the function y ↦ μ̂(x₀)(y). For the true
# embedding it is E[l(Y, y) | x₀]: the law of Y given x₀, 𝒩(sin x₀, 0.3²), smoothed by
# the output kernel. With Gaussians both ways that is a bump centred at sin x₀, of width
# √(0.5² + 0.3²) ≈ 0.58 and height 0.5/0.58 ≈ 0.86, and the map shows a ridge of that
# height along sin x. A slice is not a density (it does not integrate to 1 and can dip
# below zero), but every E[h(Y) | x₀] with h in 𝒢 is read off it by one inner product.

# %% [markdown]
# ## 2. Choosing λ by cross-validation ([Sec. 3.2](https://arxiv.org/abs/1205.4656))
#
# The surrogate risk E‖l(Y, ·) − μ(X)‖² bounds, by Jensen's and the Cauchy–Schwarz
# inequality (Eq. 6 of [Grünewälder et al.](https://arxiv.org/abs/1205.4656)), the worst
# *mean-square* error over X of the estimated conditional expectations,
#
# $$\sup_{\|h\|\le 1} \mathbb{E}_X\big(\mathbb{E}[h(Y)\mid X] - \langle h, \mu(X)\rangle\big)^2
# \le \mathbb{E}_{(X,Y)} \|l(Y,\cdot) - \mu(X)\|^2 .$$
#
# It is an average over x, not a bound at every x. Its value on held-out pairs is the
# natural CV score. We compare the 5-fold choice with the held-out optimum on 4000 fresh
# pairs.

# %%
regs = np.logspace(-6, 0, 13)
table, best = cross_validate(X, Y, regs=regs, bandwidths=[0.25, 0.5, 1.0], kernel_y=ky, rng=0)
print("CV choice:", {k: float(f"{v:.3g}") for k, v in best.items()})
Xt = rng.uniform(-3, 3, size=(4000, 1))
Yt = np.sin(Xt) + 0.3 * rng.normal(size=Xt.shape)
held_out = [K.ConditionalMeanEmbedding(K.GaussianKernel(best["bandwidth"]), ky, reg=r)
            .fit(X, Y).surrogate_loss(Xt, Yt) for r in regs]
print(f"held-out optimum at λ = {regs[int(np.argmin(held_out))]:.0e}")

# %% tags=["check", "remove-cell"]
# The 5-fold choice is within one grid step (a factor √10) of the held-out optimum.
optimum = regs[int(np.argmin(held_out))]
assert abs(np.log10(best["reg"] / optimum)) <= 0.5 + 1e-9 and best["bandwidth"] == 1.0

# %% tags=["plot"]
cv_plot = viz.cv_curve(table[table.bandwidth == best["bandwidth"]], best["reg"])
cv_plot

# %% tags=["check", "remove-cell"]
cv_loss = cv_plot.traverse(lambda e: e, [hv.Curve])[0].dimension_values(1)
assert np.isclose(cv_loss.min(), table[table.bandwidth == 1.0].mean_loss.min(), rtol=1e-12)
# The numbers of the text below (seeded; 1e-3 absolute) and the floor 1 − √(0.25/0.43).
held = dict(zip(regs, held_out, strict=True))
floor = 1 - np.sqrt(0.25 / 0.43)
assert np.isclose(floor, 0.2375, atol=1e-4) and np.isclose(min(held_out), 0.2466, atol=1e-3)
assert abs(held[regs[0]] - held[regs[4]]) < 1e-3 and np.isclose(held[regs[-1]], 0.714, atol=1e-3)
assert abs(held[regs[5]] - held[regs[4]]) < 1e-3
shrunk = K.ConditionalMeanEmbedding(kx, ky, reg=1.0).fit(X, Y).weights(grid)
assert shrunk.sum(axis=1).max() < 0.2

# %% [markdown]
# **Reading the CV curve.** The loss never approaches zero. Even the true embedding
# leaves E‖l(Y, ·) − μ(X)‖² = 1 − E‖μ(X)‖², because Y stays random given X:
#
# $$1 - \mathbb E\,\|\mu(X)\|^2 = 1 - \mathbb E\,l(Y, Y') = 1 - \sqrt{\frac{0.5^2}{0.5^2 + 2\cdot
# 0.3^2}} \approx 0.238 ,$$
#
# with Y and Y′ independent given the same X. On the 4000 held-out pairs the best λ
# reaches 0.247, within 0.01 of that floor; the rest is estimation error. To the left the
# curve is nearly flat: with 400 points and a smooth truth, too little regularisation costs
# little (the held-out loss moves by less than 0.001 from λ = 10⁻⁶ to 10⁻⁴). To the right
# it climbs steeply: λ = 1 shrinks every weight towards zero (the row sums of α fall below
# 0.2) and the held-out loss triples, to 0.71. The CV choice, λ ≈ 3·10⁻⁴, is one grid step
# from the held-out optimum; in this flat valley the two differ by less than 0.001 in loss.

# %% [markdown]
# ## 3. Sparse embeddings on the pendulum ([Sec. 5, Fig. 1](https://arxiv.org/abs/1205.4656))
#
# 200 transitions of an under-actuated pendulum: inputs (sin θ, cos θ, ω, u), outputs
# (sin θ′, cos θ′, ω′). The dense CME has coefficient matrix W = (K + nλI)⁻¹. FISTA
# solves ([Eq. 17](https://arxiv.org/abs/1205.4656))
#
# $$\min_{M}\ \|M - W\|^2_{k\otimes l} + \gamma\,\|M\|_{1,1},
# \qquad \|M\|_{1,1} = \sum_{ij} |M_{ij}| ;$$
#
# incomplete Cholesky keeps only r pivot rows. [Fig. 1](https://arxiv.org/abs/1205.4656) compares
# them at equal numbers of non-zero coefficients.
#
# Two measures, both relative to the dense W. The *relative error* is the distance in the
# norm of the embedding itself ([Eq. 16](https://arxiv.org/abs/1205.4656)),
#
# $$\frac{\|M - W\|_{k\otimes l}}{\|W\|_{k\otimes l}}, \qquad
# \|A\|_{k\otimes l}^2 = \Big\|\sum_{ij} A_{ij}\, k(x_i,\cdot)\otimes l(y_j,\cdot)\Big\|^2
# = \operatorname{tr}(A^\top K A K_Y),$$
#
# and the *relative test error* is the surrogate loss on 1000 new transitions divided by
# that of W: 1 means nothing is lost. **Predict first:** at about 5 % non-zero
# coefficients, which method is closer to W?

# %%
# five γ, one per decade (`kmeviz reproduce cme-fig1` runs the paper's full path, 10 draws)
path = sparsity_path(n_train=200, n_test=1000, gammas=np.geomspace(1e-1, 1e-5, 5), rng=0)
print(path.assign(parameter=path.parameter.map("{:.3g}".format))
      .round({"nonzero_pct": 1, "relative_error": 3, "relative_test_error": 3})
      .to_string(index=False))

# %% tags=["check", "remove-cell"]
fista = path[path.method == "FISTA"].set_index("parameter")
cholesky = path[path.method == "incomplete Cholesky"].set_index("parameter")
# Incomplete Cholesky at full rank reproduces W (round-off only). Its pivots break
# near-ties by index, so its path is deterministic on any CPU (1e-6 relative).
assert cholesky.relative_error.iloc[-1] < 1e-10
assert np.allclose(cholesky.relative_error.iloc[:-1], [
    0.991652386567, 0.987975696190, 0.974055154698, 0.950659091124, 0.904717142988,
    0.803969275460, 0.609658294807, 0.334537702429], rtol=1e-6)
# FISTA stops at a tolerance, so its path is checked against the claims of the text:
# less penalty, more non-zeros, smaller error; at ≈ 6% non-zero it is within 10% of W,
# where incomplete Cholesky at a similar budget (5.5%) keeps over 90% of the error.
assert np.all(np.diff(fista.nonzero_pct) > 0) and np.all(np.diff(fista.relative_error) < 0)
near_6 = fista.iloc[np.argmin(abs(fista.nonzero_pct - 6))]
assert near_6.relative_error < 0.1 and cholesky.loc[11.0].relative_error > 0.9
# The second panel as the text reads it: at ≈ 1 % FISTA's relative error is ≈ 0.25 and its
# test loss ≈ 10 % above W's; incomplete Cholesky at rank 11 is at 1.8 × W's test loss.
sparsest = fista.iloc[0]
assert sparsest.nonzero_pct < 1.5 and abs(sparsest.relative_error - 0.25) < 0.02
assert 1.05 < sparsest.relative_test_error < 1.15
assert abs(cholesky.loc[11.0].relative_test_error - 1.8) < 0.01

# %% tags=["plot"]
fig1 = (viz.sparsity_path_plot(path)
        + viz.sparsity_path_plot(path, y="relative_test_error"))
fig1

# %% tags=["check", "remove-cell"]
fista_curve = [c for c in fig1[1].traverse(lambda e: e, [hv.Curve]) if c.label == "FISTA"][0]
assert np.allclose(fista_curve.dimension_values("relative_test_error"),
                   fista.sort_values("nonzero_pct").relative_test_error)

# %% [markdown]
# At about 6% non-zero coefficients FISTA is within a few per cent of the dense
# embedding, while incomplete Cholesky at a similar budget has lost almost everything: the
# ℓ1 penalty can spread its budget over all training points, a low-rank fit must spend it on
# whole rows. Incomplete Cholesky only catches up near full rank.

# %%
# The two measures side by side, at budgets of 1–6 % non-zero coefficients
budget = path[path.nonzero_pct.between(1, 6)]
print(budget[["method", "nonzero_pct", "relative_error", "relative_test_error"]]
      .round(3).to_string(index=False))

# %% [markdown]
# The two panels tell the story at different scales. At 1 % non-zero FISTA is still 25 %
# from W in the embedding's own norm, yet its test loss is only about 10 % above the dense
# one. The test loss contains the noise floor of Sec. 2, which every estimator pays, so
# differences in the embedding shrink once they are measured by prediction. Incomplete
# Cholesky at rank 11 (5.5 %) has a test loss 1.8 times the dense one: its embedding is
# built from the kernels of 11 input points only, so wherever no pivot is near, the
# predicted embedding shrinks towards zero.
#
# Finally, the FISTA objective history is non-increasing (the adaptive restart rejects a
# step that would increase it):

# %%
Xp, Yp = K.Pendulum().transitions(200, rng=0)
kp = K.GaussianKernel(1.0)
cme_p = K.ConditionalMeanEmbedding(kp, kp, reg=1e-2).fit(Xp, Yp)
W = linalg.cho_solve(cme_p.cho_, np.eye(200))
res = K.sparse_cme(W, cme_p.gram_x_, kp(Yp), gamma=1e-2, tol=1e-6)
print(f"{res.n_iter} iterations, converged = {res.converged}, "
      f"non-increasing: {bool(np.all(np.diff(res.objective_history) <= 1e-12))}")
K_Y = kp(Yp)
rel = np.sqrt(kl_norm2(res.M - W, cme_p.gram_x_, K_Y) / kl_norm2(W, cme_p.gram_x_, K_Y))
nonzero = 100 * np.count_nonzero(res.M) / res.M.size
print(f"relative error {rel:.4f} at {nonzero:.1f}% non-zero")

# %% tags=["check", "remove-cell"]
# FISTA's objective never increases and it converges; the iterate matches the γ = 1e-2
# row of the path above (warm-started there, cold here; both stop at tol = 1e-6 on the
# objective: they agree to 5e-4, 5e-3 is allowed).
assert res.converged and np.all(np.diff(res.objective_history) <= 1e-12)
assert abs(rel / fista.loc[1e-2].relative_error - 1) < 5e-3
assert 5.0 < nonzero < 7.0

# %% [markdown]
# ## Play with it
# The **CME explorer** below starts on y = sin x + noise with n = 100 and sparsity
# γ = 0.01, the γ of the FISTA run above. Change the conditional law, the kernels, λ and
# γ, and watch the estimate, the embedding map and the sparse coefficients. (Live in
# JupyterLab.)

# %% tags=["plot"]
import panel as pn

from kmeviz.apps import CMEExplorer

pn.extension(inline=True)
explorer = CMEExplorer(n=100, gamma=1e-2)
explorer

# %% tags=["check", "remove-cell"]
assert explorer.failures() == {} and explorer.gamma == 1e-2

# %% [markdown]
# ## Exercises
# Each `check_…` says whether your answer is right and, if not, gives a hint; it never
# shows the answer.
# Worked answers, with the reasoning, are on the course's
# [Solutions page](../docs/course/solutions.md).
#
# **1.** With `X, Y = cme_data()`, fit a CME with Gaussian kernels of bandwidth 0.5 on both
# sides and λ = 10⁻³. What is its estimate of E[Y | x = 1]? (Compare with sin 1.)

# %% tags=["exercise"]
from kmeviz.exercises import GAMMAS, check_conditional_mean, check_sparsest_gamma, cme_data

X, Y = cme_data()
answer = None  # the estimate
check_conditional_mean(answer)

# %% [markdown]
# **2. Predict, then check.** Before running anything, predict from the FISTA objective
# (fit + γ‖M‖₁) which γ of `GAMMAS` = (0.001, 0.01, 0.1) gives the fewest non-zero
# coefficients, and what it costs. Then run `sparse_cme` on that CME for each γ and
# count the non-zeros of `.M`.

# %% tags=["exercise"]
print("candidates:", GAMMAS)
answer = None  # one of them
check_sparsest_gamma(answer)


# %% [markdown]
# **3. Implement.** Write the CME weights α(x) = (K + nλI)⁻¹ k_x (section 1) from
# the Gram matrix K of the n inputs, the kernel values k_x (one column per new point) and
# λ; use `np.linalg.solve`, not an inverse. The checker compares with
# `K.ConditionalMeanEmbedding(...).weights`.

# %% tags=["exercise"]
from kmeviz.exercises import check_cme_weights


def answer(K, k_x, lam):
    """The CME weights, one column per new point."""
    return None  # your code


check_cme_weights(answer)

# %% [markdown]
# ## Problems
# Derivations to do on paper, one step at a time; the instructor edition of the course has the
# worked solutions.
#
# **P1. The CME's weights.** With feature maps $\phi(x) = k(x, \cdot)$ and $\psi(y) = l(y,
# \cdot)$, minimise $\frac1n\sum_i \|\psi(y_i) - C\phi(x_i)\|^2 + \lambda\|C\|_{HS}^2$ over
# operators $C$ and show that $\hat\mu_{Y|x} = C\phi(x) = \sum_i \alpha_i(x)\psi(y_i)$ with
# $\alpha(x) = (K + n\lambda I)^{-1}k_x$ (Grünewälder et al. 2012).
#
# **P2. One set of weights for every h.** Show that $\langle h, \hat\mu_{Y|x}\rangle = \sum_i
# \alpha_i(x)h(y_i)$ is the kernel ridge regression of the numbers $h(y_i)$ on the $x_i$, with
# ridge $n\lambda$. Why can the same $\alpha(x)$ serve every $h$, and what changes when $h$ is
# not in the RKHS of $l$ (as $h(y) = y$ for a Gaussian $l$)?

# %% [markdown] tags=["solution"]
# ### Solutions (instructor edition)
# **P1.** With $\Phi = [\phi(x_1), \dots, \phi(x_n)]$ and $\Psi$ likewise, the objective is
# $\frac1n\|\Psi - C\Phi\|_{HS}^2 + \lambda\|C\|_{HS}^2$; its gradient vanishes at
# $C(\Phi\Phi^\top + n\lambda I) = \Psi\Phi^\top$, so $C = \Psi\Phi^\top(\Phi\Phi^\top + n\lambda
# I)^{-1} = \Psi(\Phi^\top\Phi + n\lambda I)^{-1}\Phi^\top$ (push-through identity), with
# $\Phi^\top\Phi = K$. Then $C\phi(x) = \Psi(K + n\lambda I)^{-1}k_x$.
#
# **P2.** $\langle h, \Psi\alpha(x)\rangle = \mathbf{h}^\top(K + n\lambda I)^{-1}k_x$ with
# $\mathbf{h} = (h(y_i))_i$, which is $f(x) = \sum_j \beta_j k(x_j, x)$ for $\beta = (K +
# n\lambda I)^{-1}\mathbf{h}$, the minimiser of $\frac1n\sum_i(h(y_i) - f(x_i))^2 +
# \lambda\|f\|^2$. The weights depend on the $x_i$ and $\lambda$ only; $h$ enters linearly at the
# end. When $h \notin \mathcal{H}_l$ the reproducing identity no longer justifies the estimate,
# but the ridge-regression reading does: it is the regression of the numbers $h(y_i)$ on $x$
# (§1).
