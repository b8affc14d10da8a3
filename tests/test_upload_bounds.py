"""Uploads bounded before they are parsed (issue 45, findings 1–3 and 11): a CSV's width
from its first line, a ``.npy`` header's shape against the file's size, a ``.npz``
archive's decompressed size from its directory; each refusal is one ValueError, quickly,
with no array built."""

import io
import time

import numpy as np
import pytest

from kmeviz.loading import read_table
from kmeviz.loading.files import MAX_COLUMNS, TableLimits


def quickly_refused(data: bytes, name: str, match: str, limits=None) -> None:
    start = time.perf_counter()
    with pytest.raises(ValueError, match=match):
        read_table(data, name=name, max_bytes=50 * 1024**2, limits=limits)
    assert time.perf_counter() - start < 1.0


def test_a_csv_wider_than_the_limit_is_refused_from_its_first_line():
    header = ",".join(f"c{i}" for i in range(100_000)).encode()
    quickly_refused(b"g," + header + b"\n" + b"x," + b"1," * 99_999 + b"1\n", "wide.csv",
                    f"header\\) has at least {MAX_COLUMNS + 1} columns, over the limit of "
                    f"{MAX_COLUMNS}")
    quickly_refused(",".join(f"c{i}" for i in range(700_000)).encode(), "line.csv",
                    "at least 10001 columns")  # one gigantic header line, no rows


def test_an_npz_bomb_is_refused_from_its_directory():
    buffer = io.BytesIO()
    np.savez_compressed(buffer, a=np.zeros((25_000_000, 1)), b=np.zeros((25_000_000, 1)))
    data = buffer.getvalue()
    assert len(data) < 1024**2  # 400 MB of zeros in well under 1 MB
    quickly_refused(data, "bomb.npz", "decompressed, over 4× its size")


def test_an_npy_header_that_claims_more_than_the_file_is_refused():
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (10**9, 1000)})
    quickly_refused(buffer.getvalue() + b"\0" * 64, "forged.npy", "its header claims")
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (2, 20_000)})
    quickly_refused(buffer.getvalue(), "wide.npy", "20000 columns")


def test_ordinary_files_still_read():
    rng = np.random.default_rng(0)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, x=rng.normal(size=(500, 3)), y=rng.normal(size=(400, 3)))
    assert read_table(buffer.getvalue(), name="ok.npz").shape == (900, 4)
    buffer = io.BytesIO()
    np.save(buffer, rng.normal(size=(50, 2)))
    assert read_table(buffer.getvalue(), name="ok.npy").shape == (50, 2)
    assert read_table(b"a,b\n1,2\n3,4\n", name="ok.csv").shape == (2, 2)


#: a server's limits, as ``kmeviz serve`` passes them (small, to keep the files small)
SERVED = TableLimits(max_rows=1000, max_columns=50, max_cells=4000,
                     raised_by={"rows": "kmeviz serve --max-rows",
                                "columns": "kmeviz serve --max-columns",
                                "cells": "kmeviz serve --max-cells"})


def npy(array) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


@pytest.mark.parametrize("what, make, name", [
    ("rows", lambda: b"a\n" + b"1\n" * 1500, "tall.csv"),
    ("rows", lambda: b"a\r" + b"1\r" * 1500, "old-mac.csv"),
    ("columns", lambda: ",".join(["1"] * 60).encode() + b"\n", "wide.csv"),
    ("cells", lambda: (",".join(["1"] * 10) + "\n").encode() * 500, "big.csv"),
    ("rows", lambda: npy(np.zeros(1500)), "tall.npy"),
    ("cells", lambda: npy(np.zeros((500, 10))), "big.npy"),
])
def test_rows_columns_and_cells_past_a_servers_limits_are_refused_naming_the_option(
        what, make, name):
    quickly_refused(make(), name, rf"over the limit of \d+ \(kmeviz serve --max-{what} "
                    "raises it\\)", SERVED)


def test_npz_arrays_are_counted_stacked_before_any_is_read():
    buffer = io.BytesIO()
    np.savez_compressed(buffer, x=np.zeros((600, 3)), y=np.zeros((600, 3)))
    quickly_refused(buffer.getvalue(), "two.npz", "arrays stacked\\) has 1200 rows", SERVED)


def test_a_table_within_the_limits_reads_and_bad_limits_are_named():
    assert read_table(b"a,b\n1,2\n3,4", name="ok.csv", limits=SERVED).shape == (2, 2)
    with pytest.raises(ValueError, match="max_rows"):
        TableLimits(max_rows=0)
    with pytest.raises(TypeError, match="limits"):
        read_table(b"a\n1\n", name="x.csv", limits={"max_rows": 5})


def test_a_parquet_files_shape_is_read_from_its_metadata():
    """With pyarrow (not a kmeviz dependency), a Parquet file's rows and columns are
    checked from its metadata before any column is read."""
    pytest.importorskip("pyarrow")
    import pandas as pd

    buffer = io.BytesIO()
    pd.DataFrame({"a": np.zeros(1500), "b": np.ones(1500)}).to_parquet(buffer)
    quickly_refused(buffer.getvalue(), "tall.parquet",
                    r"has 1500 rows, over the limit of 1000 \(kmeviz serve --max-rows", SERVED)
    quickly_refused(b"PAR1 not really", "junk.parquet", "could not be read as Parquet", SERVED)
    buffer = io.BytesIO()
    pd.DataFrame({"a": [1.0, 2.0]}).to_parquet(buffer)
    assert read_table(buffer.getvalue(), name="ok.parquet", limits=SERVED).shape == (2, 1)


# -- issue 61: the limits hold for the header and rows that pandas reads -----------------
def wide_csv(prefix: bytes = b"", first: bytes = b"c0", columns: int = 100_000) -> bytes:
    header = b"grp," + first + b"," + b",".join(b"c%d" % j for j in range(1, columns))
    row = b"a," + b"1," * (columns - 1) + b"1\n"
    return prefix + header + b"\n" + row * 5


@pytest.mark.parametrize("prefix, first", [
    (b"\n", b"c0"),  # a blank first line (pandas skips it)
    (b"\r\n \t\r\n", b"c0"),  # blank-only lines, Windows line ends
    (b"\xef\xbb\xbf\n", b"c0"),  # a byte-order mark, then a blank line
    (b"", b'"c\n0"'),  # a quoted line break inside the first column name
    (b"", b'"c\r\n0"'),
])
def test_a_wide_csv_behind_a_blank_line_or_a_quoted_line_break_is_refused(prefix, first):
    """Issue 61, finding 1: these files loaded as 6 × 100 000 (the limit counted the raw
    bytes up to the first line break, not the header pandas reads)."""
    quickly_refused(wide_csv(prefix, first), "wide.csv",
                    f"header\\) has at least {MAX_COLUMNS + 1} columns")


def random_dialect_csv(rng) -> tuple[bytes, str]:
    """A small table written in a random dialect: BOM, blank and blank-only lines before
    the header and between rows, quoted names and values holding separators, quotes and
    line breaks, quotes inside unquoted fields, '#' lines, \\n, \\r\\n or \\r line ends,
    comma or tab."""
    sep = str(rng.choice([",", "\t"]))
    end = str(rng.choice(["\n", "\r\n", "\r"]))
    columns, rows = int(rng.integers(1, 8)), int(rng.integers(1, 6))

    def field(j: int, header: bool) -> str:
        kind = int(rng.integers(0, 6))
        text = f"c{j}" if header else str(int(rng.integers(0, 100)))
        if kind == 1:
            return '"' + text + sep + 'x"'
        if kind == 2:
            return '"' + text + end + 'y"'
        if kind == 3:
            return '"' + text + '""q"'
        if kind == 4 and header:
            return text + '"z'  # a quote inside an unquoted name is a character
        return text

    lines = ["#" + sep + "comment"] if rng.random() < 0.2 else []
    lines.append(sep.join(field(j, True) for j in range(columns)))
    for _ in range(rows):
        lines.append(sep.join(field(j, False) for j in range(columns)))
        if rng.random() < 0.3:
            lines.append(str(rng.choice(["", " ", " \t" if sep == "," else "  "])))
    blank = "".join(str(rng.choice(["", " ", "\t" if sep == "," else " "])) + end
                    for _ in range(int(rng.integers(0, 3))))
    text = blank + end.join(lines) + (end if rng.random() < 0.7 else "")
    bom = b"\xef\xbb\xbf" if rng.random() < 0.3 else b""
    return bom + text.encode(), sep


def test_the_counted_shape_is_the_parsed_shape_in_every_dialect():
    """A fuzz of CSV dialects: ``header_columns`` counts exactly the columns pandas reads,
    and the row and cell limits hold at the parsed shape (a table exactly at a limit
    reads, one past it is refused), whatever the raw line count says."""
    import pandas as pd

    from kmeviz.loading.files import header_columns

    rng = np.random.default_rng(61)
    checked = 0
    for _ in range(400):
        data, sep = random_dialect_csv(rng)
        try:
            parsed = pd.read_csv(io.BytesIO(data), sep=sep)
        except (pd.errors.ParserError, pd.errors.EmptyDataError):
            continue  # a dialect pandas refuses (ragged '#' line): kmeviz refuses it too
        checked += 1
        assert header_columns(data, sep) == parsed.shape[1], data
        rows, columns = parsed.shape
        name = "t.csv" if sep == "," else "t.tsv"
        at = TableLimits(max_rows=rows, max_columns=columns, max_cells=rows * columns)
        assert read_table(data, name=name, limits=at).shape == parsed.shape
        for past in (TableLimits(max_rows=rows - 1) if rows > 1 else None,
                     TableLimits(max_columns=columns - 1) if columns > 1 else None,
                     TableLimits(max_cells=rows * columns - 1) if rows * columns > 1 else None):
            if past is not None:
                with pytest.raises(ValueError, match="over the limit of"):
                    read_table(data, name=name, limits=past)
    assert checked > 300


def test_rows_are_counted_as_parsed_not_as_lines():
    """Blank lines and quoted line breaks make more lines than rows: a table within the
    row limit reads; one past it is refused, however its lines lie."""
    data = b"a,b\n" + b'1,"x\ny\nz"\n\n\n' * 400  # 400 rows, 2000 lines
    assert read_table(data, name="q.csv", limits=TableLimits(max_rows=400)).shape == (400, 2)
    with pytest.raises(ValueError, match="401 rows|over the limit of 399"):
        read_table(data, name="q.csv", limits=TableLimits(max_rows=399))


def npz_of_arrays(count: int) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **{f"a{k}": np.zeros((1, 2)) for k in range(count)})
    return buffer.getvalue()


def test_an_npz_of_many_arrays_is_refused_from_its_directory():
    """Issue 61, finding 3: 100 000 one-row arrays were read for 85 s past the budget."""
    from kmeviz.loading.files import MAX_ARRAYS

    quickly_refused(npz_of_arrays(MAX_ARRAYS + 1), "many.npz",
                    f"holds {MAX_ARRAYS + 1} arrays, over the limit of {MAX_ARRAYS}")


def test_reading_an_npz_stops_at_its_time_budget():
    from kmeviz.budget import BudgetExceeded, time_budget

    data = npz_of_arrays(1000)
    start = time.perf_counter()
    with pytest.raises(BudgetExceeded), time_budget(0.01):
        read_table(data, name="many.npz")
    assert time.perf_counter() - start < 1.0
