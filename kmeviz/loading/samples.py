"""Two samples from a table: ``load_samples`` and its parts (see ``kmeviz.loading``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from .files import MAX_BYTES, NPZ_GROUP, file_name, listed, numeric_columns, read_table
from .timeorder import in_time_order


@dataclass(frozen=True)
class LoadReport:
    """What ``load_samples`` did.

    Parameters
    ----------
    sources : tuple of str
        The file (or upload) names read.
    columns : tuple of str
        The numeric columns used, in order (the dimension d).
    groups : tuple of str
        The labels of X and Y: two values of the group column, or the file names.
    sizes : tuple of int
        (m, n), rows of X and Y after dropping.
    dropped_columns : tuple of str
        Non-numeric columns left out.
    dropped_rows : tuple of int
        Rows of X and Y dropped for a NaN or infinite value.
    standardized : bool
    notes : tuple of str
        What a reader should know about the columns (``column_notes``): constant columns,
        columns left out for a few non-numeric cells (with those cells), and column
        scales that differ by more than ``SCALE_RATIO`` when not standardized.
    categorical : tuple of str
        The columns read as categorical (``kmeviz.kernels.categorical.is_categorical``;
        text columns as codes 0, 1, ...): the routes read them with the delta kernel.
    """

    sources: tuple
    columns: tuple
    groups: tuple
    sizes: tuple
    dropped_columns: tuple = ()
    dropped_rows: tuple = (0, 0)
    standardized: bool = False
    notes: tuple = ()
    categorical: tuple = ()

    def __str__(self) -> str:
        samples = ("; ".join(f"{v} = {g!s}: {k} rows" for v, g, k in
                             zip("XYZ", self.groups, self.sizes, strict=False))
                   if self.groups[1] else f"X: {self.sizes[0]} rows")
        lines = [f"read {', '.join(self.sources)}",
                 f"{samples}; {len(self.columns)} columns: {summarised(self.columns)}"]
        if self.dropped_columns:
            lines.append(f"dropped non-numeric columns: {summarised(self.dropped_columns)}")
        if any(self.dropped_rows):
            lines.append("dropped rows with NaN or inf: " + ", ".join(
                f"{k} of {v}" for v, k in zip("XYZ", self.dropped_rows, strict=False)))
        if self.standardized:
            lines.append("standardized by the pooled mean and standard deviation")
        lines += [f"note: {note}" for note in self.notes]
        return "\n".join(lines)


#: column names a report lists before it summarises the rest
LISTED_COLUMNS = 20
#: column standard deviations differing by more than this factor get a note (unstandardized)
SCALE_RATIO = 100.0


def summarised(names) -> str:
    """The first ``LISTED_COLUMNS`` names, then how many more."""
    names = [str(n) for n in names]
    more = len(names) - LISTED_COLUMNS
    return ", ".join(names[:LISTED_COLUMNS]) + (f" … and {more} more" if more > 0 else "")


class Samples(NamedTuple):
    """``(X, Y, report)``, as ``load_samples`` returns them."""

    X: np.ndarray
    Y: np.ndarray
    report: LoadReport


def load_samples(path, path2=None, *, group: str | None = None, groups=None, columns=None,
                 standardize: bool = True, max_bytes: int = MAX_BYTES) -> Samples:
    """Read two samples from one file with a group column, or from two files.

    Parameters
    ----------
    path : str or path-like
    path2 : str or path-like, optional
        A second file with the same numeric columns: then X is ``path``, Y ``path2``.
    group : str, optional
        With one file: the column whose values split the rows (not needed for a ``.npz``
        of two arrays).
    groups : pair of str, optional
        The two values of ``group`` to compare (needed when it has more than two; values
        are compared as text, so ``groups=("1", "2")`` matches integers).
    columns : list of str, optional
        The numeric columns to use (default: all numeric columns but ``group``).
    standardize : bool
        Centre and scale each column by the pooled mean and standard deviation (default,
        as in ``kmeviz compare`` and the dashboard: one Gaussian bandwidth on columns of
        different units would see only the widest; the pooled statistics do not change
        under relabelling, so permutation tests stay exact).
    max_bytes : int
        The largest file read (default ``MAX_BYTES``, 512 MB).

    Returns
    -------
    Samples
        ``(X, Y, report)``: float64 arrays (m, d) and (n, d), and a ``LoadReport``.

    Examples
    --------
    >>> import io, numpy as np
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = path.write_text("g,a,b\\nx,1,2\\nx,2,1\\ny,5,5\\ny,6,5\\nx,1,nan\\n")
    >>> X, Y, report = load_samples(path, group="g")
    >>> X.shape, Y.shape, report.dropped_rows
    ((2, 2), (2, 2), (1, 0))
    """
    frame = read_table(path, max_bytes=max_bytes)
    if path2 is None:
        return samples_from_frame(frame, group=group, groups=groups, columns=columns,
                                  standardize=standardize, sources=(file_name(path),))
    if group is not None or groups is not None:
        raise ValueError("group and groups split one file; with two files, each file is "
                         "one sample")
    frame2 = read_table(path2, max_bytes=max_bytes)
    both = pair_frame(frame, frame2, (file_name(path), file_name(path2)), columns=columns)
    return samples_from_frame(both, group=PAIR_GROUP, columns=columns,
                              standardize=standardize, sources=(file_name(path), file_name(path2)))


#: The group column of ``pair_frame``: which file a row came from.
PAIR_GROUP = "(file)"


def pair_frame(frame: pd.DataFrame, frame2: pd.DataFrame, names: tuple,
               columns=None) -> pd.DataFrame:
    """Two tables, one per sample, stacked with their names in the column ``PAIR_GROUP``;
    ValueError when their numeric columns differ (unless ``columns`` picks some).

    Parameters
    ----------
    frame, frame2 : pandas.DataFrame
    names : pair of str
        The two files' names (the groups' labels).
    columns : list of str, optional

    Returns
    -------
    pandas.DataFrame
    """
    numeric = [numeric_columns(f) for f in (frame, frame2)]
    if columns is None and numeric[0] != numeric[1]:
        only = [sorted(set(a) - set(b), key=str) for a, b in (numeric, numeric[::-1])]
        raise ValueError(f"the two files' numeric columns differ: only in {names[0]}: "
                         f"{listed(only[0])}; only in {names[1]}: {listed(only[1])}")
    labels = names if names[0] != names[1] else ("first file", "second file")
    return pd.concat([frame.assign(**{PAIR_GROUP: labels[0]}),
                      frame2.assign(**{PAIR_GROUP: labels[1]})], ignore_index=True)


def samples_from_frame(frame: pd.DataFrame, *, group: str | None = None, groups=None,
                       columns=None, standardize: bool = True,
                       sources: tuple = ("the table",)) -> Samples:
    """Split a table into two samples (the second half of ``load_samples``).

    Parameters
    ----------
    frame : pandas.DataFrame
    group, groups, columns, standardize : as ``load_samples``
    sources : tuple of str
        Names for the report.

    Returns
    -------
    Samples
    """
    if (group is None and NPZ_GROUP in frame.columns
            and not pd.api.types.is_numeric_dtype(frame[NPZ_GROUP])):
        group = NPZ_GROUP
    if group is None:
        raise ValueError("one file holds both samples only with a group column: give group="
                         "(--group: a column whose values split the rows), or a second file")
    if group not in frame.columns:
        raise ValueError(f"no column {group!r}; the columns are {listed(frame.columns)}")
    labels = frame[group].astype(str).where(frame[group].notna())
    present = list(dict.fromkeys(labels.dropna()))
    if groups is None:
        if len(present) != 2:
            raise ValueError(f"group {group!r} has {len(present)} values "
                             f"({listed(present)}); choose two with groups=(A, B)")
        chosen = tuple(present)
    else:
        chosen = tuple(str(g) for g in groups)
        if len(chosen) != 2 or chosen[0] == chosen[1]:
            raise ValueError(f"groups must be two different values of {group!r}, got "
                             f"{groups!r}")
        missing = [g for g in chosen if g not in present]
        if missing:
            raise ValueError(f"group {group!r} has no value {listed(missing)}; its values "
                             f"are {listed(present)}")
    values, used, dropped = numeric_values(frame.drop(columns=[group]), columns)
    finite = np.all(np.isfinite(values), axis=1)
    samples, dropped_rows = [], []
    for value in chosen:
        rows = (labels == value).to_numpy()
        kept = values[rows & finite]
        dropped_rows.append(int(np.count_nonzero(rows & ~finite)))
        if kept.shape[0] < 2:
            after = f" after dropping {dropped_rows[-1]} with NaN or inf" if dropped_rows[-1] \
                else ""
            raise ValueError(f"group {value!r} has {kept.shape[0]} row(s){after}; a test "
                             "needs at least 2 per sample")
        samples.append(kept)
    notes = column_notes(frame.drop(columns=[group]), used, dropped, np.vstack(samples),
                         standardize)
    X, Y = standardized(*samples) if standardize else samples
    report = LoadReport(tuple(map(str, sources)), tuple(used), chosen, (len(X), len(Y)),
                        dropped, tuple(dropped_rows), bool(standardize), notes)
    return Samples(X, Y, report)


def load_sample(path, *, columns=None, standardize: bool = True,
                max_bytes: int = MAX_BYTES, time: str | None = None
                ) -> tuple[np.ndarray, LoadReport]:
    """One sample (every row of one file), for a goodness-of-fit test: the numeric
    columns, rows with NaN or inf dropped, as ``load_samples`` does.

    Parameters
    ----------
    path : str or path-like
    columns, standardize, max_bytes : as ``load_samples``
    time : str, optional
        A column of times (numbers or dates): the rows are sorted by it and it is not
        data (``kmeviz.loading.timeorder.in_time_order``). By default the file's order.

    Returns
    -------
    X : array (n, d)
    report : LoadReport
        With ``groups = ("all rows", "")`` and ``sizes = (n, 0)``.
    """
    table = read_table(path, max_bytes=max_bytes)
    if time is not None:
        table = in_time_order(table, time)
    values, used, dropped = numeric_values(table, columns)
    finite = np.all(np.isfinite(values), axis=1)
    X = values[finite]
    notes = column_notes(table, used, dropped, X, standardize)
    if X.shape[0] < 2:
        raise ValueError(f"{file_name(path)} has {X.shape[0]} complete row(s); a test needs at "
                         "least 2")
    if standardize:
        (X,) = standardized(X)
    report = LoadReport((file_name(path),), tuple(used), ("all rows", ""), (len(X), 0), dropped,
                        (int(np.count_nonzero(~finite)), 0), bool(standardize), notes)
    return X, report


def numeric_values(data: pd.DataFrame, columns=None) -> tuple[np.ndarray, list, tuple]:
    """(values as float64, the columns used, the non-numeric columns dropped) of a table:
    ``columns`` if given (each must exist and be numeric), else every numeric column."""
    numeric = numeric_columns(data)
    is_numeric = set(numeric)  # linear in the columns: a table may have 10 000
    if columns is None:
        used = numeric
        dropped = tuple(c for c in data.columns if c not in is_numeric)
    else:
        used, dropped = list(columns), ()
        unknown = [c for c in used if c not in data.columns]
        if unknown:
            raise ValueError(f"no column {listed(unknown)}; the columns are "
                             f"{listed(data.columns)}")
        text = [c for c in used if c not in is_numeric]
        if text:
            raise ValueError(f"columns {listed(text)} are not numeric")
    if not used:
        raise ValueError(f"no numeric columns to compare (the columns are "
                         f"{listed(data.columns)})")
    return data[used].to_numpy(dtype=np.float64), used, dropped


def column_notes(data: pd.DataFrame, used, dropped, values: np.ndarray,
                 standardize: bool) -> tuple:
    """Notes for the report: constant columns (they carry no information; standardizing
    only centres them), non-numeric columns whose cells are numbers but for a few (named
    with those cells, so a typo such as "<0.5" or "5,64" is found), and, unstandardized,
    column standard deviations that differ by more than ``SCALE_RATIO``."""
    notes = []
    with np.errstate(invalid="ignore"):
        spread = np.nanstd(np.where(np.isfinite(values), values, np.nan), axis=0)
    constant = [str(c) for c, sd in zip(used, spread, strict=True) if not sd > 0]
    if constant:
        notes.append(f"{len(constant)} constant column(s), no information for a test: "
                     f"{summarised(constant)}")
    for column in dropped:
        cells = partly_numeric_cells(data[column])
        if cells:
            shown = "; ".join(f"row {row}: {value!r}" for row, value in cells[:5])
            notes.append(f"column {str(column)!r} was left out for {len(cells)} cell(s) "
                         f"that are not numbers ({shown}{' …' if len(cells) > 5 else ''}); "
                         "fix them to use it")
    varying = spread[spread > 0]
    if not standardize and varying.size > 1 and varying.max() > SCALE_RATIO * varying.min():
        notes.append(f"column standard deviations range from {varying.min():.3g} to "
                     f"{varying.max():.3g}: unstandardized, one Gaussian bandwidth sees "
                     "mostly the widest columns (standardize to weigh them alike)")
    return tuple(notes)


def partly_numeric_cells(column: pd.Series) -> list:
    """[(row number from 1, text)] of the cells that are not numbers in a text column
    whose other cells (at least 90 % of the filled ones) are; [] for a real text column."""
    if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        return []
    filled = column.dropna()
    if filled.empty:
        return []
    parsed = pd.to_numeric(filled.astype(str).str.strip(), errors="coerce")
    bad = parsed.isna()
    if bad.all() or bad.sum() > 0.1 * len(filled):
        return []
    return [(int(i) + 1, str(v)) for i, v in filled[bad].items()]


def standardized(*samples: np.ndarray) -> tuple:
    """The samples centred and scaled by their pooled column means and standard deviations
    (a constant column is only centred)."""
    pooled = np.vstack(samples)
    mean, std = pooled.mean(axis=0), pooled.std(axis=0)
    std[std == 0.0] = 1.0
    return tuple((S - mean) / std for S in samples)


