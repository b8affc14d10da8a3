"""Collections of kernels for the aggregated tests (MMDAgg, KSDAgg): the kernels, their
weights, the authors' bandwidth rules, and Gram tiles of every kernel from one distance
tile.

MMDAgg: Schrab, Kim, Albert, Laurent, Guedj, Gretton, *MMD Aggregated Two-Sample Test*,
JMLR 24 (2023), Sec. 5 (weights) and their code (``antoninschrab/mmdagg``: bandwidths).
KSDAgg: Schrab, Guedj, Gretton, *KSD Aggregated Goodness-of-fit Test*, NeurIPS 2022.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial.distance import cdist, pdist

from .._validation import check_choice, check_in_interval, check_positive_int, check_samples
from .base import Kernel
from .radial import GaussianKernel, IMQKernel, LaplaceKernel

#: The weightings of MMDAgg Sec. 5.1.
WEIGHTINGS = ("uniform", "decreasing", "increasing", "centred")
#: The kernel families of ``mmdagg_kernels``.
MMDAGG_FAMILIES = ("laplace_gaussian", "gaussian", "laplace")
#: Points of each sample the bandwidth rules read (the authors' ``max_samples``).
BANDWIDTH_SAMPLES = 500


@dataclass(frozen=True)
class KernelCollection:
    """Kernels k_λ with weights w_λ > 0: what an aggregated test tests with.

    Every kernel must be a function of a distance between points (its class sets
    ``distance``, "sq" or "l1", and ``from_distance``: every ``RadialKernel``, Laplace),
    so that all of them are evaluated from the shared distance tiles. The weights are scaled to
    sum to 1 (the aggregated test does not depend on their scale, only on their ratios).

    Parameters
    ----------
    kernels : sequence of Kernel
    weights : sequence of float, optional
        Default: uniform.

    (MMDAgg Sec. 3: the collection Λ and its weights; implements no equation itself.)
    """

    kernels: tuple
    weights: tuple | None = None

    def __post_init__(self):
        try:
            kernels = () if isinstance(self.kernels, Kernel) else tuple(self.kernels)
        except TypeError:  # not iterable
            kernels = ()
        if not kernels:
            raise TypeError("kernels must be a non-empty sequence of kmeviz kernels, got "
                            f"{type(self.kernels).__name__}")
        for k in kernels:
            if getattr(k, "distance", None) not in DISTANCE_METRICS:
                raise TypeError("kernels of a KernelCollection must be functions of a "
                                "distance (a class with `distance` 'sq' or 'l1' and "
                                "`from_distance`: radial kernels, Laplace), got "
                                f"{type(k).__name__}")
        weights = (np.ones(len(kernels)) if self.weights is None
                   else np.asarray(self.weights, dtype=float).reshape(-1))
        if weights.shape != (len(kernels),):
            raise ValueError(f"weights must have one entry per kernel ({len(kernels)}), "
                             f"got {weights.size}")
        if not np.all(np.isfinite(weights)) or np.any(weights <= 0):
            raise ValueError("weights must be finite and > 0")
        object.__setattr__(self, "kernels", kernels)
        object.__setattr__(self, "weights", tuple(float(w) for w in weights / weights.sum()))

    def __len__(self) -> int:
        return len(self.kernels)

    def __repr__(self) -> str:
        families = ", ".join(f"{n} {name}" for name, n in self.families().items())
        return f"KernelCollection({families}; {bandwidth_range(self)})"

    def families(self) -> dict:
        """Kernel class name -> how many kernels of it."""
        names = [type(k).__name__.removesuffix("Kernel") for k in self.kernels]
        return {name: names.count(name) for name in dict.fromkeys(names)}

    def scales(self) -> np.ndarray:
        """Each kernel's length scale: σ (``bandwidth``) or the IMQ's c."""
        return np.array([k.scale for k in self.kernels])


def bandwidth_range(collection: KernelCollection) -> str:
    """'scales a–b' of a collection, for reprs."""
    s = collection.scales()
    if np.isnan(s).all():
        return "scales not given"
    return f"scales {np.nanmin(s):.3g}–{np.nanmax(s):.3g}"


def bandwidth_weights(number: int, weighting: str = "uniform") -> np.ndarray:
    """The weights of MMDAgg Sec. 5.1 for ``number`` bandwidths, summing to 1: uniform,
    decreasing (∝ 1/i), increasing (∝ 1/(N + 1 - i)) or centred (∝ 1 / (abs((N + 1)/2 - i) + 1)
    for odd N, + ½ for even N).

    Parameters
    ----------
    number : int
    weighting : {"uniform", "decreasing", "increasing", "centred"}

    Returns
    -------
    array (number,)
    """
    number = check_positive_int(number, "number")
    check_choice(weighting, "weighting", WEIGHTINGS)
    i = np.arange(1, number + 1, dtype=float)
    raw = {"uniform": np.ones(number), "decreasing": 1.0 / i,
           "increasing": 1.0 / (number + 1 - i),
           "centred": 1.0 / (np.abs((number + 1) / 2 - i) + (1.0 if number % 2 else 0.5))}
    return raw[weighting] / raw[weighting].sum()


def geometric_bandwidths(distances: np.ndarray, number: int, *,
                         low_quantile: float = 0.05) -> np.ndarray:
    """MMDAgg's bandwidths from the distances between X and Y: λ_min is half the smallest
    distance, or when that distance is below 0.1, half its 5 % quantile floored at 0.1;
    λ_max is twice the largest, floored at 0.3 before doubling; ``number`` values
    geometrically between them (Schrab et al. 2023, MMDAgg: the authors'
    ``compute_bandwidths``).

    Parameters
    ----------
    distances : array
    number : int
        At least 2.
    low_quantile : float
        The quantile λ_min falls back to (the authors' 5 %).

    Returns
    -------
    array (number,)
    """
    number = check_positive_int(number, "number_bandwidths", minimum=2)
    low_quantile = check_in_interval(low_quantile, "low_quantile", 0.0, 1.0)
    d = np.sort(np.asarray(distances, dtype=float).reshape(-1))
    low = d[0] if d[0] >= 0.1 else max(d[int(np.floor(d.size * low_quantile))], 0.1)
    low, high = low / 2.0, max(d[-1], 0.3) * 2.0
    return low * (high / low) ** (np.arange(number) / (number - 1))


def mmdagg_kernels(X, Y, *, family: str = "laplace_gaussian", number_bandwidths: int = 10,
                   weighting: str = "uniform", low_quantile: float = 0.05) -> KernelCollection:
    """MMDAgg's default collection (Schrab et al. 2023, the authors' ``laplace_gaussian``):
    Laplace kernels exp(-||x - y||₁/λ) on the L1 bandwidths and Gaussian kernels
    exp(-||x - y||²/λ²) (``GaussianKernel(λ/√2)``) on the L2 ones, from the first 500
    points of X and Y (``geometric_bandwidths``), each family weighted by ``weighting``
    and the families equally.

    Parameters
    ----------
    X, Y : array (m, d), (n, d)
    family : {"laplace_gaussian", "gaussian", "laplace"}
    number_bandwidths : int
        Per family (default 10).
    weighting : {"uniform", "decreasing", "increasing", "centred"}
    low_quantile : float
        The distance quantile of λ_min (the authors' 5 %). When fewer than 5 % of the
        X–Y pairs are close, e.g. on FastMMD's 5 × 5 blob grid where only 1/25 of the
        pairs share a blob, the 5 % quantile is the spacing of the grid and no kernel of
        the collection sees the blobs' shape; a lower quantile (0.01) brings it in.

    Returns
    -------
    KernelCollection
    """
    check_choice(family, "family", MMDAGG_FAMILIES)
    X, Y = (check_samples(Z, name, min_samples=1)[:BANDWIDTH_SAMPLES]
            for Z, name in ((X, "X"), (Y, "Y")))
    weights = bandwidth_weights(check_positive_int(number_bandwidths, "number_bandwidths",
                                                   minimum=2), weighting)
    kernels = []
    if "laplace" in family:
        kernels += [LaplaceKernel(lam) for lam in
                    geometric_bandwidths(cdist(X, Y, "cityblock"), number_bandwidths,
                                         low_quantile=low_quantile)]
    if "gaussian" in family:
        kernels += [GaussianKernel(lam / np.sqrt(2.0)) for lam in
                    geometric_bandwidths(cdist(X, Y, "euclidean"), number_bandwidths,
                                         low_quantile=low_quantile)]
    return KernelCollection(kernels, np.tile(weights, len(kernels) // number_bandwidths))


def mmdagginc_kernels(X, Y, *, number_bandwidths: int = 10) -> KernelCollection:
    """MMDAggInc's default collection (Schrab et al. 2022, the incomplete tests; the authors'
    ``agginc("mmd")``): ``number_bandwidths`` Gaussian kernels exp(−||x − y||²/λ²) on
    MMDAgg's geometric L2 bandwidths from the first 500 points of X and Y, uniform weights
    (``mmdagg_kernels(X, Y, family="gaussian")``).

    Parameters
    ----------
    X, Y : array (m, d), (n, d)
    number_bandwidths : int

    Returns
    -------
    KernelCollection
    """
    return mmdagg_kernels(X, Y, family="gaussian", number_bandwidths=number_bandwidths)


#: Points of each sample MMD-FUSE's bandwidth rule reads (the authors read all of them;
#: up to 1000 per sample kmeviz does too)
FUSE_BANDWIDTH_SAMPLES = 1000


def mmdfuse_kernels(X, Y, *, family: str = "laplace_gaussian",
                    number_bandwidths: int = 10) -> KernelCollection:
    """MMD-FUSE's collection (Biggs, Schrab & Gretton 2023, Sec. 5; the authors' ``mmdfuse``):
    for the L1 (Laplace, exp(-√2 ||x - y||₁/λ) = ``LaplaceKernel(λ/√2)``) and L2
    (Gaussian, exp(-||x - y||²/(2λ²)) = ``GaussianKernel(λ)``) distances of the pooled
    sample, ``number_bandwidths`` values λ *linearly* spaced from half the 5 % quantile to
    twice the 95 % quantile of its pairwise distances (the diagonal's zeros counted as the
    median, as the authors do), uniform weights over all kernels.

    Parameters
    ----------
    X, Y : array (m, d), (n, d)
    family : {"laplace_gaussian", "gaussian", "laplace"}
    number_bandwidths : int
        Per family (default 10).

    Returns
    -------
    KernelCollection
    """
    check_choice(family, "family", MMDAGG_FAMILIES)
    number = check_positive_int(number_bandwidths, "number_bandwidths", minimum=2)
    Z = np.vstack([check_samples(S, name, min_samples=1)[:FUSE_BANDWIDTH_SAMPLES]
                   for S, name in ((X, "X"), (Y, "Y"))])
    kernels = []
    for metric, make in (("cityblock", lambda lam: LaplaceKernel(lam / np.sqrt(2.0))),
                         ("euclidean", GaussianKernel)):
        if ("laplace" if metric == "cityblock" else "gaussian") not in family:
            continue
        distances = np.concatenate([pdist(Z, metric), np.zeros(Z.shape[0])])
        distances[distances == 0] = np.median(distances)
        ranks = [int(np.floor(distances.size * q)) for q in (0.05, 0.95)]
        low, high = np.partition(distances, ranks)[ranks]  # the sorted order's entries
        kernels += [make(lam) for lam in np.linspace(low / 2.0, high * 2.0, number)]
    return KernelCollection(kernels)


def ksdagg_kernels(X, *, number_bandwidths: int = 10,
                   weighting: str = "uniform") -> KernelCollection:
    """KSDAgg's default collection (Schrab et al. 2022): IMQ base kernels
    (1 + ||x - y||²/λ²)^(-½) with λ geometric from 1/d to max(D, 2)/d, D the largest
    distance between the first 500 points of X (the authors' ``ksdagg``). kmeviz's
    ``IMQKernel(c=λ, beta=-0.5)`` is that kernel divided by λ, so its KSD is the authors'
    divided by λ (the test is the same).

    Parameters
    ----------
    X : array (n, d)
    number_bandwidths : int
    weighting : {"uniform", "decreasing", "increasing", "centred"}

    Returns
    -------
    KernelCollection
    """
    X = check_samples(X, "X", min_samples=2)
    number = check_positive_int(number_bandwidths, "number_bandwidths", minimum=2)
    distances = pdist(X[:BANDWIDTH_SAMPLES])
    high = max(distances.max(initial=0.0), 2.0)
    scales = high ** (np.arange(number) / (number - 1)) / X.shape[1]
    return KernelCollection([IMQKernel(c=c, beta=-0.5) for c in scales],
                            bandwidth_weights(number, weighting))


#: A kernel's ``distance`` -> scipy's ``cdist`` metric that computes it.
DISTANCE_METRICS = {"sq": "sqeuclidean", "l1": "cityblock"}


def distance_parts(collection: KernelCollection, A: np.ndarray, B: np.ndarray,
                   dtype) -> dict:
    """The distance tiles between the rows of A and B that the collection's kernels read,
    each computed once (in float64, then cast to ``dtype``). Squared distances directly,
    not as |a|² + |b|² - 2ab: no cancellation for near points, and the d flops per pair
    are small beside the B labellings each pair is multiplied by."""
    return {name: cdist(A, B, DISTANCE_METRICS[name]).astype(dtype, copy=False)
            for name in dict.fromkeys(k.distance for k in collection.kernels)}


def kernel_from_parts(kernel, parts: dict, out: np.ndarray) -> np.ndarray:
    """k(a_i, b_j) written to ``out`` from the shared distance tiles of ``distance_parts``."""
    return kernel.from_distance(parts[kernel.distance], out)
