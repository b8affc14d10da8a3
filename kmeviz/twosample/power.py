"""Learning a kernel by the power criterion (Sutherland et al. 2017; Liu et al. 2020).

Under H1 the unbiased MMD²_u of n paired points is asymptotically normal,
√n (MMD²_u - MMD²) → 𝒩(0, σ²_H1), and a test at threshold c_α/n has power
≈ Φ(√n MMD²/σ_H1 - c_α/(n σ_H1)). The second term vanishes as n grows, so the kernel
that maximises the power asymptotically maximises the criterion

    J = MMD² / σ_H1,

not MMD² itself (a kernel can have a large MMD² and a larger spread). With the h-matrix
H_ij = k(x_i, x_j) + k(y_i, y_j) - k(x_i, y_j) - k(y_i, x_j) of n pairs, r = H 1:

- MMD²_u = Σ_{i≠j} H_ij / (n(n - 1))                (Gretton et al. 2012, Lemma 6);
- σ̂²_H1 = 4 (Σ_i r_i² / n³ - (Σ_ij H_ij)² / n⁴)      (Liu et al. 2020, Eq. 5);
- Ĵ = MMD²_u / √(σ̂²_H1 + λ), λ = 10⁻⁸ as in Liu et al.'s code.

The gradient (derived by hand, checked against finite differences in the tests): with
S = √(σ̂²_H1 + λ) and G = ∂H/∂θ, ∂Ĵ/∂θ = Σ_ij W_ij G_ij for the weight matrix
W_ij = (1 - δ_ij)/(n(n - 1) S) - (4 MMD²_u / S³)(r_i/n³ - s/n⁴), s = Σ_i r_i
(``_criterion_weights``). For the
ARD Gaussian kernel ∂k(a, b)/∂log ℓ_d = k(a, b) (a_d - b_d)²/ℓ_d², so each coordinate's
derivative is three weighted sums of squared differences, O(n² d) in all; the isotropic
Gaussian's ∂/∂log σ is their sum.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize

from .._validation import check_pair, check_rng
from ..kernels.base import check_kernel
from ..kernels.learned import ARDGaussianKernel, FeatureKernel
from ..kernels.radial import GaussianKernel, median_heuristic

#: λ of Ĵ = MMD²_u / √(σ̂²_H1 + λ): Liu et al.'s 10⁻⁸ keeps Ĵ finite where σ̂_H1 → 0
REGULARISER = 1e-8
#: the families ``learn_kernel`` learns
FAMILIES = ("gaussian", "ard")
#: the isotropic start: Ĵ on this many bandwidths geometric between the median heuristic
#: / GRID_SPAN[0] and × GRID_SPAN[1], the best one handed to L-BFGS (Ĵ is not concave in
#: log σ: on the blob grid the median heuristic sits on a plateau far from the peak)
GRID_POINTS, GRID_SPAN = 25, (100.0, 10.0)
#: L-BFGS keeps each log length scale within the median × 10^(±LOG_BOUND)
LOG_BOUND = 4.0


@dataclass(frozen=True)
class PowerCriterion:
    """Ĵ, MMD²_u and σ̂_H1 of one kernel on n pairs (Liu et al. 2020, Eq. 5; the module
    docstring).

    Parameters
    ----------
    criterion : float
        Ĵ = MMD²_u / √(σ̂²_H1 + λ).
    mmd2 : float
        MMD²_u.
    std : float
        σ̂_H1 (without λ).
    """

    criterion: float
    mmd2: float
    std: float


def _grams(X, Y, kernel):
    return kernel.gram(X, X), kernel.gram(Y, Y), kernel.gram(X, Y)


def _criterion_parts(Kxx, Kyy, Kxy, regulariser):
    n = Kxx.shape[0]
    H = Kxx + Kyy - Kxy - Kxy.T
    r = H.sum(axis=1)
    s = r.sum()
    mmd2 = (s - np.trace(H)) / (n * (n - 1))
    variance = max(4.0 * (r @ r / n**3 - (s / n**2) ** 2), 0.0)
    return mmd2, np.sqrt(variance + regulariser), r, s, variance


def power_criterion(X, Y, kernel, *, regulariser: float = REGULARISER) -> PowerCriterion:
    """Ĵ = MMD²_u / √(σ̂²_H1 + λ) of ``kernel`` on paired samples (Liu et al. 2020, Eq. 5;
    Sutherland et al. 2017, Sec. 3).

    Parameters
    ----------
    X, Y : array (n, d)
        Equally many points: x_i is paired with y_i in H.
    kernel : Kernel
    regulariser : float
        λ ≥ 0.

    Returns
    -------
    PowerCriterion
        ``criterion`` Ĵ, ``mmd2`` MMD²_u and ``std`` σ̂_H1.
    """
    X, Y = _paired(X, Y)
    kernel = check_kernel(kernel)
    mmd2, S, _, _, variance = _criterion_parts(*_grams(X, Y, kernel),
                                               _check_regulariser(regulariser))
    return PowerCriterion(float(mmd2 / S), float(mmd2), float(np.sqrt(variance)))


def _criterion_weights(r, s, mmd2, S, n):
    """W with ∂Ĵ/∂θ = Σ_ij W_ij ∂H_ij/∂θ: from ∂MMD²_u = Σ_{i≠j} ∂H_ij/(n(n - 1)) and
    ∂σ̂² = 4 (2 Σ_ij r_i ∂H_ij / n³ - 2 s Σ_ij ∂H_ij / n⁴), ∂Ĵ = ∂MMD²/S - MMD² ∂σ̂²/(2S³)."""
    a = 1.0 / (n * (n - 1) * S)
    c = mmd2 / (2.0 * S**3) * 4.0
    W = np.full((n, n), a + c * 2.0 * s / n**4)
    W -= (c * 2.0 / n**3) * r[:, None]
    W[np.diag_indices(n)] -= a
    return W


def _weighted_square_distances(P, A, B):
    """Σ_ij P_ij (A_id - B_jd)² for each coordinate d, in O(n² d)."""
    return (P.sum(axis=1) @ A**2 + P.sum(axis=0) @ B**2
            - 2.0 * np.einsum("id,id->d", A, P @ B))


def ard_criterion_and_gradient(X, Y, log_lengthscales, *, regulariser: float = REGULARISER):
    """Ĵ of the ARD Gaussian kernel exp(-Σ_d (x_d - y_d)²/(2ℓ_d²)) on paired, checked
    samples and its gradient in log ℓ (one entry per coordinate).

    Returns
    -------
    criterion : float
    gradient : array (d,)
    """
    scales = np.exp(np.asarray(log_lengthscales, dtype=float))
    Xs, Ys = X / scales, Y / scales
    unit = GaussianKernel(1.0)
    Kxx, Kyy, Kxy = _grams(Xs, Ys, unit)
    mmd2, S, r, s, _ = _criterion_parts(Kxx, Kyy, Kxy, regulariser)
    W = _criterion_weights(r, s, mmd2, S, X.shape[0])
    gradient = (_weighted_square_distances(W * Kxx, Xs, Xs)
                + _weighted_square_distances(W * Kyy, Ys, Ys)
                - _weighted_square_distances((W + W.T) * Kxy, Xs, Ys))
    return float(mmd2 / S), gradient


def gaussian_criterion_and_gradient(X, Y, log_bandwidth, *, regulariser: float = REGULARISER):
    """Ĵ of ``GaussianKernel(exp(log_bandwidth))`` and its derivative in log σ: the ARD
    gradient with every ℓ_d = σ, summed over d."""
    log_scales = np.full(X.shape[1], float(np.ravel(log_bandwidth)[0]))
    value, gradient = ard_criterion_and_gradient(X, Y, log_scales, regulariser=regulariser)
    return value, np.array([gradient.sum()])


@dataclass(frozen=True)
class LearnedKernel:
    """What ``learn_kernel`` found (Liu et al. 2020, Alg. 1: the learned kernel and its
    split).

    Parameters
    ----------
    kernel : Kernel
        The kernel of largest Ĵ on the training part (a ``FeatureKernel`` when a
        ``feature_map`` was given).
    criterion : float
        Its Ĵ on the training part.
    path : DataFrame
        The optimiser's iterates: ``step``, ``family``, ``J`` and one ``log_scale_d``
        column per learned log length scale (one for the isotropic family).
    train, test : tuple of two index arrays
        The rows of X and of Y in each part (``test`` empty when ``train_fraction`` is 1).
    median : float
        The median heuristic's σ on the training part (the start of the search).
    """

    kernel: object
    criterion: float
    path: pd.DataFrame
    train: tuple
    test: tuple
    median: float

    def test_samples(self, X, Y) -> tuple:
        """The held-out rows of X and Y, on which a test with ``kernel`` is valid."""
        return np.asarray(X)[self.test[0]], np.asarray(Y)[self.test[1]]


def split_indices(m: int, n: int, train_fraction: float, rng) -> tuple[tuple, tuple]:
    """Random disjoint train/test rows of X (m) and Y (n): ⌊f m⌋ and ⌊f n⌋ for training
    (at least 2 each), the rest for testing."""
    parts = []
    for size in (m, n):
        order = rng.permutation(size)
        cut = max(2, int(np.floor(train_fraction * size)))
        parts.append((np.sort(order[:cut]), np.sort(order[cut:])))
    return (parts[0][0], parts[1][0]), (parts[0][1], parts[1][1])


def learn_kernel(X, Y, *, kernel="gaussian", feature_map=None, train_fraction: float = 0.5,
                 regulariser: float = REGULARISER, max_iter: int = 200,
                 rng=None) -> LearnedKernel:
    """Learn a Gaussian or ARD Gaussian kernel by maximising the power criterion Ĵ on a
    random training part of the samples (Liu et al. 2020, Alg. 1 with a Gaussian kernel;
    scipy's L-BFGS-B on the log length scales, with the hand-derived gradient).

    The isotropic bandwidth starts from the best of 25 values between 1/100 and 10 times
    the median heuristic (or a given kernel's σ): Ĵ is not concave in log σ. The ARD
    length scales start from the learned isotropic σ in every coordinate, or from a given
    ARD kernel's scales where Ĵ is larger there.
    Ĵ pairs x_i with y_i: with unequal training parts, the first min(m, n) of each.

    Parameters
    ----------
    X : array (m, d)
    Y : array (n, d)
    kernel : {"gaussian", "ard"} or GaussianKernel or ARDGaussianKernel
        The family to learn; a kernel instance proposes a start (its σ centres the
        grid; its ARD scales are used when their Ĵ beats the learned σ's).
    feature_map : callable, optional
        φ: learn the kernel on the features φ(X), φ(Y) and return
        ``FeatureKernel(φ, learned)`` (a pretrained network's embedding, for example).
    train_fraction : float in (0, 1]
        The share of each sample learned on; 1 learns on everything (no test part left).
    regulariser : float
        λ in Ĵ.
    max_iter : int
        L-BFGS iterations per family.
    rng : Generator, int or None
        Draws the split.

    Returns
    -------
    LearnedKernel

    Examples
    --------
    >>> import numpy as np
    >>> g = np.random.default_rng(0)
    >>> X = g.normal(size=(200, 3))
    >>> Y = np.column_stack([g.normal(size=200) * 1.6, g.normal(size=(200, 2))])
    >>> learned = learn_kernel(X, Y, kernel="ard", rng=0)
    >>> ell = np.array(learned.kernel.lengthscales)
    >>> bool(ell[0] < ell[1:].min())  # the coordinate that differs gets the shortest scale
    True
    """
    X, Y = check_pair(X, Y, min_samples=4)
    if not (isinstance(train_fraction, (int, float)) and 0 < train_fraction <= 1):
        raise ValueError(f"train_fraction must lie in (0, 1], got {train_fraction!r}")
    family, start = _family(kernel)
    regulariser = _check_regulariser(regulariser)
    rng = check_rng(rng)
    train, test = ((np.arange(X.shape[0]), np.arange(Y.shape[0])),
                   (np.arange(0), np.arange(0))) if train_fraction == 1 else \
        split_indices(X.shape[0], Y.shape[0], float(train_fraction), rng)
    Xt, Yt = X[train[0]], Y[train[1]]
    if feature_map is not None:
        wrapper = FeatureKernel(feature_map)
        Xt, Yt = wrapper.features(Xt), wrapper.features(Yt)
        if Xt.shape[1] != Yt.shape[1]:
            raise ValueError("feature_map gave X and Y different numbers of features")
    pairs = min(Xt.shape[0], Yt.shape[0])
    Xt, Yt = Xt[:pairs], Yt[:pairs]
    median = median_heuristic(Xt, Yt, rng=rng)
    rows, log_sigma = _learn_isotropic(Xt, Yt, start, median, regulariser, max_iter)
    learned = GaussianKernel(float(np.exp(log_sigma)))
    value = rows[-1]["J"]
    if family == "ard":
        def ard(t):
            return ard_criterion_and_gradient(Xt, Yt, t, regulariser=regulariser)

        initial = np.full(Xt.shape[1], log_sigma)
        if isinstance(start, ARDGaussianKernel):  # its scales, if Ĵ is larger there
            given = np.log(start.lengthscales)
            if given.size != initial.size:
                raise ValueError(f"the ARD kernel has {given.size} length scales and the "
                                 f"samples (or features) have {initial.size} columns")
            initial = given if ard(given)[0] > ard(initial)[0] else initial
        ard_rows, log_scales = _learn(ard, initial, np.log(median), max_iter, "ard",
                                      len(rows))
        rows += ard_rows
        learned = ARDGaussianKernel(tuple(np.exp(log_scales)))
        value = ard_rows[-1]["J"]
    if feature_map is not None:
        learned = FeatureKernel(feature_map, learned)
    return LearnedKernel(learned, float(value), pd.DataFrame(rows), train, test,
                         float(median))


def _learn_isotropic(X, Y, start, median, regulariser, max_iter):
    """L-BFGS on log σ from the best of ``GRID_POINTS`` bandwidths around the median
    heuristic (or around ``start``'s σ)."""
    def fun(t):
        return gaussian_criterion_and_gradient(X, Y, t, regulariser=regulariser)

    centre = start.bandwidth if isinstance(start, GaussianKernel) else median
    grid = np.geomspace(centre / GRID_SPAN[0], centre * GRID_SPAN[1], GRID_POINTS)
    values = [fun(np.log(s))[0] for s in grid]
    initial = np.log(grid[int(np.argmax(values))])
    rows, t = _learn(fun, np.array([initial]), np.log(centre), max_iter, "gaussian", 0)
    return rows, float(t[0])


def _learn(fun, initial, log_median, max_iter, family, first_step):
    """Maximise Ĵ by L-BFGS-B on the log scales; the iterates as path rows."""
    rows = []

    def record(t, value):
        rows.append({"step": first_step + len(rows), "family": family, "J": float(value),
                     **{f"log_scale_{d}": float(v) for d, v in enumerate(t)}})

    def negative(t):
        value, gradient = fun(t)
        return -value, -gradient

    def callback(intermediate_result):  # scipy passes the state by this name
        record(intermediate_result.x, -intermediate_result.fun)

    record(initial, fun(initial)[0])
    bounds = [(log_median - LOG_BOUND * np.log(10), log_median + LOG_BOUND * np.log(10))]
    result = optimize.minimize(negative, initial, jac=True, method="L-BFGS-B",
                               bounds=bounds * len(initial),
                               callback=callback,
                               options={"maxiter": max_iter})
    best = result.x if -result.fun >= rows[0]["J"] else initial
    if rows[-1]["J"] != -result.fun:
        record(best, max(-result.fun, rows[0]["J"]))
    return rows, best


def _family(kernel):
    if isinstance(kernel, str):
        if kernel not in FAMILIES:
            raise ValueError(f"kernel must be one of {FAMILIES} or a GaussianKernel / "
                             f"ARDGaussianKernel to start from, got {kernel!r}")
        return kernel, None
    if isinstance(kernel, ARDGaussianKernel):
        return "ard", kernel
    if isinstance(kernel, GaussianKernel):
        return "gaussian", kernel
    raise TypeError("kernel must be 'gaussian', 'ard', a GaussianKernel or an "
                    f"ARDGaussianKernel (the families Ĵ is learned over), got {kernel!r}")


def _paired(X, Y):
    X, Y = check_pair(X, Y, min_samples=2)
    if X.shape[0] != Y.shape[0]:
        raise ValueError("the power criterion pairs x_i with y_i: X and Y need equally many "
                         f"rows, got {X.shape[0]} and {Y.shape[0]}")
    return X, Y


def _check_regulariser(value) -> float:
    if not isinstance(value, (int, float)) or not np.isfinite(value) or value < 0:
        raise ValueError(f"regulariser must be a finite number >= 0, got {value!r}")
    return float(value)


__all__ = ["LearnedKernel", "PowerCriterion", "ard_criterion_and_gradient",
           "gaussian_criterion_and_gradient", "learn_kernel", "power_criterion",
           "split_indices"]
