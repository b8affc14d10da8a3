"""Two paired variables from one table: ``load_paired`` reads column groups X and Y of
the same rows (for the independence tests), and says what it did."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .files import MAX_BYTES, file_name, listed, read_table
from .samples import LoadReport, Samples, column_notes, numeric_values, summarised


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
    x, y = _columns(x, "x"), _columns(y, "y")
    shared = [c for c in x if c in y]
    if shared:
        raise ValueError(f"x and y share the column(s) {listed(shared)}: a variable is not "
                         "tested against itself")
    values, used, _ = numeric_values(frame, x + y)
    finite = np.all(np.isfinite(values), axis=1)
    kept = values[finite]
    dropped = int(np.count_nonzero(~finite))
    if kept.shape[0] < 4:
        raise ValueError(f"{kept.shape[0]} row(s) have finite values in every chosen column "
                         f"(dropped {dropped}); an independence test needs at least 4")
    notes = column_notes(frame, used, (), kept, standardize)
    if standardize:
        std = kept.std(axis=0)
        std[std == 0.0] = 1.0
        kept = (kept - kept.mean(axis=0)) / std
    X, Y = kept[:, : len(x)], kept[:, len(x):]
    labels = (f"X ({summarised(x)})", f"Y ({summarised(y)})")
    report = LoadReport(tuple(map(str, sources)), tuple(used), labels,
                        (len(X), len(Y)), (), (dropped, dropped), bool(standardize), notes)
    return Samples(X, Y, report)


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

    (Implements no paper equation.)

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
