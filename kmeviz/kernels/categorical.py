"""The categorical (delta) kernel k(a, b) = 1[a = b], for columns whose values are labels.

A species, a treatment arm, a yes/no answer or an integer code of few levels has no
distance worth a bandwidth: the median heuristic of a 0/1 column is 0 as soon as one
level holds more than about 70 % of the rows. The delta kernel reads only equality. It
is characteristic on a finite set (its Gram on the k levels is the identity), so HSIC
with it on X is 0 exactly when X and Y are independent, and MMD with it is the Euclidean
distance between the two samples' level frequencies: MMD² = Σ_a (p̂_a − q̂_a)² (a
χ²-type form without the χ² weights). A row of several columns equals another when every
column does (the product of the columns' delta kernels).

``is_categorical`` states the rule the loaders and the dependence map use to choose it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .base import Kernel, _Prepared
from .radial import GaussianKernel, median_heuristic

#: A numeric column with at most this many distinct values, all integers, is read as
#: categorical (codes, counts of few levels, 0/1 answers).
MAX_CODE_LEVELS = 10


class _LabelKernel(Kernel):
    """A kernel without a length scale whose points need no preparation."""

    @property
    def scale(self) -> float:
        return float("nan")

    def prepare_validated(self, X):
        return _Prepared(np.ascontiguousarray(X), None)


@dataclass(frozen=True)
class CategoricalKernel(_LabelKernel):
    """k(a, b) = 1 if the rows a and b are equal in every column, else 0.

    Points are numeric codes (``category_codes`` turns labels into codes).

    (The delta kernel on a finite set; see the module docstring.)
    """

    tile_temporaries = 2

    def tile_into(self, a, b, out):
        out[...] = 1.0
        for j in range(a.X.shape[1]):
            out *= a.X[:, j, None] == b.X[None, :, j]
        return out

    def paired(self, X, Y):
        return np.all(X == Y, axis=1).astype(float)


def is_categorical(values) -> bool:
    """The rule: a column is categorical if it is not numeric (text, categories) or
    boolean, or if it is numeric with at most ``MAX_CODE_LEVELS`` distinct values, all
    integers (NaN aside)."""
    series = pd.Series(values)
    if series.dtype == bool or not pd.api.types.is_numeric_dtype(series):
        return True
    present = series.dropna().to_numpy(dtype=float)
    if present.size == 0:
        return False
    levels = np.unique(present)
    return levels.size <= MAX_CODE_LEVELS and bool(np.all(levels == np.round(levels)))


def category_codes(values) -> np.ndarray:
    """The labels of a column as float codes 0, 1, ... of its sorted levels (a missing
    label NaN), one column: what ``CategoricalKernel`` reads."""
    codes, _ = pd.factorize(pd.Series(values), sort=True)
    return np.where(codes < 0, np.nan, codes.astype(float)).reshape(-1, 1)


@dataclass(frozen=True)
class ColumnProductKernel(_LabelKernel):
    """k(a, b) = Π_parts k_part(a[cols], b[cols]): a kernel of mixed columns, e.g. the
    delta kernel on a group's categorical columns times a Gaussian on its numeric ones
    (a product of characteristic kernels on the parts is characteristic on their product
    space).

    Parameters
    ----------
    parts : tuple of (tuple of int, Kernel)
        The columns each kernel reads.
    """

    parts: tuple

    tile_temporaries = 3

    def tile_into(self, a, b, out):
        out[...] = 1.0
        part = np.empty_like(out)
        for columns, kernel in self.parts:
            cols = list(columns)
            kernel.tile_into(kernel.prepare_validated(np.ascontiguousarray(a.X[:, cols])),
                             kernel.prepare_validated(np.ascontiguousarray(b.X[:, cols])),
                             part)
            out *= part
        return out

    def paired(self, X, Y):
        out = np.ones(X.shape[0])
        for columns, kernel in self.parts:
            out *= kernel.paired(X[:, list(columns)], Y[:, list(columns)])
        return out


def group_kernel(V: np.ndarray, columns, categorical, name: str):
    """The kernel of a column group read from a table: None (the test's default) when no
    column is categorical, ``CategoricalKernel`` when all are, else the delta kernel on
    the categorical columns times a Gaussian at the median heuristic of the others."""
    labels = [i for i, c in enumerate(columns) if c in set(categorical)]
    if not labels:
        return None
    if np.all(V == V[0]):
        raise ValueError(f"{name} is constant (every row is equal): a constant is "
                         f"independent of everything; drop {name} or test another variable")
    if len(labels) == len(columns):
        return CategoricalKernel()
    numbers = [i for i in range(len(columns)) if i not in labels]
    sigma = median_heuristic(V[:1000, numbers])
    if not sigma > 0:
        raise ValueError(f"the median distance of {name}'s numeric columns is 0; pass a "
                         "kernel for it")
    return ColumnProductKernel(((tuple(labels), CategoricalKernel()),
                                (tuple(numbers), GaussianKernel(sigma))))
