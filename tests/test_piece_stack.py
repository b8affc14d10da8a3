"""A CSV read piece by piece equals the same CSV read at once, and is not held twice."""

import io
import tracemalloc

import numpy as np
import pandas as pd
import pytest

from kmeviz.loading import files
from kmeviz.loading.files import read_table
from kmeviz.loading.pieces import MAX_OTHER_COLUMNS, PieceStack


def _csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode()


def _tables():
    rng = np.random.default_rng(1)
    wide = pd.DataFrame(rng.integers(0, 10, (300, 40)), columns=[f"c{j}" for j in range(40)])
    yield "integers and a group", _csv(wide.assign(group=rng.choice(["a", "b"], 300)))
    late_nan = wide.astype(float)
    late_nan.iloc[250, 3] = np.nan  # an integer column of the first pieces turns float
    yield "a NaN in a late piece", _csv(late_nan.astype(object).where(late_nan.notna(), "")
                                        .pipe(lambda f: f.map(
                                            lambda v: v if v == "" else int(v))))
    mixed = pd.DataFrame({"g": rng.choice(["x", "y"], 300), "a": rng.normal(size=300),
                          "b": rng.integers(0, 5, 300), "c": rng.normal(size=300)})
    yield "floats, integers and text", _csv(mixed)
    text = pd.DataFrame({f"t{j}": rng.choice(["u", "v"], 300)
                         for j in range(MAX_OTHER_COLUMNS + 2)}).assign(x=rng.normal(size=300))
    yield "mostly text", _csv(text)
    body = _csv(mixed).split(b"\n")
    yield "blank lines and a quoted line break", b"\n".join(
        [b"", body[0]] + [line + (b"\n" if i % 7 == 0 else b"") for i, line in
                          enumerate(body[1:])]).replace(b"\nx,", b'\n"x\ny",', 1)
    yield "no numeric column", _csv(pd.DataFrame({"s": rng.choice(["p", "q"], 300)}))


@pytest.mark.parametrize("name, data", list(_tables()), ids=[n for n, _ in _tables()])
def test_a_table_read_in_pieces_equals_the_table_read_at_once(monkeypatch, name, data):
    monkeypatch.setattr(files, "TEXT_PIECE_BYTES", 512)  # pieces of a few rows
    expected = pd.read_csv(io.BytesIO(data))
    pd.testing.assert_frame_equal(read_table(data, name="t.csv"), expected)


def test_a_piece_past_the_rows_allowed_falls_back_to_concatenation():
    pieces = [pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}),
              pd.DataFrame({"a": [3, 4], "b": ["z", "w"]})]
    stack = PieceStack(rows_at_most=3)
    for piece in pieces:
        stack.add(piece)
    pd.testing.assert_frame_equal(stack.frame(), pd.concat(pieces, ignore_index=True))


def test_a_wide_table_in_pieces_is_not_held_twice(monkeypatch):
    """pandas.concat of the pieces held them and the result at once (2x the frame); the
    stack holds the frame and one piece."""
    monkeypatch.setattr(files, "TEXT_PIECE_BYTES", 1 << 18)
    rng = np.random.default_rng(0)
    data = _csv(pd.DataFrame(rng.integers(0, 10, (2000, 500))).add_prefix("c"))
    tracemalloc.start()
    try:
        frame = read_table(data, name="wide.csv")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    size = frame.memory_usage(index=False).sum()
    assert frame.shape == (2000, 500)
    # the frame, one piece (1/8 of it) and its copy, the bytes' UTF-8 check: < 1.5x
    assert peak < 1.5 * size, peak / size
