"""Kernels whose parameters are learned (``kmeviz.learn_kernel``): the ARD Gaussian kernel,
one length scale per coordinate, and a kernel on a user's own features φ(x).

ARD: k(x, y) = exp(-Σ_d (x_d - y_d)² / (2ℓ_d²)), the Gaussian kernel of the rescaled points
x/ℓ (Liu et al. 2020 learn such kernels by the power criterion; Sutherland et al. 2017).
A feature kernel k(x, y) = κ(φ(x), φ(y)) is a kernel for any map φ and kernel κ: a deep
kernel's network is such a φ, and kmeviz needs no deep-learning framework to test with it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._validation import check_samples, check_scale
from .base import Kernel, ShiftInvariantKernel, check_kernel
from .radial import GaussianKernel

_UNIT = GaussianKernel(1.0)


@dataclass(frozen=True)
class ARDGaussianKernel(ShiftInvariantKernel):
    """Gaussian kernel with one length scale per coordinate (automatic relevance
    determination): k(x, y) = exp(-Σ_d (x_d - y_d)² / (2ℓ_d²)).

    Its spectral measure is 𝒩(0, diag(ℓ)⁻²) (Bochner; FastMMD Sec. 2.2). Liu et al.
    2020 learn such scales by the power criterion. A coordinate with a large ℓ_d barely
    counts: ``learn_kernel(kernel="ard")`` finds which coordinates carry the difference.

    Parameters
    ----------
    lengthscales : sequence of float
        ℓ_1, …, ℓ_d > 0, one per coordinate of the samples.

    Examples
    --------
    >>> import numpy as np
    >>> k = ARDGaussianKernel((1.0, 2.0))
    >>> bool(np.isclose(k(np.zeros((1, 2)), np.array([[1.0, 2.0]]))[0, 0], np.exp(-1.0)))
    True
    """

    characteristic = True  # its mean embedding is injective

    lengthscales: tuple = (1.0,)

    def __post_init__(self):
        values = np.atleast_1d(np.asarray(self.lengthscales, dtype=float))
        if values.ndim != 1 or values.size == 0:
            raise ValueError("lengthscales must be a non-empty sequence of positive "
                             f"numbers, one per coordinate, got {self.lengthscales!r}")
        object.__setattr__(self, "lengthscales",
                           tuple(check_scale(v, f"lengthscales[{i}]")
                                 for i, v in enumerate(values)))

    @property
    def scale(self) -> float:
        """The geometric mean of the length scales (a table's single number)."""
        return float(np.exp(np.mean(np.log(self.lengthscales))))

    def _scaled(self, X: np.ndarray) -> np.ndarray:
        if X.shape[1] != len(self.lengthscales):
            raise ValueError(f"the ARD kernel has {len(self.lengthscales)} length scales and "
                             f"the samples have {X.shape[1]} columns: give one per column")
        return X / np.asarray(self.lengthscales)

    def prepare_validated(self, X):
        return _UNIT.prepare_validated(self._scaled(X))

    def tile_into(self, a, b, out):
        return _UNIT.tile_into(a, b, out)

    def paired(self, X, Y):
        return _UNIT.paired(self._scaled(X), self._scaled(Y))

    def draw_frequencies(self, n_features, dim, rng):
        return rng.standard_normal((n_features, dim)) / np.asarray(self.lengthscales)[:dim]

    def frequencies_from_uniform(self, U, dim):
        return stats.norm.ppf(U) / np.asarray(self.lengthscales)[:dim]


@dataclass(frozen=True, eq=False)
class FeatureKernel(Kernel):
    """k(x, y) = κ(φ(x), φ(y)): a kernel ``base`` on the features of a map φ.

    φ is any callable from an (n, d) array to an (n, p) array: a pretrained network's
    embedding, a hand-made feature map, a projection. The test statistics need only k,
    so a deep kernel (Liu et al. 2020, Sec. 4) is tested without kmeviz importing a
    deep-learning framework.
    ``learn_kernel(feature_map=φ)`` learns ``base``'s bandwidth on φ's features.

    Parameters
    ----------
    feature_map : callable
        φ(X) -> (n, p) array of finite floats, the same p for every X.
    base : Kernel
        κ on the features (default ``GaussianKernel(1.0)``).

    Examples
    --------
    >>> import numpy as np
    >>> k = FeatureKernel(lambda X: X[:, :1], GaussianKernel(1.0))  # the first coordinate
    >>> float(k(np.array([[0.0, 5.0]]), np.array([[0.0, -5.0]]))[0, 0])
    1.0
    """

    feature_map: Callable = None
    base: Kernel = _UNIT

    def __post_init__(self):
        if not callable(self.feature_map):
            raise TypeError("feature_map must be a callable φ(X) -> (n, p) array, got "
                            f"{type(self.feature_map).__name__}")
        check_kernel(self.base, "base")
        object.__setattr__(self, "tile_temporaries", self.base.tile_temporaries)

    @property
    def scale(self) -> float:
        return self.base.scale

    def features(self, X: np.ndarray) -> np.ndarray:
        """φ(X), checked: one row per point, finite floats."""
        try:
            F = self.feature_map(X)
        except Exception as error:  # the user's code: say whose it is
            raise ValueError(f"feature_map failed on an array of shape {X.shape}: "
                             f"{type(error).__name__}: {error}") from error
        F = check_samples(F, "feature_map(X)")
        if F.shape[0] != X.shape[0]:
            raise ValueError(f"feature_map(X) must return one row per point: {X.shape[0]} "
                             f"rows in, {F.shape[0]} out")
        return F

    def prepare_validated(self, X):
        return self.base.prepare_validated(self.features(X))

    def tile_into(self, a, b, out):
        return self.base.tile_into(a, b, out)

    def paired(self, X, Y):
        return self.base.paired(self.features(X), self.features(Y))

    def __repr__(self) -> str:
        name = getattr(self.feature_map, "__name__", type(self.feature_map).__name__)
        return f"FeatureKernel(feature_map={name}, base={self.base!r})"
