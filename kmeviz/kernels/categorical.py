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

#: A numeric column with at most this many distinct values, all integers, is read as
#: categorical (codes, counts of few levels, 0/1 answers).
MAX_CODE_LEVELS = 10


@dataclass(frozen=True)
class CategoricalKernel(Kernel):
    """k(a, b) = 1 if the rows a and b are equal in every column, else 0.

    Points are numeric codes (``category_codes`` turns labels into codes).

    (The delta kernel on a finite set; see the module docstring.)
    """

    tile_temporaries = 2

    @property
    def scale(self) -> float:
        return float("nan")

    def prepare_validated(self, X):
        return _Prepared(np.ascontiguousarray(X), None)

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
    """The labels of a column as float codes 0, 1, ... (sorted levels; missing values
    raise), one column: what ``CategoricalKernel`` reads."""
    series = pd.Series(values)
    if series.isna().any():
        raise ValueError("a categorical column has missing values; drop those rows or "
                         "give them a level of their own")
    codes, _ = pd.factorize(series, sort=True)
    return codes.astype(float).reshape(-1, 1)
