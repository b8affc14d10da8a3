"""dHSIC: joint independence of d ≥ 2 variables (Pfister, Bühlmann, Schölkopf & Peters
2018, JRSS-B 80, Sec. 2–3).

dHSIC = ||μ_{P_{X¹…X^d}} − μ_{P_{X¹}} ⊗ … ⊗ μ_{P_{X^d}}||² under the product kernel; its
V-statistic (Pfister et al., Def. 2.6) from the Grams K¹, …, K^d:

    dHSIC_b = (1/n²) Σ_ij Π_k K^k_ij + (1/n^{2d}) Π_k 1ᵀK^k1 − (2/n^{d+1}) Σ_i Π_k (K^k 1)_i,

which is HSIC_b for d = 2. Its nulls:

- permutation: the variables 2, …, d each permuted independently (Pfister et al.
  Sec. 3.1), which leaves the second term unchanged;
- Gamma: a Gamma law with the H0 mean and variance of the degenerate limit. Linearising
  μ̂_joint − ⊗_k μ̂_k around the product gives the kernel
  h(z, z') = Π_k (k̃_k + m_k) − Π_k m_k − Σ_j k̃_j Π_{k≠j} m_k (k̃_k centred, m_k =
  ||μ̂_k||²), h = k̃_1 k̃_2 for d = 2; then E dHSIC_b ≈ (1/n²) Σ_i h(z_i, z_i) and
  Var dHSIC_b ≈ (2/n⁴) Σ_{i≠j} h(z_i, z_j)².
"""

from __future__ import annotations

import numpy as np

from ..config import get_config
from ..kernels.engine import run_tasks


def dhsic_terms(grams: list[np.ndarray]) -> tuple[float, float, np.ndarray]:
    """(Σ_ij Π_k K^k_ij, Π_k 1ᵀK^k1, the row sums K^k 1 stacked (d, n))."""
    product = grams[0].copy()
    for K in grams[1:]:
        product *= K
    rows = np.stack([K.sum(axis=1) for K in grams])
    return float(product.sum()), float(np.prod(rows.sum(axis=1))), rows


def dhsic_from_terms(cross, totals, row_product_sum, n: int, d: int):
    """dHSIC_b from its three sums (the module's formula)."""
    return cross / n**2 + totals / n ** (2 * d) - 2.0 * row_product_sum / n ** (d + 1)


def dhsic_statistic(grams: list[np.ndarray]) -> float:
    """dHSIC_b of the Grams of the d variables."""
    cross, totals, rows = dhsic_terms(grams)
    n = grams[0].shape[0]
    return float(dhsic_from_terms(cross, totals, np.prod(rows, axis=0).sum(), n, len(grams)))


def permuted_dhsic(grams: list[np.ndarray], perms: np.ndarray) -> np.ndarray:
    """dHSIC_b with variables 2..d permuted by ``perms[b, k - 1]`` (B × (d − 1) × n)."""
    n, d = grams[0].shape[0], len(grams)
    _, totals, rows = dhsic_terms(grams)

    def work(b):
        product = grams[0].copy()
        row_product = rows[0].copy()
        for k in range(1, d):
            p = perms[b, k - 1]
            product *= np.take(grams[k][p], p, axis=1)
            row_product *= rows[k][p]
        return dhsic_from_terms(float(product.sum()), totals, row_product.sum(), n, d)

    return np.array(run_tasks(work, range(perms.shape[0]), get_config()["n_threads"]))


def dhsic_gamma_moments(grams: list[np.ndarray]) -> dict:
    """The H0 mean and variance of dHSIC_b from the kernel h of the module docstring, and
    the Gamma ``shape`` and ``scale`` matching them."""
    n = grams[0].shape[0]
    centred, masses = [], []
    for K in grams:
        r = K.mean(axis=1)
        centred.append(K - r[:, None] - r[None, :] + r.mean())
        masses.append(r.mean())
    full = np.ones((n, n))
    for Kc, m in zip(centred, masses, strict=True):
        full *= Kc + m
    h = full - np.prod(masses)
    for j, Kc in enumerate(centred):
        h -= Kc * np.prod([m for k, m in enumerate(masses) if k != j])
    mean = float(np.trace(h)) / n**2
    variance = 2.0 * float(np.sum(h**2) - np.sum(np.diagonal(h) ** 2)) / n**4
    if not (mean > 0 and variance > 0):
        raise ValueError("the Gamma null of dHSIC is degenerate on these samples (a "
                         "constant variable?): use null='permutation'")
    return {"mean": mean, "variance": variance, "shape": mean**2 / variance,
            "scale": variance / mean}
