"""The finite set Stein discrepancy (Jitkrittum, Xu, Szabó, Fukumizu & Gretton 2017, "A
linear-time kernel goodness-of-fit test"), with random or optimised test locations.

For J test locations v_j and a kernel k, the features of a point are

    τ(x) = [ξ(x, v_1), ..., ξ(x, v_J)] / √(dJ),  ξ(x, v) = s(x) k(x, v) + ∇ₓk(x, v)

(the Stein operator applied to k(·, v); their Eq. 2), and FSSD² = ||E τ(X)||². Its
U-statistic FSSD²_u = (||Σ τ_i||² - Σ ||τ_i||²) / (n(n-1)) has the H0 law
Σ_k ω_k (Z_k² - 1) / n, ω the eigenvalues of Cov τ (their Theorem 2).

FSSD-opt (their Sec. 3) splits the sample: on the first 20 % it chooses the locations and
the Gaussian bandwidth that maximise the power criterion FSSD²_u / √(σ̂²_H1 + γ), with
σ̂²_H1 = 4 μᵀ Σ̂ μ the H1 variance of the statistic (μ, Σ̂ the mean and covariance of τ);
the test runs on the other 80 %. The criterion's gradient is written out below and checked
against finite differences in the tests.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

from .._validation import check_positive_int
from ..kernels import GaussianKernel, RadialKernel

#: the fraction of the sample used to choose the locations (Jitkrittum et al., Sec. 5)
TRAIN_FRACTION = 0.2
#: γ of the power criterion, the bandwidth grid (factors of σ²) and the L-BFGS iterations:
#: the settings of the authors' experiments
REGULARISATION = 1e-2
WIDTH_GRID = 2.0 ** np.linspace(-3, 3, 5)
MAX_ITERATIONS = 40


def fssd_features(X, S, kernel, locations) -> np.ndarray:
    """τ(x) = [s(x) k(x, v_j) + ∇ₓk(x, v_j)]_j / √(dJ) ∈ R^{dJ}, one row per x."""
    n, d = X.shape
    diff = X[:, None, :] - locations[None, :, :]  # (n, J, d)
    phi, d1, _ = kernel.radial_derivatives(np.einsum("njd,njd->nj", diff, diff))
    xi = S[:, None, :] * phi[..., None] + 2.0 * d1[..., None] * diff
    return xi.reshape(n, -1) / np.sqrt(d * locations.shape[0])


def fssd_u(tau: np.ndarray) -> float:
    """FSSD²_u = (||Σ τ_i||² - Σ ||τ_i||²) / (n(n-1))."""
    n = tau.shape[0]
    total = tau.sum(axis=0)
    return float((total @ total - np.sum(tau * tau)) / (n * (n - 1)))


def fssd_null(tau: np.ndarray, n_resamples: int, rng) -> np.ndarray:
    """Draws of Σ_k ω_k (Z_k² - 1) / n, ω the eigenvalues of the covariance of τ."""
    omega = np.clip(np.linalg.eigvalsh(np.atleast_2d(np.cov(tau, rowvar=False))), 0.0, None)
    Z = rng.standard_normal((n_resamples, omega.size))
    return (Z**2 - 1.0) @ omega / tau.shape[0]


def gaussian_locations(X, n_locations: int, rng) -> np.ndarray:
    """J locations drawn from the Gaussian fitted to X (FSSD-rand's choice)."""
    d = X.shape[1]
    cov = np.atleast_2d(np.cov(X, rowvar=False)) + 1e-8 * np.eye(d)
    return rng.multivariate_normal(X.mean(axis=0), cov, size=n_locations)


def fssd_rand(X, S, kernel, n_locations: int, n_resamples: int, rng):
    """(FSSD²_u, null draws) with random locations from the Gaussian fitted to X."""
    if not isinstance(kernel, RadialKernel):
        raise TypeError("estimator='fssd' needs a radial kernel (GaussianKernel, IMQKernel), "
                        f"got {type(kernel).__name__}")
    J = check_positive_int(n_locations, "n_locations")
    tau = fssd_features(X, S, kernel, gaussian_locations(X, J, rng))
    return fssd_u(tau), fssd_null(tau, n_resamples, rng)


def power_criterion(X, S, locations, log_bandwidth, reg: float = REGULARISATION,
                    gradient: bool = False):
    """FSSD²_u / √(σ̂²_H1 + γ) for a Gaussian kernel exp(-||x - v||² / (2σ²)), σ = e^t,
    and, with ``gradient``, its derivatives with respect to the locations (J, d) and t."""
    n, d = X.shape
    J = locations.shape[0]
    scale = 1.0 / np.sqrt(d * J)
    inv_s2 = np.exp(-2.0 * log_bandwidth)
    u = X[:, None, :] - locations[None, :, :]  # (n, J, d)
    q = np.einsum("njd,njd->nj", u, u)
    k = np.exp(-0.5 * q * inv_s2)
    direction = S[:, None, :] - u * inv_s2  # s(x) - u/σ², so ξ = k · direction
    tau = (k[..., None] * direction).reshape(n, -1) * scale
    mu = tau.mean(axis=0)
    stat = fssd_u(tau)
    a = tau @ mu
    c = a - a.mean()
    var_h1 = 4.0 * float(c @ c) / (n - 1)
    root = np.sqrt(var_h1 + reg)
    value = stat / root
    if not gradient:
        return value
    # ∂/∂τ_i of FSSD²_u and of σ̂²_H1 = 4/(n-1) Σ_k (τ_k·μ - mean)², then the chain rule
    d_stat = 2.0 * (tau.sum(axis=0)[None, :] - tau) / (n * (n - 1))
    d_var = 8.0 / (n - 1) * (c[:, None] * mu[None, :] + (c @ tau)[None, :] / n)
    G = (d_stat / root - 0.5 * stat / root**3 * d_var).reshape(n, J, d) * scale
    g_dot_dir = np.einsum("njd,njd->nj", G, direction)
    kG = k * g_dot_dir * inv_s2
    # ∂ξ/∂v = k/σ² [(s - u/σ²) uᵀ + I];  ∂ξ/∂t = k q/σ² (s - u/σ²) + 2k u/σ²
    d_locations = (np.einsum("nj,njd->jd", kG, u)
                   + np.einsum("nj,njd->jd", k * inv_s2, G))
    d_log_bandwidth = float(np.sum(kG * q) + 2.0 * inv_s2 * np.einsum("nj,njd,njd->", k, G, u))
    return value, d_locations, d_log_bandwidth


def optimise_locations(X, S, locations, bandwidth: float):
    """Locations and bandwidth maximising ``power_criterion`` on (X, S): the bandwidth
    first by a grid search over σ² × 2^{-3..3}, then both by L-BFGS-B within boxes (the
    locations within the data's range ± 10 standard deviations, σ² within 10³ of the
    grid's best)."""
    J, d = locations.shape
    grid = 0.5 * np.log(bandwidth**2 * WIDTH_GRID)
    t0 = grid[int(np.argmax([power_criterion(X, S, locations, t) for t in grid]))]
    spread = 10.0 * X.std(axis=0)
    bounds = [(lo, hi) for lo, hi in zip(np.tile(X.min(axis=0) - spread, J),
                                         np.tile(X.max(axis=0) + spread, J), strict=True)]
    bounds.append((t0 - 0.5 * np.log(1e3), t0 + 0.5 * np.log(1e3)))

    def negative(theta):
        value, d_loc, d_t = power_criterion(X, S, theta[:-1].reshape(J, d), theta[-1],
                                            gradient=True)
        return -value, -np.append(d_loc.ravel(), d_t)

    start = np.append(locations.ravel(), t0)
    result = optimize.minimize(negative, start, jac=True, method="L-BFGS-B", bounds=bounds,
                               options={"maxiter": MAX_ITERATIONS})
    theta = result.x if np.all(np.isfinite(result.x)) else start
    return theta[:-1].reshape(J, d), float(np.exp(theta[-1]))


def fssd_opt(X, S, kernel, n_locations: int, n_resamples: int, rng):
    """(FSSD²_u on the test part, null draws, fitted) for FSSD-opt: locations and Gaussian
    bandwidth optimised on a random 20 % of the sample, started from random locations and
    ``kernel``'s bandwidth."""
    if not isinstance(kernel, GaussianKernel):
        raise TypeError("estimator='fssd-opt' optimises a Gaussian bandwidth: kernel must be a "
                        f"GaussianKernel (its bandwidth is the start), got "
                        f"{type(kernel).__name__}")
    J = check_positive_int(n_locations, "n_locations")
    n = X.shape[0]
    n_train = int(round(TRAIN_FRACTION * n))
    if n_train < 2 or n - n_train < 2:
        raise ValueError(f"estimator='fssd-opt' needs at least 10 samples (20 % of them choose "
                         f"the locations), got {n}")
    order = rng.permutation(n)
    train, test = order[:n_train], order[n_train:]
    start = gaussian_locations(X[train], J, rng)
    locations, bandwidth = optimise_locations(X[train], S[train], start, kernel.bandwidth)
    tau = fssd_features(X[test], S[test], GaussianKernel(bandwidth), locations)
    fitted = {"locations": locations, "bandwidth": bandwidth, "train": train, "test": test}
    return fssd_u(tau), fssd_null(tau, n_resamples, rng), fitted
