"""One Gaussian mixture for every paper: sampled, scored, evaluated, and embedded in
closed form.

Σ_c w_c N(μ_c, diag(s_c)). KSD needs its score ∇ log p (Kalinke et al.); the Nyström KME
experiments need its kernel mean embedding in closed form (App. G of Chatalic et al.
2022); both use the same object.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .._validation import check_positive_int, check_rng, check_samples
from ..embeddings.baselines import RandomFeatureKME
from ..kernels import GaussianKernel, symmetric_quadratic_forms


class GaussianMixture:
    """Mixture Σ_c w_c N(μ_c, diag(s_c)) with its score and closed-form Gaussian-kernel
    embeddings.

    For k(x, y) = exp(-||x - y||²/(2τ²)) = (2πτ²)^{d/2} N_x(y, τ²I) (App. G):
    μ(z) = Σ_c w_c (2πτ²)^{d/2} N_z(μ_c, diag(s_c) + τ²I) and
    ||μ||² = Σ_{c,c'} w_c w_c' (2πτ²)^{d/2} N_{μ_c'}(μ_c, diag(s_c + s_c') + τ²I).
    The score is ∇ log p(x) = Σ_c r_c(x) (μ_c - x) / s_c with r_c the responsibilities.

    Parameters
    ----------
    means : array (p, d)
    variances : array (p,) (isotropic) or (p, d) (diagonal)
    weights : array (p,), non-negative, summing to 1 (default: equal weights)
    """

    def __init__(self, means, variances, weights=None):
        self.means = check_samples(means, "means")
        p, d = self.means.shape
        self.dim = d
        var = np.asarray(variances, dtype=float)
        if var.ndim == 0 or var.ndim > 2 or var.shape[0] != p:
            raise ValueError(f"variances must have shape ({p},) or ({p}, {d}), got {var.shape}")
        var = np.broadcast_to(var[:, None] if var.ndim == 1 else var, (p, d)).copy()
        if not np.all(np.isfinite(var)) or np.any(var <= 0):
            raise ValueError("variances must be finite and > 0")
        w = np.full(p, 1.0 / p) if weights is None else np.asarray(weights, dtype=float)
        if w.shape != (p,) or np.any(w < 0) or not np.all(np.isfinite(w)):
            raise ValueError(f"weights must be {p} non-negative numbers, got {w}")
        if abs(w.sum() - 1.0) > 1e-8:
            raise ValueError(f"mixture weights must sum to 1, got sum {w.sum():.10g}")
        self.variances, self.weights = var, w

    def sample(self, n: int, *, rng=None) -> np.ndarray:
        n = check_positive_int(n, "n")
        rng = check_rng(rng)
        comp = rng.choice(self.weights.size, size=n, p=self.weights)
        return self.means[comp] + rng.standard_normal((n, self.dim)) * np.sqrt(
            self.variances[comp])

    def _inputs(self, X) -> np.ndarray:
        X = check_samples(X, "X")
        if X.shape[1] != self.dim:
            raise ValueError(f"X has dimension {X.shape[1]}, the target {self.dim}")
        return X

    def _component_logs(self, X):
        """log w_c + log N(x; μ_c, diag(s_c)), shape (n, p)."""
        sq = ((X[:, None, :] - self.means[None]) ** 2 / self.variances[None]).sum(-1)
        log_det = np.log(2 * np.pi * self.variances).sum(axis=1)
        return np.log(self.weights) - 0.5 * log_det - 0.5 * sq

    def log_density(self, X) -> np.ndarray:
        return special.logsumexp(self._component_logs(self._inputs(X)), axis=1)

    def score(self, X) -> np.ndarray:
        """∇ log p(x) for each row of X, shape (n, d)."""
        X = self._inputs(X)
        logs = self._component_logs(X)
        r = np.exp(logs - special.logsumexp(logs, axis=1, keepdims=True))
        return np.einsum("nk,nkd->nd", r, (self.means[None] - X[:, None, :])
                         / self.variances[None])

    def _check_kernel(self, kernel) -> float:
        if not isinstance(kernel, GaussianKernel):
            raise TypeError("closed-form mixture embeddings need a GaussianKernel, got "
                            f"{type(kernel).__name__}")
        return kernel.bandwidth**2

    @staticmethod
    def _scaled_gaussian(Z, m, s, tau2):
        """(2πτ²)^{d/2} N_z(m, diag(s)) for rows of Z (s of shape (d,) or per row)."""
        log = 0.5 * np.sum(np.log(tau2 / s), axis=-1) - 0.5 * np.sum((Z - m) ** 2 / s, axis=-1)
        return np.exp(log)

    def embedding(self, Z, kernel) -> np.ndarray:
        """μ(z) for each row of Z, shape (n_z,)."""
        tau2 = self._check_kernel(kernel)
        Z = check_samples(Z, "Z")
        return sum(w * self._scaled_gaussian(Z, m, s + tau2, tau2)
                   for w, m, s in zip(self.weights, self.means, self.variances, strict=True))

    def squared_norm(self, kernel) -> float:
        """||μ||²_H = E k(X, X') for X, X' independent draws of the mixture."""
        return self.inner(self, kernel)

    def inner(self, other: GaussianMixture, kernel) -> float:
        """⟨μ(self), μ(other)⟩_H = E k(X, Y), X ~ self, Y ~ other (App. G's closed form with
        the two mixtures' components); MMD² = ⟨μ₁, μ₁⟩ + ⟨μ₂, μ₂⟩ - 2⟨μ₁, μ₂⟩."""
        tau2 = self._check_kernel(kernel)
        total = 0.0
        for w, m, s in zip(self.weights, self.means, self.variances, strict=True):
            vals = self._scaled_gaussian(other.means, m, s + other.variances + tau2, tau2)
            total += w * float(other.weights @ vals)
        return total

    def embedding_error(self, points, weights, kernel) -> float:
        """Exact ||μ - Σ_j α_j φ(x_j)||_H of a weighted point set (Sec. 6.1)."""
        points = check_samples(points, "points")
        a = np.asarray(weights, dtype=float)
        if a.shape != (points.shape[0],):
            raise ValueError(f"weights must have shape ({points.shape[0]},), got {a.shape}")
        cross = float(a @ self.embedding(points, kernel))
        # αᵀ K α over the tiles on or above the diagonal: half the kernel values of K α
        quad = float(symmetric_quadratic_forms(kernel, points, a[:, None])[0][0])
        return float(np.sqrt(max(self.squared_norm(kernel) - 2.0 * cross + quad, 0.0)))

    def mean_features(self, features) -> np.ndarray:
        """E z(X) for fitted random Fourier features: E cos(ω'X) = Σ_c w_c cos(ω'm_c)
        exp(-ω' diag(s_c) ω / 2), and the same with sin."""
        W = features.frequencies_
        phase = W @ self.means.T  # (L, p)
        damp = np.exp(-0.5 * (W**2) @ self.variances.T)
        c = (np.cos(phase) * damp) @ self.weights
        s = (np.sin(phase) * damp) @ self.weights
        scale = np.sqrt(features.kernel.value_at_zero / features.n_features_)
        return scale * np.concatenate([c, s])

    def error_of(self, estimator) -> float:
        """The exact error of a fitted estimator: in H for weighted embeddings, in the
        random-feature space for ``RandomFeatureKME``."""
        if isinstance(estimator, RandomFeatureKME):
            self._check_kernel(estimator.kernel)
            diff = estimator.mean_features_ - self.mean_features(estimator.features_)
            return float(np.linalg.norm(diff))
        estimator._check_fitted()
        return self.embedding_error(estimator.points_, estimator.weights_, estimator.kernel)
