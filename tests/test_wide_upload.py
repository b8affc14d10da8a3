"""A wide upload on the "Your data" page (issue 61, finding 2): a table of 9 999 columns
held the server's event loop 17 s, growing with the square of the columns (widgets that
listed and chose every column). Its lists now hold at most ``MAX_LISTED`` columns, found
by name; no choice means every numeric column; the work on the loop is linear."""

from __future__ import annotations

import time
from types import SimpleNamespace

import numpy as np
from kmeviz_apps._own_data import MAX_LISTED


def wide_csv(columns: int, rows: int = 6) -> bytes:
    rng = np.random.default_rng(0)
    header = "grp," + ",".join(f"c{j}" for j in range(columns - 1))
    body = "\n".join("ab"[i % 2] + "," + ",".join(f"{v:.3f}" for v in rng.normal(size=columns - 1))
                     for i in range(rows))
    return (header + "\n" + body + "\n").encode()


def uploaded(columns: int):
    from kmeviz_apps.data_explorer import DataExplorer

    explorer = DataExplorer()
    explorer._comparison.start = lambda *args: None  # the lists only
    explorer._box.receive(SimpleNamespace(new={"wide.csv": wide_csv(columns)}))
    return explorer


def shown_after_upload(columns: int) -> float:
    """Seconds the page's side of an upload takes (what runs on a served page's event
    loop: the options and values of every list), the file already read."""
    from kmeviz_apps.data_explorer import DataExplorer

    explorer = DataExplorer()
    explorer._comparison.start = lambda *args: None
    outcome = explorer._box._outcome({"wide.csv": wide_csv(columns)})
    start = time.perf_counter()
    explorer._box._show_outcome(outcome, None)
    return time.perf_counter() - start


def test_a_wide_table_lists_at_most_max_listed_columns_found_by_name():
    explorer = uploaded(3000)
    assert explorer.group == "grp" and len(explorer._numeric) == 2999
    for name in ("columns", "columns_y", "group"):
        assert len(explorer.param[name].objects) <= MAX_LISTED + 1
    assert len(explorer.param.x_axis.objects) <= MAX_LISTED + 2  # with the two PCs
    assert explorer.columns == [] and explorer._find.visible
    X, Y, report, _ = explorer.prepared()
    assert X.shape == (3, 2999) and len(report.columns) == 2999  # none chosen: every one
    explorer.find_columns = "c271"
    listed = list(explorer.param.columns.objects.values())
    beside = {*explorer.columns_y, *explorer.columns_z}  # Y's and Z's stay listed
    assert "c2710" in listed and all("c271" in c for c in listed if c not in beside)
    explorer.columns = ["c2710", "c2711"]
    assert explorer.prepared()[0].shape == (3, 2)
    explorer.x_axis = "c2711"  # a listed column as an axis of the plane
    from kmeviz_apps._own_views import plane

    assert plane(explorer)[4][1, 0] == 1.0


def test_a_narrow_table_still_lists_and_chooses_every_column():
    explorer = uploaded(20)
    assert explorer.columns == [f"c{j}" for j in range(19)]
    assert not explorer._find.visible


def test_the_work_on_the_page_grows_linearly_with_the_columns():
    """Ten times the columns costs at most about ten times the time (quadratic code took
    about a hundred times: 0.17 s at 1000, 17 s at 10 000 served). The bound of 25 leaves
    room for a noisy machine; the best of three runs is compared."""
    small = min(shown_after_upload(1000) for _ in range(3))
    large = min(shown_after_upload(9999) for _ in range(3))
    assert large < 25 * max(small, 0.01), (small, large)


def test_group_candidates_counted_in_blocks_are_the_one_block_counts(monkeypatch):
    """The numeric columns' distinct values are counted in blocks of about 8 MB (a
    1000 × 10 000 table made two 80 MB copies at once): the same candidates."""
    import pandas as pd
    from kmeviz_apps import _own_data

    rng = np.random.default_rng(2)
    frame = pd.DataFrame(rng.integers(0, 4, size=(200, 40)).astype(float),
                         columns=[f"c{j}" for j in range(40)])
    frame["g"], frame["z"] = rng.choice(["a", "b"], 200), rng.normal(size=200)
    frame.iloc[3, 5] = np.nan
    whole = _own_data.group_candidates(frame)
    monkeypatch.setattr(_own_data, "COUNT_BLOCK_CELLS", 200 * 3)  # blocks of 3 columns
    assert _own_data.group_candidates(frame) == whole and "z" not in whole and "g" in whole
