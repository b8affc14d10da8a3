"""The kernels of the papers: Gaussian, Laplace, inverse multiquadric and Cauchy, and the
median heuristic for their bandwidth."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import stats
from scipy.spatial.distance import cdist

from .._validation import (
    check_in_interval,
    check_pair,
    check_positive_int,
    check_rng,
    check_samples,
    check_scale,
)
from .base import RadialKernel, ShiftInvariantKernel, _Prepared


class _GaussianPrepared(NamedTuple):
    """A Gaussian kernel's prepared sample: the scaled rows, their half squared norms h,
    and the rows augmented for one-product tiles, [x, -h, 1] (left) and [x, 1, -h]
    (right)."""

    X: np.ndarray
    h: np.ndarray
    left: np.ndarray | None = None
    right: np.ndarray | None = None


@dataclass(frozen=True)
class GaussianKernel(ShiftInvariantKernel, RadialKernel):
    """Gaussian kernel k(x, y) = exp(-||x - y||² / (2σ²)).

    Its spectral measure is N(0, σ⁻² I) (FastMMD Sec. 2.2).

    Parameters
    ----------
    bandwidth : float
        σ > 0.

    Examples
    --------
    >>> import numpy as np
    >>> k = GaussianKernel(bandwidth=1.0)
    >>> bool(np.isclose(k(np.zeros((1, 2)), np.ones((1, 2)))[0, 0], np.exp(-1.0), rtol=1e-15))
    True
    """

    characteristic = True  # its mean embedding is injective

    bandwidth: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "bandwidth", check_scale(self.bandwidth, "bandwidth"))

    def prepare_validated(self, X):
        Xs = X / self.bandwidth
        h = 0.5 * np.einsum("ij,ij->i", Xs, Xs)
        ones = np.ones((X.shape[0], 1))
        return _GaussianPrepared(Xs, h, np.hstack([Xs, -h[:, None], ones]),
                                 np.hstack([Xs, ones, -h[:, None]]))

    def tile_into(self, a, b, out):
        # -||x - y||²/(2σ²) = <xs, ys> - |xs|²/2 - |ys|²/2 = <[xs, -hx, 1], [ys, 1, -hy]>:
        # one matrix product of the rows augmented by two columns, then exp, both in place.
        # Subtracting the half norms from the tile took two more passes over it (a quarter
        # of a float32 tile's time, issue 46). Round-off can leave the exponent a few ulp
        # of |xs|² above 0, so k(x, x) may read 1 + 1e-16; clipping that away would cost
        # one more pass for no effect on any estimate, so it is left.
        if a.left is None or b.right is None:  # rows prepared without the augmented forms
            np.dot(a.X, b.X.T, out=out)
            out -= a.h[:, None]
            out -= b.h[None, :]
        else:
            np.matmul(a.left, b.right.T, out=out)
        return np.exp(out, out=out)

    def paired(self, X, Y):
        diff = X - Y
        return np.exp(-0.5 * np.einsum("ij,ij->i", diff, diff) / self.bandwidth**2)

    def radial(self, sq):
        return np.exp(-0.5 / self.bandwidth**2 * sq)

    def from_distance(self, distance, out):
        np.multiply(distance, -0.5 / self.bandwidth**2, out=out)
        return np.exp(out, out=out)

    def radial_derivatives(self, sq, out=None):
        a = 0.5 / self.bandwidth**2
        phi, d1, d2 = out if out is not None else (None, None, None)
        phi = np.exp(np.multiply(sq, -a, out=phi), out=phi)
        d1 = np.multiply(phi, -a, out=d1)
        return phi, d1, np.multiply(d1, -a, out=d2)

    def draw_frequencies(self, n_features, dim, rng):
        return rng.standard_normal((n_features, dim)) / self.bandwidth

    def frequencies_from_uniform(self, U, dim):
        return stats.norm.ppf(U) / self.bandwidth


@dataclass(frozen=True)
class _CoordinateKernel(ShiftInvariantKernel):
    """A product over coordinates of a function of (x_d - y_d)/σ: the bandwidth, and
    samples prepared as X/σ (contiguous, for the per-coordinate tiles)."""

    characteristic = True  # its mean embedding is injective

    bandwidth: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "bandwidth", check_scale(self.bandwidth, "bandwidth"))

    def prepare_validated(self, X):
        return _Prepared(np.ascontiguousarray(X / self.bandwidth), None)


@dataclass(frozen=True)
class LaplaceKernel(_CoordinateKernel):
    """Laplace kernel k(x, y) = exp(-||x - y||₁ / σ).

    Its spectral measure is a product of Cauchy(0, 1/σ) laws, one per coordinate.

    A shift-invariant kernel of FastMMD Sec. 2.2 (Bochner's theorem).

    Parameters
    ----------
    bandwidth : float
        σ > 0.
    """

    def tile_into(self, a, b, out):
        if out.dtype == np.float64:
            cdist(a.X, b.X, metric="cityblock", out=out)
        else:  # scipy's cdist writes float64 only
            out[...] = cdist(a.X, b.X, metric="cityblock")
        np.negative(out, out=out)
        return np.exp(out, out=out)

    distance = "l1"

    def from_distance(self, distance, out):
        np.multiply(distance, -1.0 / self.bandwidth, out=out)
        return np.exp(out, out=out)

    def paired(self, X, Y):
        return np.exp(-np.abs(X - Y).sum(axis=1) / self.bandwidth)

    def draw_frequencies(self, n_features, dim, rng):
        return rng.standard_cauchy((n_features, dim)) / self.bandwidth

    def frequencies_from_uniform(self, U, dim):
        return np.tan(np.pi * (U - 0.5)) / self.bandwidth  # the Cauchy inverse CDF


@dataclass(frozen=True)
class CauchyKernel(_CoordinateKernel):
    """Product Cauchy kernel k(x, y) = ∏_d 1 / (1 + (x_d - y_d)² / σ²).

    Its spectral measure is a product of Laplace(0, 1/σ) laws (the characteristic function
    of Laplace(0, b) is 1 / (1 + b²t²)): the "Cauchy RFF" of Huggins & Mackey (2018),
    a competitor in Kalinke et al. Fig. 1.

    Parameters
    ----------
    bandwidth : float
        σ > 0.
    """

    def tile_into(self, a, b, out):
        out[...] = 1.0
        for j in range(a.X.shape[1]):
            diff = a.X[:, j, None] - b.X[None, :, j]
            diff *= diff
            diff += 1.0
            out /= diff
        return out

    def paired(self, X, Y):
        return np.prod(1.0 / (1.0 + ((X - Y) / self.bandwidth) ** 2), axis=1)

    def draw_frequencies(self, n_features, dim, rng):
        return rng.laplace(scale=1.0 / self.bandwidth, size=(n_features, dim))

    def frequencies_from_uniform(self, U, dim):
        return stats.laplace.ppf(U) / self.bandwidth


@dataclass(frozen=True)
class IMQKernel(ShiftInvariantKernel, RadialKernel):
    """Inverse multiquadric kernel k(x, y) = (c² + ||x - y||²)^β with β < 0.

    It is a Gamma mixture of Gaussians, (c² + r²)^β = c^{2β} E_t exp(-t r²) with
    t ~ Gamma(-β, rate c²), so it is positive definite for every β < 0 and its spectral
    measure is sampled as ω | t ~ N(0, 2t I).

    Gorham & Mackey 2017; the IMQ kernel of Kalinke et al. Sec. 5. Gorham & Mackey's
    result that the IMQ KSD controls convergence needs β in (-1, 0); the experiments of
    Kalinke et al. (the script of Huggins & Mackey's random-feature Stein discrepancies)
    use the L1 IMQ construction's β′ = −(d + ½)/(2ξ), about −48 at d = 15, which this
    kernel accepts.

    Parameters
    ----------
    c : float
        c > 0.
    beta : float
        β < 0 (β in (-1, 0) for Gorham & Mackey's convergence control).
    """

    characteristic = True  # its mean embedding is injective

    c: float = 1.0
    beta: float = -0.5

    def __post_init__(self):
        object.__setattr__(self, "c", check_scale(self.c, "c"))
        object.__setattr__(self, "beta", check_in_interval(self.beta, "beta", -np.inf, 0.0))

    @property
    def value_at_zero(self) -> float:
        return self.c ** (2 * self.beta)

    @property
    def scale(self) -> float:
        return float(self.c)

    def _radial_in_place(self, sq):
        sq += self.c**2
        return np.power(sq, self.beta, out=sq)

    def paired(self, X, Y):
        diff = X - Y
        return (self.c**2 + np.einsum("ij,ij->i", diff, diff)) ** self.beta

    def radial(self, sq):
        return (self.c**2 + sq) ** self.beta

    def radial_derivatives(self, sq, out=None):
        phi, d1, d2 = out if out is not None else (None, None, None)
        inv_base = np.reciprocal(np.add(sq, self.c**2, out=d2), out=d2)  # d2 holds it
        phi = (np.sqrt(inv_base, out=phi) if self.beta == -0.5
               else np.power(inv_base, -self.beta, out=phi))
        d1 = np.multiply(phi, inv_base, out=d1)
        d1 *= self.beta
        d2 = np.multiply(d1, inv_base, out=inv_base)
        d2 *= self.beta - 1.0
        return phi, d1, d2

    def draw_frequencies(self, n_features, dim, rng):
        t = rng.gamma(shape=-self.beta, scale=1.0 / self.c**2, size=(n_features, 1))
        return rng.standard_normal((n_features, dim)) * np.sqrt(2.0 * t)

    def uniform_dim(self, dim):
        return dim + 1  # one coordinate for the Gamma mixing variable t

    def frequencies_from_uniform(self, U, dim):
        t = stats.gamma.ppf(U[:, :1], -self.beta, scale=1.0 / self.c**2)
        return stats.norm.ppf(U[:, 1:]) * np.sqrt(2.0 * t)


def median_heuristic(X, Y=None, *, max_samples: int = 1000, rng=0) -> float:
    """Median pairwise Euclidean distance of the pooled sample (a bandwidth guess).

    Uses a seeded subsample of at most ``max_samples`` points so its cost is bounded.
    The median heuristic of Gretton et al. 2012 (Garreau et al. 2018), as in Kalinke et
    al. Sec. 5.

    Parameters
    ----------
    X : array (m, d)
    Y : array (n, d), optional
        Pooled with X.
    max_samples : int
    rng : Generator, int or None
        The subsample's seed: fixed (0) by default, so the heuristic is a function of the
        data and a default kernel is the same on every call.

    Returns
    -------
    float
        The median distance, a bandwidth σ.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> 1.0 < median_heuristic(X, rng=0) < 2.5
    True
    """
    if Y is None:
        Z = check_samples(X, "X", min_samples=2)
    else:
        X, Y = check_pair(X, Y)
        Z = np.vstack([X, Y])
    max_samples = check_positive_int(max_samples, "max_samples", minimum=2)
    if Z.shape[0] > max_samples:
        Z = Z[check_rng(rng).choice(Z.shape[0], size=max_samples, replace=False)]
    sq = np.einsum("ij,ij->i", Z, Z)
    d2 = sq[:, None] + sq[None, :] - 2.0 * Z @ Z.T
    iu = np.triu_indices(Z.shape[0], k=1)
    med = float(np.median(np.sqrt(np.maximum(d2[iu], 0.0))))
    if med <= 0.0:
        raise ValueError("median_heuristic: all points coincide; choose a bandwidth by hand")
    return med
