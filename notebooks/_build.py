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
        """import numpy as np
import pandas as pd
import holoviews as hv
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

NOTEBOOKS = {"01_mmd_and_circular_discrepancy.ipynb": NB01}


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
