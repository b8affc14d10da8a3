"""Uploads bounded before they are parsed (issue 45, findings 1–3 and 11): a CSV's width
from its first line, a ``.npy`` header's shape against the file's size, a ``.npz``
archive's decompressed size from its directory; each refusal is one ValueError, quickly,
with no array built."""

import io
import time

import numpy as np
import pytest

from kmeviz.loading import read_table
from kmeviz.loading.files import MAX_COLUMNS


def quickly_refused(data: bytes, name: str, match: str) -> None:
    start = time.perf_counter()
    with pytest.raises(ValueError, match=match):
        read_table(data, name=name, max_bytes=50 * 1024**2)
    assert time.perf_counter() - start < 1.0


def test_a_csv_wider_than_the_limit_is_refused_from_its_first_line():
    header = ",".join(f"c{i}" for i in range(100_000)).encode()
    quickly_refused(b"g," + header + b"\n" + b"x," + b"1," * 99_999 + b"1\n", "wide.csv",
                    f"100001 columns in its first line, over the limit of {MAX_COLUMNS}")
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
