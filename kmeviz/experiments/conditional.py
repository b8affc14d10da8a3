"""Size and power of the conditional independence tests over repeated draws: the effect of
the regularisation ε (notebook 11).

Example
-------
>>> table = epsilon_table([1e-3, 1e3], n=60, n_repeats=5, rng=0)
>>> list(table.columns)
['epsilon', 'chain_rejections', 'collider_rejections', 'residual_ratio']
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import check_positive_int, check_rng
from ..conditional_independence.api import check_conditioning, ci_test
from ..conditional_independence.kci import (
    CentredFactor,
    Residualiser,
    centred,
    default_kci_kernels,
)
from ..distributions.causal import causal_structure


def residual_ratio(Y, Z, kernel_z, epsilon: float) -> float:
    """||R_Z y|| / ||y||: how much of z-scored Y the regression on Z leaves (R_Z y = y −
    K̃_Z (K̃_Z + εI)⁻¹ y, Zhang et al. 2011 Eq. 11)."""
    gram = CentredFactor(None, centred(kernel_z.gram(Z, Z)))
    return float(np.linalg.norm(Residualiser(gram, epsilon).apply(Y)) / np.linalg.norm(Y))


def epsilon_table(epsilons, *, n: int = 200, n_repeats: int = 60, kernel_z=None,
                  collider_noise: float = 1.5, alpha: float = 0.05, rng=None) -> pd.DataFrame:
    """KCI's rejection rate (Gamma null) on a sine chain (H0 true: the size) and a noisy
    sine collider (H0 false: the power) at each ε, over ``n_repeats`` draws of n points,
    and the residual ratio ``residual_ratio`` of the first collider draw's Y.

    Parameters
    ----------
    epsilons : sequence of float
    n, n_repeats : int
    kernel_z : Kernel, optional
        The kernel on Z (default: the authors' width, as ``ci_test``).
    collider_noise : float
    alpha : float
    rng : Generator, int or None
        Seeds the draws (the same draws at every ε).

    Returns
    -------
    pandas.DataFrame
        Columns ``epsilon``, ``chain_rejections``, ``collider_rejections`` (counts out of
        ``n_repeats``) and ``residual_ratio``.
    """
    n, n_repeats = check_positive_int(n, "n"), check_positive_int(n_repeats, "n_repeats")
    seeds = check_rng(rng).integers(2**63, size=n_repeats)
    chains = [causal_structure("chain", n, rng=int(s)) for s in seeds]
    colliders = [causal_structure("collider", n, noise=collider_noise, rng=int(s))
                 for s in seeds]
    _, Y, Z = check_conditioning(*colliders[0])
    kz = kernel_z or default_kci_kernels(n, Z.shape[1]).z  # ci_test's default
    rows = []
    for eps in epsilons:
        counts = [sum(ci_test(*data, kernel_z=kernel_z, epsilon=eps, alpha=alpha).reject
                      for data in draws) for draws in (chains, colliders)]
        rows.append({"epsilon": float(eps), "chain_rejections": int(counts[0]),
                     "collider_rejections": int(counts[1]),
                     "residual_ratio": residual_ratio(Y, Z, kz, eps)})
    return pd.DataFrame(rows)
