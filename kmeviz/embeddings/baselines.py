"""The baselines the Nyström embedding is compared with (Chatalic et al. 2022, Sec. 6):
uniform subsampling, kernel herding, greedy determinant-based landmarks and random Fourier
features."""

from __future__ import annotations

import numpy as np

from .._validation import check_is_fitted, check_positive_int, check_rng, check_samples
from ..chunked import check_any_samples
from ..kernels import check_kernel, gram_pass
from ..kernels.engine import column_sums
from .features import RandomFourierFeatures
from .kme import NystromKME, WeightedEmbedding, draw_landmarks


class UniformSubsampleKME(WeightedEmbedding):
    """μ̃_m = (1/m) Σ_j φ(x̃_j) on m landmarks drawn uniformly (Sec. 4.2 baseline).

    Parameters
    ----------
    kernel : Kernel
    n_landmarks : int, optional
        m (default ceil(√n log √n)).
    replace : bool
        Draw with replacement (the paper's scheme).
    rng : Generator, int or None
    """

    def __init__(self, kernel, n_landmarks=None, *, replace: bool = True, rng=None):
        self.kernel = kernel
        self.n_landmarks, self.replace, self.rng = n_landmarks, replace, rng

    def fit(self, X):
        check_kernel(self.kernel)
        X = check_samples(X, "X")
        idx = draw_landmarks(X.shape[0], self.n_landmarks, None, self.replace, self.rng)
        self.points_ = X[idx]
        self.weights_ = np.full(idx.size, 1.0 / idx.size)
        return self


class KernelHerding(WeightedEmbedding):
    """Kernel herding (Chen et al. 2010): greedily pick m points of X with uniform weights.

    x_{t+1} = argmax_x μ̂(x) - (1/(t+1)) Σ_{s<=t} k(x_s, x) over candidates x in X (at most
    ``max_candidates``, drawn uniformly); μ̂ is the empirical embedding of all of X.
    ``n_landmarks`` is m.

    Parameters
    ----------
    kernel : Kernel
    n_landmarks : int, optional
        m, the points herding picks (default ceil(√n log √n)).
    max_candidates : int
        Candidates scanned per step.
    rng : Generator, int or None
    """

    def __init__(self, kernel, n_landmarks: int | None = None, *, max_candidates: int = 2000,
                 rng=None):
        self.kernel = kernel
        self.n_landmarks = n_landmarks
        self.max_candidates = max_candidates
        self.rng = rng

    def fit(self, X):
        kernel = check_kernel(self.kernel)
        if self.n_landmarks is None:
            raise TypeError("KernelHerding needs n_landmarks, the number of points to pick")
        m = check_positive_int(self.n_landmarks, "n_landmarks")
        max_candidates = check_positive_int(self.max_candidates, "max_candidates")
        X = check_samples(X, "X")
        n = X.shape[0]
        rng = check_rng(self.rng)
        cand = (np.arange(n) if n <= max_candidates
                else rng.choice(n, max_candidates, replace=False))
        C = X[cand]
        mu = sum(gram_pass(kernel, X, C,
                           lambda sl, block, _: column_sums(block))) / n
        running = np.zeros(C.shape[0])  # Σ_s k(x_s, candidate)
        chosen = []
        for t in range(m):
            j = int(np.argmax(mu - running / (t + 1)))
            chosen.append(j)
            running += kernel.gram(C[j : j + 1], C)[0]
        self.points_ = C[chosen]
        self.weights_ = np.full(len(chosen), 1.0 / len(chosen))
        return self


def greedy_determinant_landmarks(kernel, X: np.ndarray, m: int,
                                 rcond: float = 1e-10) -> np.ndarray:
    """Indices of m rows of X picked greedily to maximise det K_m (L. Chen et al. 2018,
    Alg. 1: the greedy MAP of a DPP with kernel K, i.e. the pivots of a pivoted Cholesky).
    Step t adds the row of largest residual variance d_j = k(x_j, x_j) - ||c_j||², whose
    Cholesky row updates every d in O(n t). Stops early, with fewer indices, once every
    residual is below ``rcond`` × the first (the rest are spanned). O(n m) memory."""
    residual = kernel.diag(X).astype(float)
    floor = rcond * residual.max()
    rows = np.zeros((m, X.shape[0]))
    chosen = []
    for t in range(m):
        j = int(np.argmax(residual))
        if residual[j] <= floor:
            break
        row = kernel.gram(X[j : j + 1], X)[0] - rows[:t, j] @ rows[:t]
        rows[t] = row / np.sqrt(residual[j])
        residual -= rows[t] ** 2
        residual[j] = -np.inf  # never picked twice
        chosen.append(j)
    return np.asarray(chosen, dtype=int)


class GreedyDeterminantKME(WeightedEmbedding):
    """The Nyström weights of Eq. (5) on landmarks picked by ``greedy_determinant_landmarks``
    (the "greedy determinant-based (Chen 2018)" curve of Chatalic et al. Fig. 1; the
    weights are kmeviz's choice, the projection of μ̂ on the landmarks' span, as for
    Nyström). Deterministic: no rng. ``n_landmarks`` is m; in-memory X only.

    Parameters
    ----------
    kernel : Kernel
    n_landmarks : int
        m, the landmarks to pick (fewer if the rest are spanned).
    """

    def __init__(self, kernel, n_landmarks: int | None = None):
        self.kernel = kernel
        self.n_landmarks = n_landmarks

    def fit(self, X):
        kernel = check_kernel(self.kernel)
        if self.n_landmarks is None:
            raise TypeError("GreedyDeterminantKME needs n_landmarks, the number of points "
                            "to pick")
        m = check_positive_int(self.n_landmarks, "n_landmarks")
        X = check_samples(X, "X")
        if m > X.shape[0]:
            raise ValueError(f"n_landmarks={m} exceeds n={X.shape[0]}")
        self.landmark_indices_ = greedy_determinant_landmarks(kernel, X, m)
        nystrom = NystromKME(kernel, landmarks=self.landmark_indices_).fit(X)
        self.points_, self.weights_ = nystrom.points_, nystrom.weights_
        return self


class RandomFeatureKME:
    """Random-Fourier-feature mean embedding z̄ = (1/n) Σ_i z(x_i) (Rahimi & Recht 2007).

    It lives in the random-feature space, not in H, so it is scored by
    ``GaussianMixture.error_of`` as ||z̄ - E z(X)|| with E z(X) in closed form: the
    feature-space analogue of ||μ̂ - μ||_H (equal to it in expectation as L → ∞).
    Its budget is ``n_features`` (L frequencies), as for every random-feature map.

    Parameters
    ----------
    kernel : ShiftInvariantKernel
    n_features : int
        L, the number of frequencies.
    rng : Generator, int or None
    """

    def __init__(self, kernel, n_features: int, *, rng=None):
        self.kernel = kernel
        self.n_features = n_features
        self.rng = rng

    def fit(self, X):
        X = check_any_samples(X, "X")
        self.features_ = RandomFourierFeatures(self.kernel, self.n_features,
                                               rng=self.rng).fit(X)
        self.mean_features_ = self.mean_features_of(X)
        return self

    def mean_features_of(self, X) -> np.ndarray:
        """(1/n) Σ_i z(x_i) with the fitted features, for any sample X."""
        cos_mean, sin_mean = self.features_._mean_cos_sin(X)
        scale = np.sqrt(self.kernel.value_at_zero / self.features_.n_features_)
        return scale * np.concatenate([cos_mean, sin_mean])

    def _check_fitted(self):
        check_is_fitted(self, "mean_features_")

    def evaluate(self, Z) -> np.ndarray:
        """z̄ᵀ z(z) ≈ μ̂(z)."""
        self._check_fitted()
        return self.features_.transform(Z) @ self.mean_features_
