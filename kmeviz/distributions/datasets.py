"""Seeded data generators from the papers' experiments.

Two-sample problems return ``(X, Y)``; every generator takes ``rng``.
"""

from __future__ import annotations

import numpy as np

from .._validation import (
    check_in_interval,
    check_positive,
    check_positive_int,
    check_real,
    check_rng,
)
from .real import nyc_taxi_frame


def blobs(
    n: int,
    *,
    epsilon: float = 1.0,
    shift: float = 0.0,
    variance: float = 1.0,
    grid_size: int = 5,
    spacing: float = 10.0,
    rng=None,
) -> np.ndarray:
    """n points from a grid of 2-D Gaussian blobs (FastMMD Sec. 4.1; Gretton et al. 2012b).

    Blob centres sit on a ``grid_size`` × ``grid_size`` grid with ``spacing``. Each
    blob has covariance with eigenvalues (ε, 1) along the diagonals (rotated by
    π/4), so ε = 1 gives identity covariance (distribution P) and ε > 1 the
    elongated blobs of Q. ``shift`` moves every centre by (shift, 0) and
    ``variance`` multiplies every covariance.

    Parameters
    ----------
    n : int
    epsilon, shift, variance : float
    grid_size : int
    spacing : float
    rng : Generator, int or None

    Returns
    -------
    array (n, 2)

    Examples
    --------
    >>> blobs(4, epsilon=4.0, rng=0).shape
    (4, 2)
    """
    n = check_positive_int(n, "n")
    epsilon = check_positive(epsilon, "epsilon")
    shift = check_real(shift, "shift")
    variance = check_positive(variance, "variance")
    grid_size = check_positive_int(grid_size, "grid_size")
    spacing = check_positive(spacing, "spacing")
    rng = check_rng(rng)
    centres = spacing * rng.integers(0, grid_size, size=(n, 2)).astype(float)
    centres[:, 0] += shift
    rotation = np.array([[1.0, -1.0], [1.0, 1.0]]) / np.sqrt(2.0)
    scale = np.sqrt(variance * np.array([epsilon, 1.0]))
    return centres + (rng.standard_normal((n, 2)) * scale) @ rotation.T


def blobs_two_sample(n: int, m: int | None = None, *, epsilon: float = 4.0,
                     shift: float = 0.0, variance: float = 1.0,
                     rng=None) -> tuple[np.ndarray, np.ndarray]:
    """X ~ P (round blobs), Y ~ Q (blobs with eigenvalue ratio ε, mean shift, variance ratio).

    The Gaussian blobs of FastMMD Sec. 4.1 (after Gretton et al. 2012b).

    Parameters
    ----------
    n : int
        Points of X.
    m : int, optional
        Points of Y (default n).
    epsilon, shift, variance : float
        Of Q's blobs (``blobs``).
    rng : Generator, int or None

    Returns
    -------
    X : array (n, 2)
    Y : array (m, 2)
    """
    rng = check_rng(rng)
    X = blobs(n, epsilon=1.0, rng=rng)
    Y = blobs(n if m is None else m, epsilon=epsilon, shift=shift, variance=variance, rng=rng)
    return X, Y


def two_coordinates_two_sample(n: int, m: int | None = None, *, dim: int = 10,
                               correlation: float = 0.5, scale: float = 1.0,
                               rng=None) -> tuple[np.ndarray, np.ndarray]:
    """X ~ 𝒩(0, I_d); Y the same except that its first two coordinates are correlated
    (ρ = ``correlation``) and multiplied by ``scale``: a difference in 2 of d
    coordinates, which an isotropic kernel dilutes among d - 2 noise coordinates and a
    kernel with one length scale per coordinate (``learn_kernel(kernel="ard")``) can
    single out (a sparse alternative in the sense of Liu et al. 2020, Sec. 5).

    Parameters
    ----------
    n : int
        Points of X.
    m : int, optional
        Points of Y (default n).
    dim : int
        d ≥ 2.
    correlation : float in (-1, 1)
    scale : float > 0
        s: Y's first two coordinates have standard deviation s (default 1).
    rng : Generator, int or None

    Returns
    -------
    X : array (n, dim)
    Y : array (m, dim)
    """
    dim = check_positive_int(dim, "dim", minimum=2)
    rho = check_in_interval(correlation, "correlation", -1.0, 1.0)
    scale = check_positive(scale, "scale")
    rng = check_rng(rng)
    X = rng.standard_normal((n, dim))
    Y = rng.standard_normal((n if m is None else m, dim))
    Y[:, 1] = rho * Y[:, 0] + np.sqrt(1.0 - rho**2) * Y[:, 1]
    Y[:, :2] *= scale
    return X, Y


def _bump(t: np.ndarray) -> np.ndarray:
    """G of MMDAgg Sec. 5.4: a smooth bump up on (-1, -½), down on (-½, 0), 0 elsewhere."""
    out = np.zeros_like(t)
    up, down = (t > -1) & (t < -0.5), (t > -0.5) & (t < 0)
    out[up] = np.exp(-1.0 / (1.0 - (4 * t[up] + 3) ** 2))
    out[down] = -np.exp(-1.0 / (1.0 - (4 * t[down] + 1) ** 2))
    return out


def perturbed_uniform_two_sample(n: int, m: int | None = None, *, dim: int = 1,
                                 perturbations: int = 2, scale: float = 0.5,
                                 rng=None) -> tuple[np.ndarray, np.ndarray]:
    """X from a perturbed uniform density on [0, 1]^d, Y uniform: the alternative of
    MMDAgg (Schrab et al. 2023, Sec. 5.4, Eq. 17) that MMD-FUSE (Biggs et al. 2023, Sec. 6)
    is also measured on. The density is 1 + scale · e^d Σ_ν θ_ν Π_r G(p x_r - ν_r) over
    the p^d cells ν ∈ {1, …, p}^d, with random signs θ_ν (drawn from ``rng``) and G a
    smooth bump of height e⁻¹, so ``scale`` ∈ [0, 1] is the perturbation's largest
    amplitude (the authors' convention). Drawn by rejection from the uniform.

    Parameters
    ----------
    n : int
        Points of X (perturbed).
    m : int, optional
        Points of Y (uniform; default n).
    dim : int
        d.
    perturbations : int
        p, bumps per coordinate.
    scale : float in [0, 1]
    rng : Generator, int or None

    Returns
    -------
    X : array (n, dim)
    Y : array (m, dim)
    """
    dim = check_positive_int(dim, "dim")
    p = check_positive_int(perturbations, "perturbations")
    scale = check_real(scale, "scale")
    if not 0.0 <= scale <= 1.0:
        raise ValueError(f"scale must lie in [0, 1] (the density stays >= 0), got {scale}")
    rng = check_rng(rng)
    theta = rng.choice((-1.0, 1.0), size=(p,) * dim)
    cells = np.arange(1, p + 1)

    def density(x):
        bumps = _bump(x[:, :, None] * p - cells[None, None, :])  # (k, d, p)
        total = bumps[:, 0, :]
        for r in range(1, dim):  # Σ_ν θ_ν Π_r G(p x_r - ν_r), one coordinate at a time
            total = total[..., None] * bumps[:, r, :].reshape((-1,) + (1,) * r + (p,))
        return 1.0 + scale * np.exp(dim) * np.sum(theta * total, axis=tuple(range(1, dim + 1)))

    ceiling = 1.0 + scale
    X = np.empty((0, dim))
    while X.shape[0] < n:
        proposals = rng.random((2 * (n - X.shape[0]) + 16, dim))
        keep = rng.random(proposals.shape[0]) * ceiling <= density(proposals)
        X = np.vstack([X, proposals[keep]])
    return X[:n], rng.random((n if m is None else m, dim))


def rings_two_sample(n: int, m: int | None = None, *, rng=None) -> tuple[np.ndarray, np.ndarray]:
    """Uniform points of [-5, 5]² labelled by the ring 1 ≤ ‖x‖² ≤ 16 (FastMMD Sec. 4.2).

    X holds ``n`` points inside the ring (label +1), Y ``m`` points outside (-1).

    Parameters
    ----------
    n : int
    m : int, optional
        Default n.
    rng : Generator, int or None

    Returns
    -------
    X : array (n, 2)
    Y : array (m, 2)
    """
    n = check_positive_int(n, "n")
    m = n if m is None else check_positive_int(m, "m")
    rng = check_rng(rng)
    inside, outside = [], []
    n_in = n_out = 0
    while n_in < n or n_out < m:
        Z = rng.uniform(-5.0, 5.0, size=(2 * (n + m), 2))
        r2 = np.einsum("ij,ij->i", Z, Z)
        ring = (r2 >= 1.0) & (r2 <= 16.0)
        inside.append(Z[ring])
        outside.append(Z[~ring])
        n_in += int(ring.sum())
        n_out += int((~ring).sum())
    return np.vstack(inside)[:n], np.vstack(outside)[:m]


def uniform_boxes_two_sample(
    n: int, m: int | None = None, *, dim: int = 16, rng=None
) -> tuple[np.ndarray, np.ndarray]:
    """X ~ U[0, 0.95]^d and Y ~ U[0.95, 1]^d (FastMMD Sec. 4.3, efficiency test).

    Parameters
    ----------
    n : int
    m : int, optional
        Default n.
    dim : int
    rng : Generator, int or None

    Returns
    -------
    X : array (n, dim)
    Y : array (m, dim)
    """
    n = check_positive_int(n, "n")
    m = n if m is None else check_positive_int(m, "m")
    dim = check_positive_int(dim, "dim")
    rng = check_rng(rng)
    return rng.uniform(0.0, 0.95, size=(n, dim)), rng.uniform(0.95, 1.0, size=(m, dim))


def nyc_taxi() -> np.ndarray:
    """Real data installed with HoloViews (PyPI): hourly NYC taxi pickups in 2016 as an
    (8784, 3) standardised array of hour of day, day of week and pickup count.

    The real-data stand-in of Chatalic et al. Fig. 2 (Sec. 6.2): like its Intel Lab
    data (physical measurements, d = 5) it is a low-dimensional real time series, and it
    needs no download. The file is found without importing HoloViews; a FileNotFoundError
    says so when the installed HoloViews does not ship it.
    """
    df = nyc_taxi_frame()
    Z = df[["hour", "day_of_week", "pickups"]].to_numpy(dtype=float)
    return (Z - Z.mean(axis=0)) / Z.std(axis=0)
