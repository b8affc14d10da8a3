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
                    f"first line\\) has 100001 columns, over the limit of {MAX_COLUMNS}")
    quickly_refused(",".join(f"c{i}" for i in range(700_000)).encode(), "line.csv",
                    "700000 columns")  # one gigantic header line, no rows


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
