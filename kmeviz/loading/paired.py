"""Paired variables from one table: ``load_paired`` reads column groups X and Y of the
same rows (for the independence tests), ``load_conditional`` groups X, Y and Z (for the
conditional independence tests), and each says what it did."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ..independence.measures import default_variable_kernel
from ..kernels import GaussianKernel
from ..kernels.categorical import (
    MAX_CODE_LEVELS,
    category_codes,
    group_kernel,
    is_categorical,
)
from .files import MAX_BYTES, file_name, listed, read_table
from .samples import LoadReport, Samples, column_notes, numeric_values, summarised

#: A text column with more distinct labels is an identifier or free text, not a category.
MAX_TEXT_LEVELS = 50


def _columns(value, name: str) -> list:
    names = [value] if isinstance(value, str) else list(value or ())
    if not names:
        raise ValueError(f"{name} must name at least one column")
    return names


def paired_from_frame(frame: pd.DataFrame, *, x, y, standardize: bool = True,
                      sources: tuple = ("the table",)) -> Samples:
    """Split a table's columns into the paired variables X (columns ``x``) and Y (columns
    ``y``), dropping a row with a NaN or inf in any of them (the second half of
    ``load_paired``).

    Parameters
    ----------
    frame : pandas.DataFrame
    x, y : str or list of str
        The numeric columns of X and of Y (disjoint).
    standardize : bool
        Centre and scale each column by its mean and standard deviation (a permutation
        of Y's rows does not change them, so permutation tests stay exact).
    sources : tuple of str

    Returns
    -------
    Samples
        ``(X, Y, report)``, X (n, |x|) and Y (n, |y|) paired row by row.
    """
    X, Y, report = grouped_from_frame(frame, {"x": x, "y": y}, standardize, sources)
    return Samples(X, Y, report)


class ConditionalSamples(NamedTuple):
    """``(X, Y, Z, report)``, as ``load_conditional`` returns them."""

    X: np.ndarray
    Y: np.ndarray
    Z: np.ndarray
    report: LoadReport


def grouped_from_frame(frame: pd.DataFrame, groups: dict, standardize: bool,
                       sources: tuple) -> tuple:
    """(each group's array ..., the report): the disjoint column ``groups`` (name ->
    columns) of the rows finite in all of them."""
    chosen = {name: _columns(cols, name) for name, cols in groups.items()}
    names = list(chosen)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            shared = [c for c in chosen[a] if c in chosen[b]]
            if shared:
                raise ValueError(f"{a} and {b} share the column(s) {listed(shared)}: a "
                                 "variable is not tested against itself")
    every = [c for cols in chosen.values() for c in cols]
    categorical = tuple(c for c in every if c in frame.columns and is_categorical(frame[c]))
    text = [c for c in categorical if not pd.api.types.is_numeric_dtype(frame[c])
            or frame[c].dtype == bool]
    for c in text:
        levels = frame[c].nunique()
        if levels < 2:
            raise ValueError(f"column {c!r} is constant: it carries no information")
        if levels > MAX_TEXT_LEVELS:
            raise ValueError(f"column {c!r} has {levels} distinct labels, more than "
                             f"{MAX_TEXT_LEVELS}: an identifier or free text, not a "
                             "category; leave it out")
    if text:  # labels as codes (a missing label stays missing: its row is dropped)
        frame = frame.assign(**{c: category_codes(frame[c])[:, 0] for c in text})
    values, used, _ = numeric_values(frame, every)
    finite = np.all(np.isfinite(values), axis=1)
    kept = values[finite]
    dropped = int(np.count_nonzero(~finite))
    if kept.shape[0] < 4:
        raise ValueError(f"{kept.shape[0]} row(s) have finite values in every chosen column "
                         f"(dropped {dropped}); an independence test needs at least 4")
    notes = column_notes(frame, used, (), kept, standardize)
    if categorical:
        notes += (f"{listed(categorical)} read as categorical (text, yes/no or at most "
                  f"{MAX_CODE_LEVELS} integer levels): the tests compare them by equality "
                  "(the delta kernel)",)
    if standardize:
        std = kept.std(axis=0)
        std[std == 0.0] = 1.0
        kept = (kept - kept.mean(axis=0)) / std
    bounds = np.cumsum([0] + [len(c) for c in chosen.values()])
    arrays = [kept[:, a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    labels = tuple(f"{n.upper()} ({summarised(c)})" for n, c in chosen.items())
    report = LoadReport(tuple(map(str, sources)), tuple(used), labels,
                        tuple(len(a) for a in arrays), (), (dropped,) * len(arrays),
                        bool(standardize), notes, categorical)
    return (*arrays, report)


def group_kernels(report: LoadReport, *samples, scale: float = 1.0) -> list:
    """The kernel of each column group a route read (``report.columns`` in the groups'
    order): ``group_kernel``'s delta kernel where categorical columns are, else
    ``default_variable_kernel``'s Gaussian with its bandwidth times ``scale``: what the
    command line and the dashboard both pass to the tests."""
    kernels, start = [], 0
    for V, name in zip(samples, "XYZ", strict=False):
        columns = report.columns[start:start + V.shape[1]]
        start += V.shape[1]
        kernel = group_kernel(V, columns, report.categorical, name)
        if kernel is None:
            kernel = default_variable_kernel(V, name)
            if scale != 1.0 and isinstance(kernel, GaussianKernel):
                kernel = GaussianKernel(kernel.bandwidth * scale)
        kernels.append(kernel)
    return kernels



def conditional_from_frame(frame: pd.DataFrame, *, x, y, z, standardize: bool = True,
                           sources: tuple = ("the table",)) -> ConditionalSamples:
    """X, Y and Z, three disjoint column groups of the rows finite in all of them (the
    second half of ``load_conditional``)."""
    return ConditionalSamples(*grouped_from_frame(frame, {"x": x, "y": y, "z": z},
                                                  standardize, sources))


def load_conditional(path, *, x, y, z, standardize: bool = True,
                     max_bytes: int = MAX_BYTES) -> ConditionalSamples:
    """Read X, Y and the conditioning variables Z, three groups of columns of one file.

    Parameters
    ----------
    path : str or path-like
        CSV, TSV, .npy, .npz or Parquet (as ``load_samples``).
    x, y, z : str or list of str
        The columns of X, Y and Z (disjoint).
    standardize : bool
    max_bytes : int

    Returns
    -------
    ConditionalSamples
        ``(X, Y, Z, report)``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = path.write_text("a,b,c\\n1,2,3\\n2,1,4\\n5,5,1\\n6,5,0\\n1,nan,2\\n")
    >>> X, Y, Z, report = load_conditional(path, x="a", y="b", z="c")
    >>> X.shape, Z.shape, report.dropped_rows
    ((4, 1), (4, 1), (1, 1, 1))
    """
    return conditional_from_frame(read_table(path, max_bytes=max_bytes), x=x, y=y, z=z,
                                  standardize=standardize, sources=(file_name(path),))


def load_paired(path, *, x, y, standardize: bool = True, max_bytes: int = MAX_BYTES) -> Samples:
    """Read paired variables X and Y, two groups of columns of one file.

    Parameters
    ----------
    path : str or path-like
        CSV, TSV, .npy, .npz or Parquet (as ``load_samples``).
    x, y : str or list of str
        The columns of X and of Y.
    standardize : bool
    max_bytes : int

    Returns
    -------
    Samples
        ``(X, Y, report)``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = path.write_text("a,b,c\\n1,2,3\\n2,1,4\\n5,5,1\\n6,5,0\\n1,nan,2\\n")
    >>> X, Y, report = load_paired(path, x=["a", "b"], y="c")
    >>> X.shape, Y.shape, report.dropped_rows
    ((4, 2), (4, 1), (1, 1))
    """
    return paired_from_frame(read_table(path, max_bytes=max_bytes), x=x, y=y,
                             standardize=standardize, sources=(file_name(path),))
