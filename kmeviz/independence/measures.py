"""The public HSIC measures (``hsic``, ``hsic_witness``), the checks of paired samples and
the default kernels every independence test shares.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_choice, check_samples
from ..chunked import check_any_samples, is_dask_array
from ..kernels import GaussianKernel, check_kernel, median_heuristic
from ..kernels.categorical import MAX_CODE_LEVELS, CategoricalKernel
from .hsic import KernelPair, hsic_statistic, witness_on_grid

#: The statistics of ``hsic``.
HSIC_ESTIMATORS = ("biased", "unbiased")
#: Rows of a dask sample the median heuristic reads.
CHUNKED_HEURISTIC_ROWS = 1000


def check_paired(*samples, min_samples: int = 4, names=("X", "Y")):
    """The samples as clean (n, d_k) arrays (dask arrays stay dask), each checked once:
    the same number of rows, at least ``min_samples`` (HSIC_u divides by n − 3), finite
    values; the dimensions may differ. A 1-D array is read as one column. Returns a list."""
    out = []
    for Z, name in zip(samples, names, strict=True):
        if not is_dask_array(Z) and np.ndim(Z) == 1 and not isinstance(Z, (str, bytes)):
            Z = np.asarray(Z).reshape(-1, 1)
        out.append(check_any_samples(Z, name, min_samples=min_samples))
    for Z, name in zip(out[1:], names[1:], strict=True):
        if Z.shape[0] != out[0].shape[0]:
            raise ValueError(f"{names[0]} and {name} must pair their rows (x_i, y_i): got "
                             f"{out[0].shape[0]} rows in {names[0]} and {Z.shape[0]} in "
                             f"{name}")
    return out


def default_variable_kernel(Z, name: str):
    """``GaussianKernel(median_heuristic(Z))`` of one variable; when the median distance
    is 0 and the rows take at most ``MAX_CODE_LEVELS`` distinct values (a 0/1 column with
    one value in most rows, codes), the delta kernel ``CategoricalKernel``; else a
    message naming the variable (a constant, or mostly repeated values)."""
    head = Z[:CHUNKED_HEURISTIC_ROWS].compute() if is_dask_array(Z) else Z
    try:
        sigma = median_heuristic(head)
    except ValueError:
        sigma = 0.0
    if sigma > 0:
        return GaussianKernel(sigma)
    if np.all(head == head[0]):
        raise ValueError(f"{name} is constant (every row is equal): the median heuristic "
                         "bandwidth is 0, and a constant is independent of everything; "
                         f"drop {name} or test another variable")
    if np.unique(head, axis=0).shape[0] <= MAX_CODE_LEVELS:
        return CategoricalKernel()  # a few repeated values: labels, read by equality
    raise ValueError(f"the median distance between the rows of {name} is 0 (more than "
                     "half the pairs are equal: discrete data?), so the median heuristic "
                     f"gives no bandwidth; pass kernel_{name.lower()}=GaussianKernel(σ) "
                     "with σ > 0")


def checked_kernel_pair(kernel_x, kernel_y, X, Y) -> KernelPair:
    """The ``KernelPair`` of the given kernels (checked against each variable's
    dimension) or their defaults (``default_variable_kernel``)."""
    kernels = []
    for kernel, Z, name in ((kernel_x, X, "X"), (kernel_y, Y, "Y")):
        if kernel is None:
            kernels.append(default_variable_kernel(Z, name))
            continue
        kernel = check_kernel(kernel, f"kernel_{name.lower()}")
        probe = Z[:2].compute() if is_dask_array(Z) else Z[:2]
        try:
            values = kernel.gram(probe, probe)
        except (ValueError, TypeError, IndexError) as exc:
            raise ValueError(f"kernel_{name.lower()}={kernel!r} does not fit {name} (shape "
                             f"{tuple(Z.shape)}): {exc}") from None
        if values.shape != (probe.shape[0],) * 2 or not np.all(np.isfinite(values)):
            raise ValueError(f"kernel_{name.lower()}={kernel!r} does not fit {name}: its "
                             "values on the first rows are not a finite Gram matrix")
        kernels.append(kernel)
    return KernelPair(*kernels)


def hsic(X, Y, *, kernel_x=None, kernel_y=None, estimator: str = "biased") -> float:
    """The Hilbert–Schmidt independence criterion of paired samples.

    HSIC_b = tr(K H L H)/n² (Gretton et al. 2005; 2008, Eq. 4) or the unbiased HSIC_u of
    Song et al. 2012 (Eq. 5), from one threaded pass over the Gram tiles (H is never
    formed; memory O(tile · n)).

    Parameters
    ----------
    X : array (n, d_X)
    Y : array (n, d_Y)
        Paired with X row by row; the dimensions may differ (a 1-D array is a column).
    kernel_x, kernel_y : Kernel, optional
        Default: a Gaussian kernel at the median heuristic of each variable.
    estimator : {"biased", "unbiased"}

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(300, 1))
    >>> hsic(x, x**2) > 10 * hsic(x, rng.normal(size=(300, 1)))
    True
    """
    check_choice(estimator, "estimator", HSIC_ESTIMATORS)
    X, Y = check_paired(X, Y)
    if is_dask_array(X) or is_dask_array(Y):
        raise TypeError("hsic needs X and Y in memory (it is quadratic in n); for dask "
                        "arrays use hsic_test(..., estimator='block' | 'nystrom' | 'rff')")
    kernels = checked_kernel_pair(kernel_x, kernel_y, X, Y)
    return hsic_statistic(X, Y, kernels, estimator=estimator)


def hsic_witness(X, Y, grid_x, grid_y, *, kernel_x=None, kernel_y=None) -> np.ndarray:
    """The witness of dependence μ̂_XY − μ̂_X ⊗ μ̂_Y on a grid: where X and Y depend.

    w(u, v) = (1/n) Σ_i k(x_i, u) l(y_i, v) − [(1/n) Σ_i k(x_i, u)] [(1/n) Σ_j l(y_j, v)],
    the HSIC analogue of ``mmd_witness`` (Gretton et al. 2005: HSIC = ||w||² in the
    product RKHS). Positive where pairs (u, v) occur more often together than the
    marginals predict. Identity: (1/n) Σ_i w(x_i, y_i) − (1/n²) Σ_ij w(x_i, y_j) = HSIC_b.

    Parameters
    ----------
    X : array (n, d_X)
    Y : array (n, d_Y)
    grid_x : array (g, d_X)
    grid_y : array (h, d_Y)
    kernel_x, kernel_y : Kernel, optional
        Default: Gaussian at each variable's median heuristic.

    Returns
    -------
    array (g, h)
        ``w[a, b]`` = w(grid_x[a], grid_y[b]).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(1).normal(size=(200, 1))
    >>> grid = np.linspace(-2, 2, 5)[:, None]
    >>> hsic_witness(x, x, grid, grid).shape
    (5, 5)
    """
    X, Y = check_paired(X, Y)
    if is_dask_array(X) or is_dask_array(Y):
        raise TypeError("hsic_witness needs X and Y in memory; pass X.compute() and "
                        "Y.compute() (or a subsample)")
    grids = []
    for grid, Z, name in ((grid_x, X, "grid_x"), (grid_y, Y, "grid_y")):
        grid = np.asarray(grid).reshape(-1, 1) if np.ndim(grid) == 1 else grid
        grid = check_samples(grid, name)
        if grid.shape[1] != Z.shape[1]:
            raise ValueError(f"{name} must have the {Z.shape[1]} column(s) of its variable, "
                             f"got {grid.shape[1]}")
        grids.append(grid)
    kernels = checked_kernel_pair(kernel_x, kernel_y, X, Y)
    return witness_on_grid(X, Y, kernels, *grids)
