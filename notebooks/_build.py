"""Source of the teaching notebooks: ``python notebooks/_build.py`` rewrites and executes them.

Each notebook is a list of (kind, text) cells; executing them with nbclient stores
the outputs that nbval later checks.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).parent

NB01 = [
    (
        "md",
        """# MMD and the circular discrepancy

**What you will learn**
- how a kernel mean embedding turns a distribution into a point μ_P of a Hilbert space, and
  how the maximum mean discrepancy MMD(P, Q) = ‖μ_P − μ_Q‖ compares two samples;
- FastMMD (Zhao & Meng): for a shift-invariant kernel, MMD² is an *average over random
  frequencies ω* of a one-dimensional quantity, the **circular discrepancy** — both samples
  projected on ω and wrapped around the unit circle;
- how accurate FastMMD is as the number of frequencies L grows (a small Fig. 5).

**What you need**: numpy, and the idea of a kernel k(x, y). Runs in a few seconds.""",
    ),
    (
        "code",
        """import holoviews as hv
import numpy as np
import pandas as pd

import kmeviz as K
from kmeviz import viz
from kmeviz.circular import running_mean

hv.extension("bokeh", logo=False)
np.set_printoptions(precision=5, suppress=True)""",
    ),
    (
        "md",
        """## 1. From mean embeddings to MMD

The data are the paper's 5 × 5 grid of Gaussian blobs: P has round blobs, Q blobs
stretched with an eigenvalue ratio ε = 4. With a Gaussian kernel of bandwidth σ = 1
(the scale of one blob), the exact MMD² needs all n² kernel values; kmeviz sums them in
tiles so memory stays small.""",
    ),
    (
        "code",
        """X, Y = K.blobs_two_sample(1000, epsilon=4.0, rng=0)
kernel = K.GaussianKernel(bandwidth=1.0)
exact_b = K.mmd2(X, Y, kernel)
exact_u = K.mmd2(X, Y, kernel, estimator="unbiased")
print(f"biased MMD²   = {exact_b:.6f}")
print(f"unbiased MMD² = {exact_u:.6f}")
print(f"linear-time   = {K.mmd2_linear(X, Y, kernel):.6f}")
print(f"B-test        = {K.mmd2_block(X, Y, kernel):.6f}")""",
    ),
    (
        "md",
        """The biased estimate is larger: it includes the diagonal terms k(x, x) = 1. The
unbiased one removes them (App. A.1 of FastMMD gives the exact relation). The linear-time
and B-test estimates target the unbiased value but use only a fraction of the pairs, so
they are noisier.""",
    ),
    (
        "md",
        """## 2. The circular picture

Bochner's theorem writes the Gaussian kernel as k(x, y) = E_ω cos(ω'(x − y)) with
ω ~ N(0, σ⁻² I). Fix one ω: project each point on ω and wrap the result mod 2π. Each sample
becomes a cloud of points on the unit circle. The function y ↦ Σᵢ aᵢ sin(y − xᵢ)
(aᵢ = 1/m on X, −1/n on Y) is a single sinusoid; its **amplitude** η(ω) is the circular
discrepancy (Claim 5), and the diameter where it peaks separates the samples best.""",
    ),
    (
        "code",
        """omega = kernel.sample_frequencies(1, 2, rng=3)[0]
cd = K.circular_discrepancy(X, Y, omega)
grid = np.linspace(0, 2 * np.pi, 100_001)
print("omega           =", omega)
print(f"amplitude η(ω)  = {cd.amplitude:.6f}")
print(f"max over a grid = {cd.objective(grid).max():.6f}")
print(f"peak at y*      = {cd.maximiser:.4f} rad")""",
    ),
    (
        "code",
        """objective = viz.objective_plot(cd).opts(responsive=False, width=480, height=400)
(viz.circle_plot(cd) + objective).opts(shared_axes=False)""",
    ),
    (
        "md",
        """## 3. FastMMD: an ensemble of circular discrepancies

Draw L frequencies and average η²(ω): by Claim 6 the average converges to the exact
biased MMD². Algorithm 1 of the paper (amplitudes and phases) and Algorithm 2 (random
Fourier features) compute the same number.""",
    ),
    (
        "code",
        """W = kernel.sample_frequencies(4096, 2, rng=1)
eta2 = K.circular_ensemble(X, Y, W, kernel=kernel)
alg1 = K.mmd2_fastmmd(X, Y, kernel, frequencies=W, algorithm="amplitude")
alg2 = K.mmd2_fastmmd(X, Y, kernel, frequencies=W, algorithm="features")
print(f"ensemble mean η² = {eta2.mean():.6f}")
print(f"Alg. 1           = {alg1:.6f}")
print(f"Alg. 2           = {alg2:.6f}   |Alg.1 - Alg.2| < 1e-12: {abs(alg1 - alg2) < 1e-12}")
print(f"exact            = {exact_b:.6f}")""",
    ),
    (
        "code",
        """viz.ensemble_plot(running_mean(eta2), exact_biased=exact_b, exact_unbiased=exact_u,
                  linear=K.mmd2_linear(X, Y, kernel), block=K.mmd2_block(X, Y, kernel))""",
    ),
    (
        "md",
        """## 4. Accuracy versus L (a small Fig. 5)

Relative error of MMD (as plotted in the paper) for FastMMD-Fourier and
FastMMD-Fastfood, averaged over 10 draws of the frequencies.""",
    ),
    (
        "code",
        """exact = np.sqrt(exact_b)
rows = []
for L in (16, 64, 256, 1024, 4096):
    for method in ("fourier", "fastfood"):
        est = [K.mmd2_fastmmd(X, Y, kernel, n_features=L, method=method, rng=s)
               for s in range(10)]
        err = np.abs(np.sqrt(np.maximum(est, 0)) - exact) / exact
        rows.append({"L": L, "method": method, "mean relative error": err.mean()})
table = pd.DataFrame(rows).pivot(index="L", columns="method", values="mean relative error")
print(table.round(3).to_string())""",
    ),
    (
        "code",
        """curves = [hv.Curve((table.index, table[m]), "L", "mean relative error of MMD", label=m)
          for m in table.columns]
hv.Overlay(curves).opts(logx=True, logy=True, width=500, height=320,
                        title="FastMMD error vs L", legend_position="top_right")""",
    ),
    (
        "md",
        """The error falls roughly like 1/√L, Fastfood tracking dense Fourier features
closely. Try the **Circular discrepancy explorer** (`kmeviz serve`) to move ω by hand and
watch the circle, the sinusoid and the ensemble react.""",
    ),
]


NB02 = [
    ("md", """# Two-sample tests and their null distributions

**What you will learn**
- what the *null distribution* of an MMD statistic is, and how a test turns it into a
  threshold and a p-value;
- three ways to get it — permutations (exact, costly), the Gamma moment match and the
  Gram spectrum (fast asymptotic approximations) — and when each is trustworthy;
- how to measure a test's **size** (type-I error) and **power**, with confidence intervals;
- FastMMD + bootstrap: power as a function of the number of frequencies L (FastMMD Fig. 8a).

**What you need**: notebook 01 (MMD and FastMMD). Runs in about half a minute."""),
    ("code", """import holoviews as hv
import numpy as np
import pandas as pd
from scipy import stats

import kmeviz as K
from kmeviz import viz
from kmeviz.bootstrap import gamma_null_params
from kmeviz.experiments import fastmmd_type2_vs_L, null_sampler, rejection_rates

hv.extension("bokeh", logo=False)
kernel = K.GaussianKernel(1.0)"""),
    ("md", """## 1. A null distribution

Is the observed MMD² large? Only compared with what MMD² looks like when P = Q. Pooling
both samples and relabelling them at random makes P = Q true by construction; the
statistics of B relabellings form the **permutation null**. kmeviz computes all B of them
as one matrix product with the joint Gram matrix."""),
    ("code", """X, Y = K.blobs_two_sample(300, epsilon=2.0, rng=0)
res = K.mmd_test(X, Y, kernel, n_permutations=1000, rng=0)
print(f"statistic MMD²_b = {res.statistic:.5f}")
print(f"threshold (α = {res.alpha}) = {res.threshold:.5f}")
print(f"p-value = {res.p_value:.4f}  ->  reject H0: {res.reject}")"""),
    ("code", """g = gamma_null_params(X, Y, kernel)
x = np.linspace(0, res.null_samples.max() * 1.3, 300)
viz.null_histogram(res, overlays={"Gamma approximation":
                                  (x, stats.gamma(g["shape"], scale=g["scale"]).pdf(x))})"""),
    ("md", """## 2. Permutation vs Gamma vs spectral

The Gamma null matches the mean and variance of the asymptotic law
MMD²_b ≈ (1/m + 1/n) Σ λ_l z_l²; the spectral null simulates that law from the
eigenvalues λ_l of the centred Gram matrix. Both avoid the B replicates."""),
    ("code", """rows = []
for null in ("permutation", "gamma", "spectral"):
    r = K.mmd_test(X, Y, kernel, null=null, n_permutations=1000, rng=0)
    rows.append({"null": null, "p-value": round(r.p_value, 4),
                 "threshold": round(r.threshold, 5), "reject": r.reject})
print(pd.DataFrame(rows).to_string(index=False))"""),
    ("md", """## 3. Size and power

A test of level α should reject a true H0 at most a fraction α of the time (its
**size**); under H1, the rejection rate is its **power**. We estimate both over repeated
draws, with exact (Clopper–Pearson) 95% intervals. B = 99 keeps it quick — the
permutation test is exact for any B with α(B + 1) an integer."""),
    ("code", """tests = {
    "perm": {"kernel": kernel, "n_permutations": 99},
    "gamma": {"kernel": kernel, "null": "gamma"},
    "linear": {"kernel": kernel, "estimator": "linear", "null": "normal"},
    "FastMMD L=64": {"kernel": kernel, "estimator": "fastmmd-fourier", "n_features": 64,
                     "n_permutations": 99},
}
size = rejection_rates(null_sampler(150), tests, n_repeats=100, rng=1)
power = rejection_rates(lambda g: K.blobs_two_sample(150, epsilon=3.0, rng=g), tests,
                        n_repeats=40, rng=2)
cols = ["test", "rejections", "repeats", "rate", "ci_low", "ci_high"]
print("size (P = Q = N(0, I)):")
print(size[cols].round(3).to_string(index=False))
print("\\npower (blob grid, ε = 3):")
print(power[cols].round(3).to_string(index=False))"""),
    ("code", """viz.rejection_plot(power)"""),
    ("md", """The linear-time test is cheap but weak: it uses only n/2 kernel values. Asymptotic
nulls are approximations: on the blob grid with σ = 1 (a kernel much narrower than the
grid spacing) the Gamma and spectral tests come out conservative at n = 200 (about 3%
instead of 5% over 1000 draws), while the permutation test stays exact."""),
    ("md", """## 4. FastMMD + bootstrap: power vs L (a small Fig. 8a)

Permuting the rows of the n × 2L random-feature matrix gives FastMMD's null at O(L n)
per replicate. More frequencies, better approximation of MMD, more power."""),
    ("code", """fig8a = fastmmd_type2_vs_L(Ls=(1, 4, 16, 64), n=300, epsilon=4.0, n_trials=20,
                           n_permutations=99, rng=3)
cols = ["L", "type2_error", "type2_ci_low", "type2_ci_high"]
print(fig8a[cols].round(2).to_string(index=False))"""),
    ("md", """Try the **Bootstrap null explorer** (`kmeviz serve`): move α and watch the threshold
slide over the histogram, change B, switch nulls, and press *Repeat 100 times*."""),
]

NB03 = [
    ("md", """# Nyström kernel mean embeddings

**What you will learn**
- the Nyström estimator μ̂_m = P_m μ̂: project the empirical embedding onto the span of m
  random landmarks, with weights α = (1/n) K_m⁺ K_mn 1_n (Eq. (5) of Chatalic et al. 2022);
- how to measure its error *exactly* on a Gaussian mixture, whose embedding has a closed
  form (App. G);
- that m ≈ √n log √n landmarks already give the error of the full empirical embedding
  (Fig. 1), while uniform weights on the same landmarks do much worse.

**What you need**: notebook 01 (kernel mean embeddings, MMD). Runs in well under a minute."""),
    ("code", """import holoviews as hv
import numpy as np
import pandas as pd

import kmeviz as K
from kmeviz import viz
from kmeviz.experiments import nystrom_error_vs_m, paper_mixture

hv.extension("bokeh", logo=False)"""),
    ("md", """## 1. A distribution whose embedding we know

The paper's mixture: 8 unit-variance Gaussians in d = 10 with centres drawn from
N(0, 5 I); Gaussian kernel with the median inter-point distance as bandwidth. For it,
μ(z) and ||μ||² are closed forms, so the error ||μ − Σ αⱼ φ(xⱼ)|| of *any* weighted
point set is exact — no Monte Carlo."""),
    ("code", """rng = np.random.default_rng(0)
mixture = paper_mixture(d=10, rng=rng)
kernel = K.GaussianKernel(K.median_heuristic(mixture.sample(1000, rng=rng), rng=rng))
X = mixture.sample(5000, rng=rng)
print(f"bandwidth = {kernel.bandwidth:.4f}")
print(f"||mu||^2  = {mixture.squared_norm(kernel):.6f}")
print(f"empirical error, n = 5000: {mixture.error_of(K.EmpiricalKME(kernel).fit(X)):.5f}")"""),
    ("md", """## 2. Nyström vs uniform subsampling

Both use the same m landmarks; Nyström re-weights them optimally (a least-squares
projection), the uniform subsample gives each weight 1/m."""),
    ("code", """rows = []
for m in (10, 30, 100, 300):
    ny = K.NystromKME(kernel, m, rng=1).fit(X)
    sub = K.UniformSubsampleKME(kernel, m, rng=1).fit(X)
    rows.append({"m": m, "Nyström": mixture.error_of(ny), "uniform": mixture.error_of(sub),
                 "sum of α": ny.weights_.sum()})
print(pd.DataFrame(rows).round(5).to_string(index=False))
print(f"\\n√n log √n = {np.sqrt(5000) * np.log(np.sqrt(5000)):.0f}")"""),
    ("md", """## 3. Error vs m (a small Fig. 1)

Mean and 5–95% band over a few trials, for n = 1000 and n = 4000. The dotted line is
√n log √n: by then the Nyström error sits on the empirical one."""),
    ("code", """ms = (4, 8, 16, 32, 64, 128, 256, 512)
df = nystrom_error_vs_m(ns=(1000, 4000), ms=ms, n_trials=3, mixture=mixture,
                        bandwidth=kernel.bandwidth, rng=2)
at = df[(df.estimator != "uniform") & df.m.isin([128, 256, 1000, 4000])]
print(at[["n", "estimator", "m", "mean_error", "p05", "p95"]].round(5).to_string(index=False))"""),
    ("code", """n = 4000
viz.error_vs_m_plot(df[df.n == n], marker=np.sqrt(n) * np.log(np.sqrt(n)))"""),
    ("md", """## 4. What the Nyström embedding looks like

In two dimensions we can draw μ̂_m(z) = Σ αⱼ k(x̃ⱼ, z) next to the true μ(z). The
landmarks are sized by |αⱼ|."""),
    ("code", """mix2 = paper_mixture(d=2, n_centres=5, spread=5.0, rng=np.random.default_rng(3))
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
left + right"""),
    ("md", """## 5. Nyström MMD

Two Nyström embeddings give the MMD between two samples (Sec. 5) at O(n m) cost."""),
    ("code", """A, B = mix2.sample(3000, rng=6), mix2.sample(3000, rng=7) + np.array([0.5, 0.0])
print(f"exact MMD   = {np.sqrt(K.mmd2(A, B, k2)):.5f}")
for m in (30, 300):
    print(f"Nyström MMD, m = {m:3d}: {K.mmd_nystrom(A, B, k2, n_landmarks=m, rng=0):.5f}")"""),
    ("md", """Try the **Nyström error vs m** explorer (`kmeviz serve`) to change the mixture, n,
the landmark scheme and the baselines."""),
]

NB04 = [
    ("md", """# Effective dimension: how many landmarks are enough?

**What you will learn**
- the spectrum of the Gram matrix K/n and why its decay controls Nyström methods;
- the effective dimension N(λ) = Σ σᵢ/(σᵢ + λ) and the regularisation λ(m) of Thm 4.1;
- the landmark counts the theory recommends (Thm 4.1, Cor. 4.1) compared with the m that
  actually reaches the empirical error.

**What you need**: notebook 03. Runs in a few seconds."""),
    ("code", """import holoviews as hv
import numpy as np
import pandas as pd

import kmeviz as K
from kmeviz import viz
from kmeviz.experiments import paper_mixture
from kmeviz.spectrum import (
    lambda_of_m,
    landmarks_exponential_decay,
    landmarks_polynomial_decay,
    sufficient_landmarks,
)

hv.extension("bokeh", logo=False)"""),
    ("md", """## 1. Gram spectra decay at different speeds

A smooth kernel (Gaussian) has a fast-decaying spectrum, a rough one (Laplace) a slow
one. The fit compares log σᵢ against i (exponential) and log i (polynomial); with
σᵢ ∝ i^(−1/γ), a small γ means fast decay and few landmarks."""),
    ("code", """rng = np.random.default_rng(0)
X = paper_mixture(d=5, rng=rng).sample(1500, rng=rng)
bw = K.median_heuristic(X, rng=0)
spectra = {}
for name, kern in {"Gaussian": K.GaussianKernel(bw), "Laplace": K.LaplaceKernel(bw)}.items():
    ev = K.gram_spectrum(X, kern)
    fit = K.fit_decay(ev)
    spectra[name] = (ev, fit)
    print(f"{name:8s} decay: {fit.kind:11s} rate = {fit.rate:.4f}  γ = {fit.gamma:.3f}"
          f"  (R² exp {fit.r2_exponential:.3f}, poly {fit.r2_polynomial:.3f})")"""),
    ("code", """fixed = {"responsive": False, "width": 460, "height": 360}
(viz.spectrum_plot(*spectra["Gaussian"]).opts(title="Gaussian kernel", **fixed)
 + viz.spectrum_plot(*spectra["Laplace"]).opts(title="Laplace kernel", **fixed))"""),
    ("md", """## 2. The effective dimension

N(λ) counts the eigen-directions above scale λ. Thm 4.1 uses λ(m) = 12K² log(m/δ)/m:
the more landmarks, the smaller λ(m), the more directions Nyström can resolve."""),
    ("code", """ev = spectra["Gaussian"][0]
for m in (10, 100, 1000):
    lam = float(lambda_of_m(m, delta=0.05))
    print(f"m = {m:5d}: λ(m) = {lam:.4g}, N(λ(m)) = {K.effective_dimension(ev, lam):.3f}")
lams = np.logspace(-7, 1, 200)
viz.effective_dimension_plot(lams, K.effective_dimension(ev, lams),
                             lam_m=float(lambda_of_m(100)), label_m="λ(m = 100)")"""),
    ("md", """## 3. Landmark rules vs what is needed

The theory's counts are sufficient conditions with conservative constants. The last
row is measured: the smallest m whose Nyström projection error ||μ̂ − P_m μ̂|| falls below
the estimated empirical error ||μ̂ − μ||."""),
    ("code", """n = X.shape[0]
kern = K.GaussianKernel(bw)
G = kern(X)
target = np.sqrt((1.0 - (G.sum() - n) / (n * (n - 1))) / n)
reached = None
for m in np.unique(np.geomspace(2, n, 40).astype(int)):
    ny = K.NystromKME(kern, int(m), rng=0).fit(X)
    if np.sqrt(max(G.mean() - ny.weights_ @ kern(ny.landmarks_) @ ny.weights_, 0)) <= target:
        reached = int(m)
        break
r = np.sqrt(n)
rules = pd.Series({
    "√n log √n": r * np.log(r),
    "Cor. 4.1 exponential": float(landmarks_exponential_decay(n)),
    "Cor. 4.1 polynomial (fitted γ)": float(landmarks_polynomial_decay(
        n, max(spectra["Gaussian"][1].gamma, 1e-3))),
    "Thm 4.1 sufficient (Lambert W)": float(sufficient_landmarks(cov_norm=float(ev[0]))),
    "measured: reaches empirical error": float(reached),
})
print(rules.round(0).to_string())"""),
    ("md", """Open the **Effective dimension spectrum** explorer (`kmeviz serve`) to try other
data (including real NYC taxi data shipped with HoloViews), kernels and bandwidths."""),
]

NB05 = [
    ("md", """# Kernel Stein discrepancy and its Nyström acceleration

**What you will learn**
- Stein's identity: for the Langevin Stein operator (T_p f)(x) = ∇log p(x)·f(x) + ∇·f(x),
  E_{X∼P}[(T_p f)(X)] = 0 — and it only needs the *score* ∇log p, never the normalising
  constant of p;
- the Stein kernel h_p (Eq. 3 of Kalinke et al.) and the kernel Stein discrepancy
  KSD²(Q) = ‖E_{X∼Q} h_p(·, X)‖², estimated by V- and U-statistics in O(n²);
- the Nyström KSD (Lemma 1): project the embedding on m = 4√n landmarks, O(nm + m³);
- goodness-of-fit tests with the wild bootstrap (Eq. 9–10) and its Nyström version (Eq. 11).

**What you need**: notebook 03 (Nyström embeddings). Runs in about half a minute."""),
    ("code", """import time

import holoviews as hv
import numpy as np
import pandas as pd

import kmeviz as K
from kmeviz import viz
from kmeviz.gof_experiments import ksd_power

hv.extension("bokeh", logo=False)"""),
    ("md", """## 1. Stein's identity

Take p = N(0, I₂) and f(x) = k(x, z)·a for a Gaussian k. Averaging (T_p f)(X) over samples
of P gives ≈ 0 (within Monte Carlo error); over samples of a shifted Q it does not. This
is what every Stein discrepancy measures."""),
    ("code", """rng = np.random.default_rng(0)
p = K.NormalTarget(np.zeros(2))
z, a = np.array([0.5, -0.3]), np.array([1.0, 0.5])


def stein_operator_on_f(X):
    diff = X - z
    k = np.exp(-0.5 * np.sum(diff**2, axis=1))
    return k * (p.score(X) @ a) - k * (diff @ a)  # s·f + ∇·f


for name, X in [("from P", p.sample(100_000, rng=rng)),
                ("from Q = P shifted by 0.5", p.sample(100_000, rng=rng) + 0.5)]:
    v = stein_operator_on_f(X)
    print(f"{name:28s} mean (T_p f)(X) = {v.mean():+.4f} ± {v.std() / np.sqrt(v.size):.4f}")"""),
    ("md", """## 2. The Stein kernel needs only the score

A Gaussian mixture's score is known in closed form; its normalising constant would not be
needed even if it were unknown. The Stein Gram matrix is symmetric positive semi-definite
— it is a kernel, h_p(x, y) = ⟨ξ_p(x), ξ_p(y)⟩ (Eq. 3)."""),
    ("code", """mixture = K.GaussianMixtureTarget([[-1.5, 0.0], [1.5, 0.0]], [0.7, 0.7])
kernel = K.IMQKernel(c=1.0, beta=-0.5)
X = mixture.sample(300, rng=1)
H = K.SteinKernel(kernel, mixture)(X)
eig = np.linalg.eigvalsh(H)
print(f"symmetric: {np.allclose(H, H.T)}, "
      f"positive semi-definite up to round-off: {eig[0] > -1e-10 * eig[-1]}")"""),
    ("md", """## 3. KSD²: V- and U-statistics

Under H0 (Q = P) the V-statistic decays like 1/n and the U-statistic is centred at 0;
under an alternative both converge to KSD²(Q) > 0."""),
    ("code", """rows = []
for n in (250, 1000, 4000):
    for name, X in [("Q = P", mixture.sample(n, rng=n)),
                    ("Q = P scaled by 1.3", 1.3 * mixture.sample(n, rng=n))]:
        rows.append({"n": n, "sample": name, "V-statistic": K.ksd2(X, mixture, kernel),
                     "U-statistic": K.ksd2(X, mixture, kernel, estimator="u")})
print(pd.DataFrame(rows).round(5).to_string(index=False))"""),
    ("md", """## 4. Why Nyström

The V-statistic touches all n² pairs. Nyström KSD (Eq. 8) projects the Stein embedding on
m landmarks drawn with replacement: β = K_mn 1/n, KSD̃² = βᵀ K_mm⁺ β, in O(nm + m³). With
all n points as landmarks it *is* the V-statistic; with m = 4√n it is close and much
cheaper. (Timings vary by machine; they are not checked.)"""),
    ("code", """X = 1.3 * mixture.sample(2000, rng=7)
print(f"V-statistic                 {K.ksd2(X, mixture, kernel):.6f}")
every_point = K.ksd2_nystrom(X, mixture, kernel, landmarks=np.arange(2000))
print(f"Nyström, all points         {every_point:.6f}")
for m in (20, 180, 500):
    value = K.ksd2_nystrom(X, mixture, kernel, n_landmarks=m, rng=0)
    print(f"Nyström, m = {m:4d}            {value:.6f}")"""),
    ("code", """big = K.NormalTarget(np.zeros(10))
Xb = big.sample(8000, rng=3)
t0 = time.perf_counter()
K.ksd2(Xb, big, kernel)
t_full = time.perf_counter() - t0
t0 = time.perf_counter()
K.ksd2_nystrom(Xb, big, kernel, rng=0)
t_nys = time.perf_counter() - t0
print(f"n = 8000, d = 10: Nyström (m = 358) is {'faster' if t_nys < t_full else 'slower'} "
      "than the V-statistic")"""),
    ("md", """## 5. Goodness-of-fit tests

H0: the sample comes from p. The wild bootstrap multiplies the Stein Gram by random signs
(Eq. 9, signs from the Markov chain of Eq. 10); the Nyström bootstrap (Eq. 11) computes
all D = 500 replicates as ‖R K_mn w‖²/n² in one pass. Here: a Laplace sample with unit
variance against N(0, I₅), n = 1000 (the setting of Fig. 1b)."""),
    ("code", """target = K.NormalTarget(np.zeros(5))
X = np.random.default_rng(11).laplace(scale=1 / np.sqrt(2), size=(1000, 5))
full = K.ksd_test(X, target, kernel, method="full", rng=0)
nys = K.ksd_test(X, target, kernel, method="nystrom", rng=0)
for r in (full, nys):
    print(f"{r.estimator:12s} KSD² = {r.statistic:.5f}  p = {r.p_value:.4f}  reject: {r.reject}")
(viz.null_histogram(full, statistic="KSD²", title_prefix="full: ").opts(responsive=False,
                                                                        width=460, height=340)
 + viz.null_histogram(nys, statistic="KSD²", title_prefix="Nyström: ").opts(
     responsive=False, width=460, height=340))"""),
    ("md", """Repeating the experiment estimates the power; under H0 (a sample from p itself) the
rejection rate estimates the level α = 0.05. A small version (40 draws each; the full
tables are in `docs/results/`):"""),
    ("code", """methods = {"KSD IMQ": ("full", "imq", None),
           "N-KSD IMQ (m = 4√n)": ("nystrom", "imq", 4)}
power = ksd_power("laplace", [5], n=500, n_repeats=40, methods=methods, rng=5)
size = ksd_power("null", [5], n=500, n_repeats=40, methods=methods, rng=6)
print(pd.concat([power, size])[["problem", "method", "rate", "ci_low", "ci_high"]]
      .round(3).to_string(index=False))"""),
    ("md", """Open the **Stein explorer** (`kmeviz serve`) to change the target, the sampling
distribution, the kernel and m, and watch the witness and both null distributions."""),
]

NB06 = [
    ("md", """# Conditional mean embeddings as regressors

**What you will learn**
- the conditional mean embedding μ̂(x) = Σᵢ αᵢ(x) L(yᵢ, ·), α(x) = (K + nλI)⁻¹ k_x, is a
  kernel ridge regression whose outputs are the feature vectors L(yᵢ, ·) (Grünewälder et
  al. 2012, Eq. 1), so E[h(Y) | X = x] ≈ Σᵢ αᵢ(x) h(yᵢ) for any h in the RKHS;
- choosing λ and the input bandwidth by cross-validating the surrogate loss (Eq. 8);
- sparse embeddings (Sec. 5): FISTA on an ℓ1-penalised fit vs incomplete Cholesky, on the
  pendulum of Sec. 5.1 (Fig. 1).

**What you need**: kernels and ridge regression. Runs in about half a minute."""),
    ("code", """import holoviews as hv
import numpy as np
from scipy import linalg

import kmeviz as K
from kmeviz import viz
from kmeviz.conditional import cross_validate, kl_norm2, sparsity_path

hv.extension("bokeh", logo=False)"""),
    ("md", """## 1. A conditional expectation from a regression

Y = sin X + 0.3 ε with X uniform on [−3, 3]. The weights α(x) come from one Cholesky
factorisation of K + nλI; the same weights estimate E[h(Y) | x] for every h — here h(y) = y
(truth sin x) and h(y) = y² (truth sin² x + 0.09)."""),
    ("code", """rng = np.random.default_rng(0)
X = rng.uniform(-3, 3, size=(400, 1))
Y = np.sin(X) + 0.3 * rng.normal(size=X.shape)
kx, ky = K.GaussianKernel(0.5), K.GaussianKernel(0.5)
cme = K.ConditionalMeanEmbedding(kx, ky, reg=1e-3).fit(X, Y)
grid = np.linspace(-2.8, 2.8, 200)[:, None]
alpha = cme.weights(grid)
print("weights shape:", alpha.shape, " row sums in", alpha.sum(1).min().round(3),
      "…", alpha.sum(1).max().round(3))
for name, h, truth in [("y", Y[:, 0], np.sin(grid[:, 0])),
                       ("y²", Y[:, 0] ** 2, np.sin(grid[:, 0]) ** 2 + 0.09)]:
    err = np.sqrt(np.mean((alpha @ h - truth) ** 2))
    print(f"E[{name} | x]: RMS error over the grid = {err:.3f}")
viz.cme_data_plot(X, Y, grid[:, 0], alpha @ Y[:, 0], np.sin(grid[:, 0]), h_label="Y")"""),
    ("md", """The embedding itself is a function of y for each x: μ̂(x)(y) = Σᵢ αᵢ(x) L(yᵢ, y), a
smoothed picture of the conditional law."""),
    ("code", """ys = np.linspace(-2, 2, 120)[:, None]
viz.cme_embedding_map(grid[:, 0], ys[:, 0], cme.embedding(grid, ys).T).opts(height=320)"""),
    ("md", """## 2. Choosing λ by cross-validation (Sec. 3.2)

The surrogate loss ‖L(y, ·) − μ̂(x)‖² on held-out pairs upper-bounds the error of every
conditional expectation Ê[h(Y) | x] for h in the unit ball, so it is the natural CV score.
We compare the 5-fold choice with the held-out optimum on 4000 fresh pairs."""),
    ("code", """regs = np.logspace(-6, 0, 13)
table, best = cross_validate(X, Y, regs=regs, bandwidths=[0.25, 0.5, 1.0], kernel_y=ky, rng=0)
print("CV choice:", {k: float(f"{v:.3g}") for k, v in best.items()})
Xt = rng.uniform(-3, 3, size=(4000, 1))
Yt = np.sin(Xt) + 0.3 * rng.normal(size=Xt.shape)
held_out = [K.ConditionalMeanEmbedding(K.GaussianKernel(best["bandwidth"]), ky, reg=r)
            .fit(X, Y).surrogate_loss(Xt, Yt) for r in regs]
print(f"held-out optimum at λ = {regs[int(np.argmin(held_out))]:.0e}")
viz.cv_curve(table[table.bandwidth == best["bandwidth"]], best["reg"])"""),
    ("md", """## 3. Sparse embeddings on the pendulum (Sec. 5, Fig. 1)

200 transitions of an under-actuated pendulum: inputs (sin θ, cos θ, ω, u), outputs
(sin θ′, cos θ′, ω′). The dense CME has coefficient matrix W = (K + nλI)⁻¹. FISTA
minimises ‖M − W‖²_{K⊗L} + γ‖M‖₁,₁ (Eq. 17); incomplete Cholesky keeps only r pivot rows.
Fig. 1 compares them at equal numbers of non-zero coefficients."""),
    ("code", """path = sparsity_path(n_train=200, n_test=1000, rng=0)
print(path.assign(parameter=path.parameter.map("{:.3g}".format))
      .round({"nonzero_pct": 1, "relative_error": 3, "relative_test_error": 3})
      .to_string(index=False))"""),
    ("code", """(viz.sparsity_path_plot(path).opts(responsive=False, width=460, height=360)
 + viz.sparsity_path_plot(path, y="relative_test_error").opts(responsive=False, width=460,
                                                               height=360))"""),
    ("md", """At about 6% non-zero coefficients FISTA is within a few per cent of the dense
embedding, while incomplete Cholesky at a similar budget has lost almost everything: the
ℓ1 penalty can spread its budget over all training points, a low-rank fit must spend it on
whole rows. Incomplete Cholesky only catches up near full rank.

Finally, the FISTA objective history is non-increasing (the adaptive restart rejects a
step that would increase it):"""),
    ("code", """Xp, Yp = K.Pendulum().transitions(200, rng=0)
kp = K.GaussianKernel(1.0)
cme_p = K.ConditionalMeanEmbedding(kp, kp, reg=1e-2).fit(Xp, Yp)
W = linalg.cho_solve(cme_p.cho_, np.eye(200))
res = K.sparse_cme(W, cme_p.gram_x_, kp(Yp), gamma=1e-2, tol=1e-6)
print(f"{res.n_iter} iterations, converged = {res.converged}, "
      f"non-increasing: {bool(np.all(np.diff(res.objective_history) <= 1e-12))}")
L = kp(Yp)
rel = np.sqrt(kl_norm2(res.M - W, cme_p.gram_x_, L) / kl_norm2(W, cme_p.gram_x_, L))
nonzero = 100 * np.count_nonzero(res.M) / res.M.size
print(f"relative error {rel:.4f} at {nonzero:.1f}% non-zero")"""),
    ("md", """Open the **CME explorer** (`kmeviz serve`) to change the conditional law, the
kernels, λ and the sparsity γ interactively."""),
]

NOTEBOOKS = {"01_mmd_and_circular_discrepancy.ipynb": NB01, "02_two_sample_tests.ipynb": NB02,
             "03_nystrom_kernel_mean_embeddings.ipynb": NB03, "04_effective_dimension.ipynb": NB04,
             "05_kernel_stein_discrepancy.ipynb": NB05,
             "06_conditional_mean_embeddings.ipynb": NB06}


def build(name: str, cells) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [
        nbformat.v4.new_markdown_cell(src) if kind == "md" else nbformat.v4.new_code_cell(src)
        for kind, src in cells
    ]
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(HERE)}}
    ).execute()
    nbformat.write(nb, HERE / name)
    print("executed", name)


if __name__ == "__main__":
    for name in sys.argv[1:] or NOTEBOOKS:
        build(name, NOTEBOOKS[name])
