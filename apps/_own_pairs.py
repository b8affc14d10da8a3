"""The independence side of the "Your data" explorer: two groups of columns of the same
rows as the paired variables X and Y, their kernels, the witness of dependence on their
first columns, and the choice of Y's columns (no widgets here)."""

from __future__ import annotations

import numpy as np

import kmeviz as K
from kmeviz.kernels.categorical import CategoricalKernel
from kmeviz.loading import paired_from_frame
from kmeviz.loading.paired import group_kernels

#: The question value of ``_own_data.QUESTIONS`` that tests independence.
INDEPENDENCE = "independence"
#: the witness grid's side, and the rows the witness and the scatter read at most
GRID = 50
PAIR_POINTS = 3000


def default_y_columns(numeric: list, columns: list, current: list) -> list:
    """Y's columns: the current ones still offered, else the last numeric column."""
    offered = set(numeric)
    kept = [c for c in current if c in offered]
    return kept or numeric[-1:]


def paired_samples(frame, x_columns, y_columns, *, standardize: bool, sources: tuple):
    """(X, Y, report) of the columns ``x_columns`` and ``y_columns`` of every row; X's
    columns leave out those chosen for Y (a column is not tested against itself)."""
    if not y_columns:
        raise ValueError("choose at least one column for Y (Y: columns)")
    x_columns = [c for c in x_columns if c not in y_columns]
    if not x_columns:
        raise ValueError("choose at least one column for X that is not one of Y's")
    return paired_from_frame(frame, x=x_columns, y=list(y_columns), standardize=standardize,
                             sources=sources)


def paired_kernels(X, Y, scale: float, report) -> K.KernelPair:
    """Each variable's kernel as the command line chooses it (``group_kernels``: the
    delta kernel on categorical columns), a Gaussian's bandwidth at ``scale`` × its
    median heuristic (a constant variable gets ``default_variable_kernel``'s message)."""
    return K.KernelPair(*group_kernels(report, X, Y, scale=scale))


def kernel_words(kernel) -> str:
    """A variable's kernel as the summary says it."""
    if isinstance(kernel, K.GaussianKernel):
        return f"Gaussian, σ = {kernel.bandwidth:.4g}"
    if isinstance(kernel, CategoricalKernel):
        return "categorical (equal or not: the delta kernel)"
    return "categorical columns × Gaussian on the others"


def first_column_grids(X, Y):
    """Grids along the first column of X and of Y (the other columns at their means), and
    the axes' values."""
    grids, axes = [], []
    for Z in (X, Y):
        values = np.linspace(Z[:, 0].min(), Z[:, 0].max(), GRID)
        grid = np.tile(Z.mean(axis=0), (GRID, 1))
        grid[:, 0] = values
        grids.append(grid)
        axes.append(values)
    return grids, axes


def paired_witness(X, Y, kernels):
    """(values of X's first column, of Y's, the witness of dependence on that grid), from
    at most ``PAIR_POINTS`` rows."""
    if X.shape[0] > PAIR_POINTS:
        keep = np.random.default_rng(0).choice(X.shape[0], PAIR_POINTS, replace=False)
        X, Y = X[keep], Y[keep]
    (gx, gy), (ax, ay) = first_column_grids(X, Y)
    return ax, ay, K.hsic_witness(X, Y, gx, gy, kernel_x=kernels.x, kernel_y=kernels.y)
