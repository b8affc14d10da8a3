"""The MMD witness function: where two samples differ.

The witness of the MMD (Gretton et al. 2012, Sec. 2.3, Lemma 6 and Fig. 1) is, up to its
norm, f(t) = μ̂_P(t) - μ̂_Q(t) = (1/m) Σ_i k(x_i, t) - (1/n) Σ_j k(y_j, t): positive where
P puts more mass than Q (as seen through the kernel), negative where Q does. Its RKHS
norm is the biased MMD, and Σ over the samples of f recovers MMD²_b:
(1/m) Σ_i f(x_i) - (1/n) Σ_j f(y_j) = MMD²_b.

Examples
--------
>>> import numpy as np
>>> from kmeviz import GaussianKernel, mmd2
>>> rng = np.random.default_rng(0)
>>> X, Y = rng.normal(size=(50, 2)), rng.normal(1.0, 1.0, size=(60, 2))
>>> k = GaussianKernel(1.0)
>>> gap = mmd_witness(X, Y, k, X).mean() - mmd_witness(X, Y, k, Y).mean()
>>> bool(np.isclose(gap, mmd2(X, Y, k)))
True
"""

from __future__ import annotations

import numpy as np

from .._validation import check_pair, check_samples
from ..kernels import check_kernel


def mmd_witness(X, Y, kernel, points, *, working_memory: int | None = None) -> np.ndarray:
    """The unnormalised MMD witness f(t) = μ̂_X(t) - μ̂_Y(t) at each row t of ``points``.

    Gretton et al. 2012, Sec. 2.3 (the witness whose RKHS norm is the MMD).

    Parameters
    ----------
    X : array (m, d)
    Y : array (n, d)
    kernel : Kernel
    points : array (p, d)
        Where to evaluate it (a grid, or the samples themselves).
    working_memory : int, optional
        Bytes per block of kernel values (the points are streamed in row blocks).

    Returns
    -------
    array (p,)
        f at each point: positive where X's embedding exceeds Y's.
    """
    X, Y = check_pair(X, Y, min_samples=1)
    points = check_samples(points, "points")
    if points.shape[1] != X.shape[1]:
        raise ValueError(f"points must have dimension {X.shape[1]} (as X), got "
                         f"{points.shape[1]}")
    kernel = check_kernel(kernel)
    out = np.empty(points.shape[0])
    for Z, sign in ((X, 1.0), (Y, -1.0)):
        for sl, block in kernel.gram_blocks(points, Z, working_memory=working_memory):
            if sign > 0:
                out[sl] = block.mean(axis=1)
            else:
                out[sl] -= block.mean(axis=1)
    return out
