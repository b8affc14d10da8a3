"""Rows in time order: a table sorted by its time column, for the time-series tests.

A file's rows are kept in the order they were read; ``in_time_order`` sorts them by a
column of numbers or dates (ISO strings, or anything ``pandas.to_datetime`` reads without
guessing) and drops that column from the data. A time column with a missing value, a
repeated time, or values that are neither numbers nor dates is refused with one message.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd


def _times(column: pd.Series, name: str) -> np.ndarray:
    if pd.api.types.is_bool_dtype(column):
        raise ValueError(f"time column {name!r} holds true/false values, not times")
    if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_datetime64_any_dtype(column):
        values = column
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pandas' "could not infer format" chatter
            values = pd.to_datetime(column, errors="coerce")
        unread = column[values.isna() & column.notna()]
        if len(unread):
            raise ValueError(f"time column {name!r}: {str(unread.iloc[0])[:40]!r} (row "
                             f"{int(unread.index[0])}) is neither a number nor a date")
    if values.isna().any():
        row = int(np.flatnonzero(values.isna().to_numpy())[0])
        raise ValueError(f"time column {name!r} has a missing value (row {row}): every row "
                         "of a time series needs its time")
    return values.to_numpy()


def in_time_order(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """``frame``'s rows sorted by the time column ``column`` (stable), without it.

    Parameters
    ----------
    frame : pandas.DataFrame
    column : str
        A column of numbers or dates.

    Returns
    -------
    pandas.DataFrame
        The other columns, in time order, with a fresh index.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"t": ["2024-03", "2024-01", "2024-02"], "x": [3, 1, 2]})
    >>> in_time_order(frame, "t")["x"].tolist()
    [1, 2, 3]
    """
    if not isinstance(column, str):
        raise TypeError(f"time must be a column name, got {type(column).__name__}")
    if column not in frame.columns:
        shown = ", ".join(map(repr, list(frame.columns)[:10]))
        raise ValueError(f"time column {column!r} is not in the table (columns: {shown}"
                         f"{', …' if frame.shape[1] > 10 else ''})")
    times = _times(frame[column], column)
    order = np.argsort(times, kind="stable")
    ordered = times[order]
    repeated = np.flatnonzero(ordered[1:] == ordered[:-1])
    if repeated.size:
        raise ValueError(f"time column {column!r} repeats the time {ordered[repeated[0]]!s} "
                         f"({repeated.size} repeated time(s)): a time series has one row "
                         "per time (several series in one table? split them first)")
    return frame.drop(columns=[column]).iloc[order].reset_index(drop=True)
