"""Kernel mean embeddings as weighted point sets, and closed forms for Gaussian mixtures.

Every estimator represents μ̂ = Σ_j α_j φ(x_j) by ``points_`` and ``weights_``, so they
share evaluation μ̂(z), inner products, RKHS distances and the exact error against a
Gaussian mixture (App. G of Chatalic et al. 2022).
"""

from __future__ import annotations

import numpy as np
from scipy import linalg

from .._validation import check_positive_int, check_rng, check_samples
from ..kernels import DEFAULT_WORKING_MEMORY, check_kernel


def weighted_gram_sum(kernel, A, a, B, b, working_memory=DEFAULT_WORKING_MEMORY) -> float:
    """aᵀ K(A, B) b, streamed in row blocks (clean input)."""
    total = 0.0
    for sl, block in kernel.gram_blocks(A, B, working_memory=working_memory):
        total += float(a[sl] @ block @ b)
    return total


def pinv_psd(K: np.ndarray, rcond: float = 1e-10,
             driver: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Eigenpairs (w, V) kept by a relative floor: K⁺ = V diag(1/w) Vᵀ for symmetric PSD K."""
    w, V = linalg.eigh(K, driver=driver)
    keep = w > rcond * max(w.max(), 0.0)
    return w[keep], V[:, keep]


class WeightedEmbedding:
    """μ̂ = Σ_j α_j φ(x_j): shared evaluation, inner products and distances."""

    kernel = None
    points_: np.ndarray
    weights_: np.ndarray

    def _check_fitted(self):
        if not hasattr(self, "weights_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted; call fit(X) first")

    def evaluate(self, Z) -> np.ndarray:
        """μ̂(z) = Σ_j α_j k(x_j, z) for each row of Z, shape (n_z,)."""
        self._check_fitted()
        Z = check_samples(Z, "Z")
        if Z.shape[1] != self.points_.shape[1]:
            raise ValueError(
                f"Z has dimension {Z.shape[1]}, the embedding {self.points_.shape[1]}")
        out = np.empty(Z.shape[0])
        for sl, block in self.kernel.gram_blocks(Z, self.points_):
            out[sl] = block @ self.weights_
        return out

    __call__ = evaluate

    def inner(self, other: WeightedEmbedding) -> float:
        """⟨μ̂, μ̂'⟩_H = αᵀ K(x, x') α'."""
        self._check_fitted()
        other._check_fitted()
        return weighted_gram_sum(self.kernel, self.points_, self.weights_, other.points_,
                                 other.weights_)

    def squared_norm(self) -> float:
        return self.inner(self)

    def distance(self, other: WeightedEmbedding) -> float:
        """||μ̂ - μ̂'||_H (an MMD estimate when both embed samples)."""
        d2 = self.squared_norm() + other.squared_norm() - 2.0 * self.inner(other)
        return float(np.sqrt(max(d2, 0.0)))


class EmpiricalKME(WeightedEmbedding):
    """The empirical embedding μ̂ = (1/n) Σ_i φ(x_i) (Eq. (2) of Chatalic et al.)."""

    def __init__(self, kernel):
        self.kernel = check_kernel(kernel)

    def fit(self, X):
        X = check_samples(X, "X")
        self.points_ = X
        self.weights_ = np.full(X.shape[0], 1.0 / X.shape[0])
        return self


def draw_landmarks(n: int, n_landmarks, landmarks, replace: bool, rng) -> np.ndarray:
    """Landmark indices: given explicitly, or m drawn uniformly (with replacement by default)."""
    if landmarks is not None:
        idx = np.asarray(landmarks)
        if idx.ndim != 1 or idx.size == 0 or not np.issubdtype(idx.dtype, np.integer):
            raise TypeError("landmarks must be a non-empty 1-D array of integer indices")
        if idx.min() < 0 or idx.max() >= n:
            raise ValueError(f"landmarks must be indices in [0, {n - 1}], got range "
                             f"[{idx.min()}, {idx.max()}]")
        return idx
    m = default_landmarks(n) if n_landmarks is None else check_positive_int(n_landmarks,
                                                                               "n_landmarks")
    if not replace and m > n:
        raise ValueError(f"n_landmarks={m} exceeds n={n} without replacement")
    rng = check_rng(rng)
    return rng.integers(0, n, size=m) if replace else rng.choice(n, size=m, replace=False)


def default_landmarks(n: int) -> int:
    """m = ceil(√n log √n), the schedule of Cor. 4.1 for fast spectral decay (at least 1)."""
    r = np.sqrt(n)
    return max(1, min(n, int(np.ceil(r * max(np.log(r), 1.0)))))


class NystromKME(WeightedEmbedding):
    """Nyström kernel mean embedding μ̂_m = P_m μ̂ (Chatalic et al. 2022, Eq. (5)).

    Weights α = (1/n) K_m⁺ K_mn 1_n: the projection of the empirical embedding onto the
    span of m landmarks. K_mn 1_n is streamed in row blocks, so memory is
    O(m² + m d + working_memory) whatever n is; time O(n m d + m³).

    Parameters
    ----------
    kernel : Kernel
    n_landmarks : int, optional
        m (default ceil(√n log √n)).
    landmarks : array of int, optional
        Explicit landmark indices into X (overrides ``n_landmarks``).
    replace : bool
        Draw landmarks uniformly with replacement (the paper's scheme) or without.
    rcond : float
        Relative eigenvalue floor of the pseudo-inverse.
    rng : Generator, int or None

    Examples
    --------
    >>> import numpy as np
    >>> from kmeviz import GaussianKernel
    >>> X = np.random.default_rng(0).normal(size=(500, 2))
    >>> ny = NystromKME(GaussianKernel(1.0), 60, rng=0).fit(X)
    >>> emp = EmpiricalKME(GaussianKernel(1.0)).fit(X)
    >>> bool(ny.distance(emp) < 0.01)
    True
    """

    def __init__(self, kernel, n_landmarks=None, *, landmarks=None, replace: bool = True,
                 rcond: float = 1e-10, working_memory: int = DEFAULT_WORKING_MEMORY, rng=None):
        self.kernel = check_kernel(kernel)
        self.n_landmarks = n_landmarks
        self.landmarks = landmarks
        self.replace = replace
        self.rcond = rcond
        self.working_memory = working_memory
        self.rng = rng

    def fit(self, X):
        X = check_samples(X, "X")
        n = X.shape[0]
        idx = draw_landmarks(n, self.n_landmarks, self.landmarks, self.replace, self.rng)
        L = X[idx]
        b = np.zeros(L.shape[0])  # K_mn 1_n, streamed over the data
        for _, block in self.kernel.gram_blocks(X, L, working_memory=self.working_memory):
            b += block.sum(axis=0)
        w, V = pinv_psd(self.kernel.gram(L, L), self.rcond)
        self.landmark_indices_ = idx
        self.landmarks_ = L
        self.points_ = L
        self.weights_ = V @ ((V.T @ b) / w) / n
        return self


class UniformSubsampleKME(WeightedEmbedding):
    """μ̃_m = (1/m) Σ_j φ(x̃_j) on m landmarks drawn uniformly (Sec. 4.2 baseline)."""

    def __init__(self, kernel, n_landmarks=None, *, replace: bool = True, rng=None):
        self.kernel = check_kernel(kernel)
        self.n_landmarks, self.replace, self.rng = n_landmarks, replace, rng

    def fit(self, X):
        X = check_samples(X, "X")
        idx = draw_landmarks(X.shape[0], self.n_landmarks, None, self.replace, self.rng)
        self.points_ = X[idx]
        self.weights_ = np.full(idx.size, 1.0 / idx.size)
        return self


class KernelHerding(WeightedEmbedding):
    """Kernel herding (Chen et al. 2010): greedily pick m points of X with uniform weights.

    x_{t+1} = argmax_x μ̂(x) - (1/(t+1)) Σ_{s<=t} k(x_s, x) over candidates x in X (at most
    ``max_candidates``, drawn uniformly); μ̂ is the empirical embedding of all of X.
    """

    def __init__(self, kernel, n_points: int, *, max_candidates: int = 2000, rng=None):
        self.kernel = check_kernel(kernel)
        self.n_points = check_positive_int(n_points, "n_points")
        self.max_candidates = check_positive_int(max_candidates, "max_candidates")
        self.rng = rng

    def fit(self, X):
        X = check_samples(X, "X")
        n = X.shape[0]
        rng = check_rng(self.rng)
        cand = (np.arange(n) if n <= self.max_candidates
                else rng.choice(n, self.max_candidates, replace=False))
        C = X[cand]
        mu = np.zeros(C.shape[0])
        for _, block in self.kernel.gram_blocks(X, C):
            mu += block.sum(axis=0)
        mu /= n
        running = np.zeros(C.shape[0])  # Σ_s k(x_s, candidate)
        chosen = []
        for t in range(self.n_points):
            j = int(np.argmax(mu - running / (t + 1)))
            chosen.append(j)
            running += self.kernel.gram(C[j : j + 1], C)[0]
        self.points_ = C[chosen]
        self.weights_ = np.full(len(chosen), 1.0 / len(chosen))
        return self


class RandomFeatureKME:
    """Random-Fourier-feature mean embedding z̄ = (1/n) Σ_i z(x_i) (Rahimi & Recht 2007).

    It lives in the random-feature space, not in H, so it is scored by
    ``GaussianMixture.error_of`` as ||z̄ - E z(X)|| with E z(X) in closed form: the
    feature-space analogue of ||μ̂ - μ||_H (equal to it in expectation as L → ∞).
    """

    def __init__(self, kernel, n_features: int, *, rng=None):
        from .features import RandomFourierFeatures

        self.kernel = check_kernel(kernel, shift_invariant=True)
        self._features = RandomFourierFeatures(kernel, n_features, rng=rng)

    def fit(self, X):
        X = check_samples(X, "X")
        self.features_ = self._features.fit(X)
        cos_mean, sin_mean = self.features_._mean_cos_sin(X)
        scale = np.sqrt(self.kernel.value_at_zero / self.features_.n_features)
        self.mean_features_ = scale * np.concatenate([cos_mean, sin_mean])
        return self

    def evaluate(self, Z) -> np.ndarray:
        """z̄ᵀ z(z) ≈ μ̂(z)."""
        return self.features_.transform(Z) @ self.mean_features_
