"""The upload box's server side holds what it promises whatever the page's model says
(issue 45, findings 4 and 11): at most two files per session, finished or arriving, at
most ``max_bytes`` each; the rest of a refused file's chunks are ignored. Driven by the
events a hand-made client can send (a page that nulls ``max_files`` sends exactly these)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from kmeviz_apps._own_data import BoundedFileDropper

LIMIT = 4096  # bytes per file


def chunk(name: str, index: int, total: int, data: bytes) -> SimpleNamespace:
    return SimpleNamespace(event_name="upload_event", data={
        "name": name, "chunk": index, "total_chunks": total, "data": data,
        "type": "application/octet-stream"})


def send(dropper, name: str, size: int, pieces: int = 1) -> None:
    part = size // pieces
    for index in range(1, pieces + 1):
        dropper._process_event(chunk(name, index, pieces, b"x" * part))


def held_bytes(dropper) -> int:
    return (sum(len(v) for v in dropper.value.values())
            + sum(len(c) for chunks in dropper._file_buffer.values() for c in chunks))


def test_many_files_one_after_another_keep_the_newest_two():
    dropper = BoundedFileDropper(max_bytes=LIMIT, multiple=True, max_files=None)
    seen = []
    dropper.param.watch(lambda event: seen.append(sorted(event.new)), "value")
    for k in range(20):
        send(dropper, f"f{k}.csv", LIMIT, pieces=4)
        assert len(dropper.value) <= 2 and held_bytes(dropper) <= 2 * LIMIT
    assert list(dropper.value) == ["f18.csv", "f19.csv"]
    assert seen[-1] == ["f18.csv", "f19.csv"] and all(len(v) <= 2 for v in seen)


def test_a_third_file_arriving_at_once_is_refused_and_its_chunks_ignored():
    dropper = BoundedFileDropper(max_bytes=LIMIT, multiple=True)
    for name in ("a.csv", "b.csv", "c.csv"):
        dropper._process_event(chunk(name, 1, 2, b"x" * 100))
    assert "c.csv arrived while 2 files were still arriving" in dropper.refused
    dropper._process_event(chunk("c.csv", 2, 2, b"x" * 100))  # ignored, no KeyError
    for name in ("a.csv", "b.csv"):
        dropper._process_event(chunk(name, 2, 2, b"x" * 100))
    assert sorted(dropper.value) == ["a.csv", "b.csv"]


def test_a_file_over_the_limit_names_the_option_and_its_later_chunks_are_ignored():
    """Panel's handler raised KeyError for each chunk after a refusal."""
    dropper = BoundedFileDropper(max_bytes=LIMIT, multiple=True)
    dropper._process_event(chunk("big.csv", 1, 3, b"x" * 3000))
    dropper._process_event(chunk("big.csv", 2, 3, b"x" * 3000))
    assert dropper.refused == ("big.csv is over the limit of 0.00390625 MB per file "
                               "(kmeviz serve --max-upload-mb sets it)")
    dropper._process_event(chunk("big.csv", 3, 3, b"x" * 3000))  # ignored, no KeyError
    assert dropper.value == {} and dropper._file_buffer == {}
    send(dropper, "big.csv", 1000)  # the same name again, small enough: taken
    assert list(dropper.value) == ["big.csv"]


@pytest.mark.parametrize("index", [2, 5])
def test_a_chunk_of_a_file_that_never_started_is_ignored(index):
    dropper = BoundedFileDropper(max_bytes=LIMIT, multiple=True)
    dropper._process_event(chunk("ghost.csv", index, 5, b"x"))
    assert dropper.value == {} and dropper._file_buffer == {}


def big_csv(rows: int = 400_000) -> bytes:
    """About 30 MB of CSV: a group column and 8 numeric columns."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(rows, 8)).round(6), columns=list("abcdefgh"))
    return frame.assign(group=rng.choice(["x", "y"], rows)).to_csv(index=False).encode()


def test_reading_an_upload_holds_the_sessions_budget_and_stops_on_close():
    """The upload was parsed in the callback, outside the budget and the cancel signal
    (a wide CSV held every server thread for minutes past its tab's close)."""
    import time

    from kmeviz_apps.data_explorer import DataExplorer

    data = big_csv()
    explorer = DataExplorer()
    explorer.budget_seconds = 0.05
    start = time.monotonic()
    explorer._box.receive(SimpleNamespace(new={"big.csv": data}))
    overrun = time.monotonic() - start - explorer.budget_seconds
    assert "time budget of 0.05 s" in explorer._box.message.object
    assert "--time-budget" in explorer._box.message.object and explorer._upload is None
    assert overrun < 2.0, overrun

    closed = DataExplorer()
    closed.closed.set()
    closed._box.receive(SimpleNamespace(new={"big.csv": data}))
    assert closed._upload is None and "time budget" not in closed._box.message.object

    explorer.budget_seconds = 60.0  # the same file within a budget it fits: loaded
    explorer._box.receive(SimpleNamespace(new={"big.csv": data}))
    assert explorer._upload is not None and explorer._upload[1].shape == (400_000, 9)


@pytest.mark.parametrize("data", [
    {"test": ["a", "b"], "p_value": [0.1, 0.2]},  # a stale copy of another length
    {"p_value": [None, "nan", {}]},  # values Panel cannot convert
])
def test_the_comparison_table_ignores_rows_a_page_sends_back(data):
    """Panel's merge of a page's rows raised "Must have equal len keys ..." and a
    TypeError in the server log of /data (issue 45, finding 11); the table's rows are the
    server's alone."""
    import pandas as pd
    from kmeviz_apps._comparison import ComparisonTable

    table = ComparisonTable(lambda name: None)
    rows = pd.DataFrame({"test": ["a", "b", "c"], "p_value": [0.1, 0.2, 0.3]})
    table.table.value = rows
    table.table._process_data(data)  # what Panel calls with a page's data
    assert table.table.value.equals(rows)


def test_an_upload_past_the_servers_row_limit_is_refused_naming_the_option():
    """The box reads with the server's limits (``kmeviz serve --max-rows``...), checked
    as the file is parsed (exactly); its message names the option that raises the limit."""
    from kmeviz_apps import _settings
    from kmeviz_apps.data_explorer import DataExplorer

    with _settings.using(_settings.ServerSettings(
            upload_limits=_settings.upload_limits(max_rows=1000))):
        explorer = DataExplorer()
        explorer._box.receive(SimpleNamespace(new={"tall.csv": b"g,x\n" + b"a,1\n" * 1500}))
        shown = explorer._box.message.object
        assert "has 1500 rows, over the limit of 1000" in shown
        assert "kmeviz serve --max-rows raises it" in shown and explorer._upload is None
        assert "1,000 rows" in DataExplorer()._box.message.object  # the note says the limit
    assert "1,000 rows" not in DataExplorer()._box.message.object  # the block's own only


def test_two_files_that_together_pass_the_row_limit_are_refused():
    """Issue 61, finding 4: two files within the limits each became one table of 1.8 M
    rows against a 1 M row limit. The table that is tested is what the limits bound."""
    from kmeviz_apps import _settings
    from kmeviz_apps.data_explorer import DataExplorer

    with _settings.using(_settings.ServerSettings(
            upload_limits=_settings.upload_limits(max_rows=1000))):
        explorer = DataExplorer()
        half = b"x,y\n" + b"1,2\n" * 600
        explorer._box.receive(SimpleNamespace(new={"a.csv": half, "b.csv": half}))
        shown = explorer._box.message.object
        assert "the two files together has 1200 rows, over the limit of 1000" in shown, shown
        assert explorer._upload is None
        explorer._box.receive(SimpleNamespace(new={"a.csv": half,
                                                   "b.csv": b"x,y\n" + b"1,2\n" * 300}))
        assert explorer._upload is not None and explorer._upload[1].shape == (900, 3)
