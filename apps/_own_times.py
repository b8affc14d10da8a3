"""The "Your data" explorer's time column: which columns of a table it offers (no widgets
here; ``_own_data.offered_choices`` calls it)."""

from __future__ import annotations

import itertools
import re

import pandas as pd

#: a name that reads like a time (the time column's offers: a date column, or numbers)
TIME_NAME = re.compile(r"(?:^|[^a-z])(?:time|date|datetime|timestamp|when|year|month|week|"
                       r"hour|minute|second|period|step|iteration|iter|t)(?:[^a-z]|$)",
                       re.IGNORECASE)
#: text columns whose first values are read as ISO dates to offer them as the time column
DATE_PROBES, DATE_PROBE_COLUMNS = 5, 100


def reads_as_dates(column: pd.Series) -> bool:
    """Whether the first ``DATE_PROBES`` values of a text column are ISO 8601 dates."""
    head = column.head(DATE_PROBES)
    try:
        parsed = pd.to_datetime(head.astype(str), errors="coerce", format="ISO8601")
    except (ValueError, TypeError):
        return False
    return len(head) > 0 and bool(parsed.notna().all())


def time_candidates(frame: pd.DataFrame, group=None, *, limit: int) -> list:
    """The columns offered as the time column: datetime columns, those whose name reads
    like a time (``TIME_NAME``), and text columns of ISO dates (the first
    ``DATE_PROBE_COLUMNS`` text columns probed); at most ``limit``, linear in the
    columns."""
    probes = itertools.count()

    def is_time(k, name, dtype):
        if name == group:
            return False
        if dtype.kind == "M" or TIME_NAME.search(name):
            return True
        return (dtype.kind not in "biufc" and next(probes) < DATE_PROBE_COLUMNS
                and reads_as_dates(frame.iloc[:, k]))

    found = (str(c) for k, (c, dtype) in enumerate(zip(frame.columns, frame.dtypes,
                                                       strict=True))
             if is_time(k, str(c), dtype))
    return list(itertools.islice(found, limit))
