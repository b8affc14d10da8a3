"""Random feature Stein discrepancies (Huggins & Mackey 2018), the near-linear-time
competitors of Kalinke et al. Fig. 1: RFF-KSD (Gauss and Cauchy RFF) and L1 IMQ.

For J random features f_j with importance weights w_j, the Langevin Stein operator in
coordinate d gives the feature tensor

    Ξ_{i,d,j} = w_j [s_d(x_i) f_j(x_i) + ∂_d f_j(x_i)],

whose mean is zero under P (Stein's identity). With V = √n · mean_i Ξ_i (d × J), the
statistic is n · RΦSD² = Σ_d (Σ_j |V_dj|^r)^{2/r}. Under H0, V → N(0, Σ), Σ the covariance
of Ξ_i, so the null is simulated by the same norm of draws from N(0, Σ̂): Σ̂ is the sample
covariance of the Ξ_i (as the FSSD null of Jitkrittum et al. 2017), or, as Huggins &
Mackey do, their covariance at 5000 + 500d draws from the target. L1 IMQ's features are
heavy-tailed, so its sample covariance is noisy and the test over-rejects (0.12 at
α = 0.05, d = 3, n = 300 in 300 draws; 0.067 with target draws): give it the target's.

- **RFF-KSD** (r = 2): f_j(x) = √(2 K(0)) cos(ω_jᵀx + b_j), ω_j from the spectral measure
  of a shift-invariant kernel, b_j ~ U[0, 2π), w_j = 1/√J; then Σ_j f_j(x) f_j(y) / J
  estimates k(x, y) and the statistic is n times the V-statistic KSD² of that random
  kernel. A ``GaussianKernel`` gives "Gauss RFF", a ``CauchyKernel`` "Cauchy RFF".
- **L1 IMQ** (r = 1): f_j(x) = (c'² + ||x - z_j||²)^{β'}, z_j drawn from an isotropic
  Student-t law ν centred at the sample mean, w_j = 1 / (J ν(z_j)) (importance sampling of
  the L¹ norm over z). From the IMQ kernel's c and the efficiency parameter γ:
  a = γ/3, ξ = 4a/(2 + a), ξ' = ξ d/(d + df), β' = -d/(2ξ'), c' = (1 - a/2) c/2, and ν has
  df degrees of freedom and scale c'/√df — the L^r IMQ construction of Huggins & Mackey
  (Sec. 3) with the settings of their goodness-of-fit experiments (γ = 1/4, df = 1/2,
  c = 4 × the median distance; Sec. 5).

L2 SechExp is not implemented (its smoothed exponential tilt is beyond these papers' text).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .._validation import check_positive, check_positive_int
from ..kernels import IMQKernel, ShiftInvariantKernel, checked_score

#: efficiency parameter γ and degrees of freedom of ν for L1 IMQ (Huggins & Mackey, Sec. 5)
L1_IMQ_GAMMA = 0.25
L1_IMQ_DF = 0.5


class FourierSteinFeatures:
    """f_j(x) = √(2 K(0)) cos(ω_jᵀx + b_j), weights 1/√J, r = 2 (RFF-KSD)."""

    order = 2

    def __init__(self, kernel: ShiftInvariantKernel, dim: int, n_features: int, rng):
        if not isinstance(kernel, ShiftInvariantKernel):
            raise TypeError("estimator='rff' draws the frequencies of a shift-invariant kernel "
                            "(GaussianKernel for Gauss RFF, CauchyKernel for Cauchy RFF), "
                            f"got {type(kernel).__name__}")
        self.frequencies = kernel.sample_frequencies(n_features, dim, rng=rng)
        self.phases = rng.uniform(0.0, 2.0 * np.pi, size=n_features)
        self.amplitude = np.sqrt(2.0 * kernel.value_at_zero / n_features)

    def tensor(self, X, S, log_factor=None) -> tuple[np.ndarray, float]:
        """(Ξ of shape (n, d, J), log of the factor it was divided by: 0 here)."""
        arg = X @ self.frequencies.T + self.phases  # (n, J)
        cos, sin = np.cos(arg), np.sin(arg)
        xi = S[:, :, None] * cos[:, None, :] - self.frequencies.T[None, :, :] * sin[:, None, :]
        return self.amplitude * xi, 0.0


class IMQSteinFeatures:
    """f_j(x) = (c'² + ||x - z_j||²)^{β'}, z_j ~ ν (Student-t), weights 1/(J ν(z_j)), r = 1
    (L1 IMQ)."""

    order = 1

    def __init__(self, kernel: IMQKernel, center, n_features: int, rng, *,
                 gamma: float = L1_IMQ_GAMMA, df: float = L1_IMQ_DF):
        if not isinstance(kernel, IMQKernel):
            raise TypeError("estimator='l1-imq' builds its features from an IMQ kernel's c: "
                            f"kernel must be an IMQKernel, got {type(kernel).__name__}")
        gamma, df = check_positive(gamma, "gamma"), check_positive(df, "df")
        d = center.size
        a = gamma / 3.0
        xi = 4.0 * a / (2.0 + a) * d / (d + df)
        self.beta = -d / (2.0 * xi)
        self.c = (1.0 - a / 2.0) * kernel.c / 2.0
        scale = self.c / np.sqrt(df)
        chi = np.sqrt(rng.chisquare(df, size=(n_features, 1)) / df)
        self.centers = center + scale * rng.standard_normal((n_features, d)) / chi
        r2 = np.sum(((self.centers - center) / scale) ** 2, axis=1)
        log_nu = (special.gammaln((df + d) / 2.0) - special.gammaln(df / 2.0)
                  - 0.5 * d * np.log(df * np.pi * scale**2) - 0.5 * (df + d) * np.log1p(r2 / df))
        self.log_weights = -(np.log(n_features) + log_nu)

    def tensor(self, X, S, log_factor=None) -> tuple[np.ndarray, float]:
        """(Ξ / e^M, M): the features span hundreds of orders of magnitude (β' is about -3d
        and ν is heavy-tailed), so they are formed in logs and divided by their largest
        (or by e^``log_factor``, to share another sample's units)."""
        u = X[:, None, :] - self.centers[None, :, :]  # (n, J, d)
        base = self.c**2 + np.einsum("njd,njd->nj", u, u)
        log_f = self.log_weights[None, :] + self.beta * np.log(base)
        top = float(log_f.max()) if log_factor is None else log_factor
        f = np.exp(log_f - top)
        xi = f[:, None, :] * (S[:, :, None]
                              + 2.0 * self.beta * np.moveaxis(u, 2, 1) / base[:, None, :])
        return xi, top


def feature_norm(V: np.ndarray, order: int) -> np.ndarray:
    """Σ_d (Σ_j |V_dj|^r)^{2/r} over the last two axes (d, J)."""
    if order == 2:
        return np.sum(V * V, axis=(-2, -1))
    return np.sum(np.sum(np.abs(V) ** order, axis=-1) ** (2.0 / order), axis=-1)


NULL_COVARIANCES = ("sample", "target")


def null_draw_count(dim: int) -> int:
    """Draws from the target that estimate Σ for ``null_covariance="target"``: 5000 + 500d,
    Huggins & Mackey's setting."""
    return 5000 + 500 * dim


def normal_draws(rows: np.ndarray, n_draws: int, rng) -> np.ndarray:
    """Draws from N(0, Σ̂), Σ̂ the covariance of ``rows`` (N × p), through a square root of
    Σ̂ with min(N, p) columns: the eigenvectors of Σ̂ when p ≤ N, else the centred rows
    themselves (Σ̂ = RᵀR/(N - 1)), so p may be large (many features) at O(N p) memory."""
    N, p = rows.shape
    if p <= N:
        eigenvalues, vectors = np.linalg.eigh(np.atleast_2d(np.cov(rows, rowvar=False)))
        root = vectors * np.sqrt(np.clip(eigenvalues, 0.0, None))
        return rng.standard_normal((n_draws, p)) @ root.T
    centred = (rows - rows.mean(axis=0)) / np.sqrt(N - 1)
    return rng.standard_normal((n_draws, N)) @ centred


def feature_stein_test(X, S, features, n_resamples: int, rng, target=None):
    """(n · RΦSD², null draws) for Stein features: the norm of √n · mean Ξ, and the same
    norm of draws from N(0, Σ̂). Σ̂ is the covariance of the rows of Ξ at the sample, or,
    given a ``target`` that can ``sample``, at ``null_draw_count(d)`` draws from it."""
    D = check_positive_int(n_resamples, "n_resamples")
    xi, log_factor = features.tensor(X, S)
    n, d, J = xi.shape
    stat = feature_norm(np.sqrt(n) * xi.mean(axis=0), features.order)
    if target is None:
        flat = xi.reshape(n, d * J)
    else:
        P = np.asarray(target.sample(null_draw_count(d), rng=rng), dtype=float)
        flat = features.tensor(P, checked_score(target, P), log_factor)[0].reshape(len(P), -1)
    draws = normal_draws(flat, D, rng).reshape(D, d, J)
    null = feature_norm(draws, features.order)
    factor = np.exp(2.0 * log_factor)
    if np.isfinite(factor) and factor > 0.0:  # back in the statistic's own units
        return float(stat * factor), null * factor
    return float(stat), null  # out of float range: kept in units of e^{2M} (p unchanged)


def rff_ksd(X, S, kernel, n_features: int, n_resamples: int, rng, target=None):
    """RFF-KSD test pieces: (statistic, null draws, fitted)."""
    features = FourierSteinFeatures(kernel, X.shape[1],
                                    check_positive_int(n_features, "n_locations"), rng)
    stat, null = feature_stein_test(X, S, features, n_resamples, rng, target)
    return stat, null, {"frequencies": features.frequencies, "phases": features.phases}


def l1_imq_ksd(X, S, kernel, n_features: int, n_resamples: int, rng, target=None):
    """L1 IMQ test pieces: (statistic, null draws, fitted)."""
    features = IMQSteinFeatures(kernel, X.mean(axis=0),
                                check_positive_int(n_features, "n_locations"), rng)
    stat, null = feature_stein_test(X, S, features, n_resamples, rng, target)
    return stat, null, {"centers": features.centers, "c_prime": features.c,
                        "beta_prime": features.beta}
