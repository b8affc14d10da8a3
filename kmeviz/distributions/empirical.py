"""A finite data set as a distribution: ρ uniform over its N points, whose embedding
μ(ρ) = (1/N) Σ_i k(x_i, ·) is known exactly for any kernel (Chatalic et al. Sec. 6.2: the
real-data experiment of Fig. 2 takes ρ uniform over a data set and samples n points)."""

from __future__ import annotations

import numpy as np

from .._validation import check_positive_int, check_rng, check_samples
from ..embeddings.baselines import RandomFeatureKME
from ..embeddings.kme import EmpiricalKME
from ..kernels import check_kernel
from .mixture import GaussianMixture


class EmpiricalDistribution:
    """The uniform distribution over the rows of ``points`` (N, d), with the same exact
    error methods as ``GaussianMixture`` (``embedding``, ``squared_norm``,
    ``embedding_error``, ``error_of``), computed by the tile engine, O(N · tile) memory.

    Examples
    --------
    >>> import numpy as np
    >>> from kmeviz import EmpiricalKME, GaussianKernel
    >>> data = EmpiricalDistribution(np.random.default_rng(0).normal(size=(300, 2)))
    >>> k = GaussianKernel(1.0)
    >>> data.error_of(EmpiricalKME(k).fit(data.points)) < 1e-7  # the whole data set
    True
    """

    def __init__(self, points):
        self.points = check_samples(points, "points")
        self.dim = self.points.shape[1]
        self._norms: dict = {}

    def sample(self, n: int, *, rng=None) -> np.ndarray:
        """n points drawn uniformly with replacement."""
        n = check_positive_int(n, "n")
        return self.points[check_rng(rng).integers(0, self.points.shape[0], size=n)]

    def embedding(self, Z, kernel) -> np.ndarray:
        """μ(z) = (1/N) Σ_i k(x_i, z) for each row of Z, shape (n_z,): the empirical KME of
        all N points, evaluated by the tile engine."""
        return EmpiricalKME(check_kernel(kernel)).fit(self.points).evaluate(Z)

    def squared_norm(self, kernel) -> float:
        """||μ||² = (1/N²) Σ_ij k(x_i, x_j), streamed once per kernel and cached."""
        kernel = check_kernel(kernel)
        if kernel not in self._norms:
            total, _ = kernel.gram_sum(self.points)
            self._norms[kernel] = total / self.points.shape[0] ** 2
        return self._norms[kernel]

    embedding_error = GaussianMixture.embedding_error

    def error_of(self, estimator) -> float:
        """The exact error of a fitted weighted embedding (in H); for ``RandomFeatureKME``
        the distance in its feature space to the features' mean over the N points."""
        if isinstance(estimator, RandomFeatureKME):
            diff = estimator.mean_features_ - estimator.mean_features_of(self.points)
            return float(np.linalg.norm(diff))
        estimator._check_fitted()
        return self.embedding_error(estimator.points_, estimator.weights_, estimator.kernel)
