"""The kernels a test uses when none is given.

- Two-sample tests: a Gaussian kernel whose bandwidth is the median heuristic of the
  pooled sample (Gretton et al. 2012; the default of hyppo and most MMD code).
- Goodness-of-fit tests: the IMQ base kernel k(x, y) = (c² + ||x - y||²)^β with c = 1,
  β = -½, the common default since Gorham & Mackey 2017 (its KSD detects non-convergence
  for distantly dissipative targets, which a Gaussian base kernel's does not). Kalinke et
  al.'s experiments (N-KSD) instead take β and c from the L1 IMQ construction of Huggins
  & Mackey; kmeviz's fidelity runners use those. The FSSD test that optimises a Gaussian
  bandwidth starts from the median heuristic.
"""

from __future__ import annotations

from .._validation import check_positive, check_positive_int, check_samples, is_dask_array
from ..needs import Needs
from .base import check_kernel
from .collection import KernelCollection, ksdagg_kernels, mmdagg_kernels
from .radial import GaussianKernel, IMQKernel, median_heuristic

#: Rows of each sample the heuristic reads when the samples are dask arrays.
CHUNKED_HEURISTIC_ROWS = 1000


def default_mmd_kernel(X, Y) -> GaussianKernel:
    """``GaussianKernel(median_heuristic(X, Y))`` (seeded subsample of 1000 points; for
    dask arrays, the first 1000 rows of each sample)."""
    if is_dask_array(X) or is_dask_array(Y):
        X, Y = (Z[:CHUNKED_HEURISTIC_ROWS].compute() if is_dask_array(Z)
                else Z[:CHUNKED_HEURISTIC_ROWS] for Z in (X, Y))
    return GaussianKernel(median_heuristic(X, Y))


def default_gof_kernel(X, needs: Needs = Needs.NOTHING):
    """``IMQKernel(c=1, beta=-0.5)``, or ``GaussianKernel(median_heuristic(X))`` for a test
    that ``needs`` a Gaussian kernel, ``IMQKernel(c=4 × median)`` for the L1 IMQ features
    (``L1_IMQ_BASE``: Huggins & Mackey's c, from which c' and β' are built), KSDAgg's
    collection (``ksdagg_kernels``) for one that needs a kernel collection, and None for one
    that builds its own kernel."""
    if Needs.KERNEL_COLLECTION in needs:
        return ksdagg_kernels(X)
    if Needs.OWN_KERNEL in needs:  # the test builds its kernel from the sample (L2 SechExp)
        return None
    if needs & (Needs.GAUSSIAN_KERNEL | Needs.L1_IMQ_BASE):
        if is_dask_array(X):
            X = X[:CHUNKED_HEURISTIC_ROWS].compute()
        median = median_heuristic(X)
        if Needs.L1_IMQ_BASE in needs:
            return IMQKernel(c=L1_IMQ_MEDIAN_FACTOR * median, beta=-0.5)
        return GaussianKernel(median)
    return IMQKernel(c=1.0, beta=-0.5)


#: Huggins & Mackey's goodness-of-fit settings of the L1 IMQ construction (their Sec. 5 and
#: experiment script): efficiency γ = 1/4, ν's degrees of freedom 1/2, c = 4 × the median
L1_IMQ_GAMMA = 0.25
L1_IMQ_DF = 0.5
L1_IMQ_MEDIAN_FACTOR = 4.0
#: the need of the L1 IMQ test: its base IMQ kernel's c sets the features' width, and the
#: authors' c is 4 × the median distance (``L1IMQFastKSD(p, c=4 * med_l2)`` in their
#: ``gof_testing_experiments.py``); c = 1 made the features far too narrow on data of
#: ordinary scale (p ≈ 0.3 for a one-standard-deviation shift in d = 4, n = 442)
L1_IMQ_BASE = Needs.L1_IMQ_BASE


def l1_imq_parameters(c: float, dim: int, *, gamma: float = L1_IMQ_GAMMA,
                      df: float = L1_IMQ_DF) -> tuple[float, float]:
    """(c', β') of the L^1 IMQ construction of Huggins & Mackey (2018, Sec. 3).

    From an IMQ kernel's c, the efficiency parameter γ and ν's degrees of freedom df:
    a = γ/3, ξ = 4a/(2 + a), ξ' = ξ d/(d + df), β' = -d/(2ξ') = -(d + df)/(2ξ) and
    c' = (1 - a/2) c/2. With γ = 1/4 and df = 1/2, β' = -(d + ½)/0.32: -4.7 at d = 1,
    -48.4 at d = 15.
    """
    c = check_positive(c, "c")
    dim = check_positive_int(dim, "dim")
    df = check_positive(df, "df")
    xi = efficiency_xi(gamma) * dim / (dim + df)
    return (1.0 - check_positive(gamma, "gamma") / 6.0) * c / 2.0, -dim / (2.0 * xi)


def efficiency_xi(gamma: float = L1_IMQ_GAMMA) -> float:
    """ξ = 4a/(2 + a) with a = γ/3: the exponent of Huggins & Mackey's L^r constructions
    (Sec. 3) for efficiency parameter γ (4/25 at γ = 1/4)."""
    a = check_positive(gamma, "gamma") / 3.0
    return 4.0 * a / (2.0 + a)


def l1_imq_kernel(X, *, gamma: float = L1_IMQ_GAMMA, df: float = L1_IMQ_DF,
                  rng=0) -> IMQKernel:
    """The IMQ base kernel of Kalinke et al.'s Laplace and Student-t experiments (Fig. 1b,
    1c; App. D): ``IMQKernel(c', β')`` of ``l1_imq_parameters`` with c = 4 × the median
    distance of X (``median_heuristic``, 1000-point subsample).

    The paper defers these values to "the recommendation for L1 IMQ" of Huggins & Mackey;
    its experiment code (``lib/random-feature-stein-discrepancies`` of FlopsKa/nystroem-ksd,
    ``gof_testing_experiments.py``) builds the KSD IMQ and N-KSD IMQ kernels from the L1 IMQ
    test's c' and β' this way. β' is far below -1 (-48.4 at d = 15, c' ≈ 1.92 × median):
    a much narrower kernel than c = 1, β = -½, outside the range β ∈ (-1, 0) of Gorham &
    Mackey's convergence control, and much more powerful on these problems.

    Parameters
    ----------
    X : array (n, d)
        The sample whose median distance sets c.
    gamma, df : float
        Huggins & Mackey's efficiency parameter γ and ν's degrees of freedom (their
        goodness-of-fit settings: 1/4 and 1/2).
    rng : Generator, int or None
        Seed of the median heuristic's subsample (fixed by default).

    Returns
    -------
    IMQKernel
        c', β' of ``l1_imq_parameters``.

    Examples
    --------
    >>> import numpy as np
    >>> k = l1_imq_kernel(np.random.default_rng(0).standard_normal((500, 15)))
    >>> round(k.beta, 1)
    -48.4
    """
    X = check_samples(X, "X", min_samples=2)
    c, beta = l1_imq_parameters(L1_IMQ_MEDIAN_FACTOR * median_heuristic(X, rng=rng),
                                X.shape[1], gamma=gamma, df=df)
    return IMQKernel(c=c, beta=beta)


def checked_test_kernel(kernel, spec, X, Y):
    """The kernel of test ``spec``: the one given, checked, or its default (a Gaussian at
    the median heuristic; MMDAgg's collection for a test that needs one; None for a test
    that uses no kernel)."""
    if Needs.NO_KERNEL in spec.needs:
        if kernel is not None:
            raise TypeError(f"estimator={spec.estimator!r} uses no kernel; pass kernel=None, "
                            f"got {kernel!r}")
        return None
    if Needs.KERNEL_COLLECTION in spec.needs:
        default = spec.default_kernel or mmdagg_kernels
        if kernel is None:
            return default(X, Y)
        if not isinstance(kernel, KernelCollection):
            raise TypeError(f"estimator={spec.estimator!r} tests with a KernelCollection "
                            f"(default kmeviz.{default.__name__}(X, Y)), got {kernel!r}: "
                            "pass kernel=None or a KernelCollection")
        return kernel
    if isinstance(kernel, KernelCollection):
        raise TypeError("a KernelCollection is for estimator='mmdagg' or 'mmdfuse'; "
                        f"estimator={spec.estimator!r} takes one kernel")
    if kernel is None:
        kernel = default_mmd_kernel(X, Y)
    return check_kernel(kernel, shift_invariant=Needs.SHIFT_INVARIANT_KERNEL in spec.needs)
