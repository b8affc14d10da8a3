"""The "Your data" explorer's conditional question and dependence map, without a browser
(issue 56): on an uploaded table they give the numbers of Python and of ``kmeviz
compare --conditional`` / ``--dependence-map``, a text column is offered and used, and a
click on the map opens that pair (the browser tests: tests/ui/test_data_questions.py)."""

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import kmeviz as K
from kmeviz.distributions.causal import causal_structure
from tests.test_compare_cli import kmeviz

pytest.importorskip("panel")
from kmeviz_apps._own_conditional import whole_table_work  # noqa: E402
from kmeviz_apps.data_explorer import DataExplorer  # noqa: E402

from tests.test_data_app import Drop  # noqa: E402

SEED = 4


def fork_table(n: int = 240) -> pd.DataFrame:
    """x ← z → y (sine links), a site label that depends on z, and a noise column."""
    x, y, z = causal_structure("fork", n, link="sine", rng=7)
    rng = np.random.default_rng(8)
    site = np.where(z[:, 0] + 0.5 * rng.normal(size=n) > 0, "north", "south")
    return pd.DataFrame({"x": x[:, 0], "y": y[:, 0], "z": z[:, 0], "site": site,
                         "noise": rng.normal(size=n)})


def page_with(frame, **choices):
    explorer = DataExplorer(seed=SEED)
    explorer._box.receive(Drop({"fork.csv": frame.to_csv(index=False)}))
    explorer.param.update(**choices)
    return explorer


def page_result(explorer):
    parts = []
    (whole_table_work(explorer) if explorer.question in ("map", "graph") else
     explorer._comparison_work())(parts.append)
    return parts[-1][1]


def test_the_conditional_question_gives_the_numbers_of_the_command_line(tmp_path):
    frame = fork_table()
    path, out = tmp_path / "fork.csv", tmp_path / "out.csv"
    frame.to_csv(path, index=False)
    explorer = page_with(frame, question="conditional", columns=["x"], columns_y=["y"],
                         columns_z=["z"])
    assert explorer.failures() == {}
    summary = explorer.summary_view().object
    assert "Z = Z (z)" in summary and "each conditional test's own" in summary
    table = page_result(explorer)
    done = kmeviz(path, "--conditional", "--x", "x", "--y", "y", "--z", "z", "--rng",
                  SEED, "--out", out)
    assert done.returncode == 0, done.stderr
    cli = pd.read_csv(out)
    assert list(cli["test"]) == list(table["test"])
    np.testing.assert_allclose(cli["p_value"], table["p_value"], rtol=1e-9)
    python = K.compare_ci(*K.load_conditional(path, x="x", y="y", z="z")[:3], rng=SEED)
    np.testing.assert_allclose(python["p_value"], table["p_value"], rtol=1e-12)
    assert (table["p_value"] > 0.01).all()  # the fork: x ⫫ y | z
    effect = table.attrs["effect_size"]
    assert effect.low <= 0.0 + 1e-12 or effect.value < 0.2  # small given z
    assert K.export_table(table)["effect_conditional_normalised_hsic"].notna().all()
    # given the noise column instead of z, x and y depend
    explorer.columns_z = ["noise"]
    assert (page_result(explorer)["p_value"] < 0.01).all()


def test_a_text_column_is_offered_and_used_as_a_label():
    frame = fork_table()
    explorer = page_with(frame, question="conditional")
    assert "site" in explorer.param.columns_z.get_range().values()
    explorer.param.update(columns=["site"], columns_y=["y"], columns_z=["z"])
    assert explorer.failures() == {}
    X, Y, report, given = explorer.prepared()
    assert report.categorical == ("site",) and set(np.unique(X)) == {0.0, 1.0} or \
        len(np.unique(X)) == 2
    table = page_result(explorer).set_index("test")
    kci = [name for name in table.index if not name.startswith("rc")]
    assert table.loc[kci, "p_value"].notna().all()
    # a yes/no label's median distance is 0: the delta kernel, which random features
    # cannot use, and the rows say so
    assert table.drop(index=kci)["note"].str.contains("needs a shift-invariant").all()
    explorer.param.update(question="independence", columns=["site"], columns_y=["z"])
    assert "categorical" in explorer.summary_view().object
    ran = page_result(explorer)["p_value"].dropna()
    assert len(ran) >= 6 and (ran < 0.01).all()  # the label follows z


def test_the_map_gives_the_numbers_of_the_command_line_and_a_click_opens_a_pair(tmp_path):
    frame = fork_table()
    path, out = tmp_path / "fork.csv", tmp_path / "map.csv"
    frame.to_csv(path, index=False)
    explorer = page_with(frame, question="map",
                         columns=["x", "y", "z", "site", "noise"])
    pairs = page_result(explorer)
    done = kmeviz(path, "--dependence-map", "--columns", "x", "y", "z", "site", "noise",
                  "--rng", SEED, "--out", out)
    assert done.returncode == 0, done.stderr
    cli = pd.read_csv(out)
    assert list(zip(cli.x, cli.y, strict=True)) == list(zip(pairs.x, pairs.y, strict=True))
    for column in ("effect", "hsic", "p_value", "p_holm", "p_bh"):
        np.testing.assert_allclose(cli[column], pairs[column], rtol=1e-9, err_msg=column)
    python = K.dependence_map(frame, ["x", "y", "z", "site", "noise"], rng=SEED)
    np.testing.assert_allclose(python["p_value"], pairs["p_value"], rtol=1e-12)
    found = {frozenset(p) for p in zip(pairs.x, pairs.y, strict=True)}
    assert len(found) == 10
    depends = {frozenset((r.x, r.y)) for r in pairs.itertuples() if r.reject_bh}
    assert frozenset(("x", "z")) in depends and frozenset(("site", "z")) in depends
    assert not any("noise" in p for p in depends)
    # shown on the page: the map's card, its rows strongest first, the heatmap
    explorer._show_comparison(([], pairs), None)
    assert explorer._map.card.visible and not explorer._cards[0].visible
    shown = explorer._map.table.value
    assert shown["effect"].astype(float).is_monotonic_decreasing
    assert explorer.failures() == {}
    # a click on a row opens that pair with every independence test
    explorer._map.table.selection = [0]
    top = (shown.x.iloc[0], shown.y.iloc[0])
    assert explorer.question == "independence"
    assert (explorer.columns, explorer.columns_y) == ([top[0]], [top[1]])
    assert explorer._cards[0].visible and not explorer._map.card.visible
    explorer.question = "map"  # back: the map's columns again
    assert explorer.columns == ["x", "y", "z", "site", "noise"]


def test_the_map_says_what_is_missing():
    explorer = page_with(fork_table(), question="map", columns=["x"])
    with pytest.raises(ValueError, match="at least two columns"):
        page_result(explorer)


def test_a_click_on_a_cell_of_the_map_opens_that_pair_and_the_diagonal_nothing():
    import holoviews as hv
    from kmeviz_apps._own_views import map_plot

    pairs = K.dependence_map(fork_table(), ["x", "y", "z"])
    opened = []
    plot = map_plot(pairs, lambda x, y: opened.append((x, y)))
    taps = [s for s in hv.streams.Stream.registry[plot] if isinstance(s, hv.streams.Tap)]
    assert len(taps) == 1
    taps[0].event(x="z", y="x")
    taps[0].event(x="y", y="y")  # a column against itself: no test
    assert opened == [("z", "x")]


def test_the_pc_graph_gives_the_numbers_of_kmeviz_discover_and_a_test_opens(tmp_path):
    frame = fork_table()
    path, out = tmp_path / "fork.csv", tmp_path / "graph.json"
    frame.to_csv(path, index=False)
    explorer = page_with(frame, question="graph", columns=["x", "y", "z", "noise"])
    result = page_result(explorer)
    done = subprocess.run([sys.executable, "-m", "kmeviz_apps", "discover", str(path),
                           "--columns", "x", "y", "z", "noise", "--rng", str(SEED),
                           "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    cli = json.loads(out.read_text())
    assert cli["edges"] == result.edges().to_dict(orient="records")
    np.testing.assert_allclose([t["p_value"] for t in cli["tests"]],
                               result.tests["p_value"], rtol=1e-12)
    edges = {frozenset((e.source, e.target)) for e in result.edges().itertuples()}
    assert edges == {frozenset(("x", "z")), frozenset(("y", "z"))}  # the fork, no x — y
    explorer._show_comparison(([], result), None)
    assert explorer._map.card.visible and "x — z" in explorer._map.summary.object
    assert explorer.failures() == {}
    # a click on a test given a set opens the conditional question on it
    given = int(np.flatnonzero(result.tests["given"].map(len) > 0)[0])
    explorer._map.table.selection = [given]
    row = result.tests.iloc[given]
    assert explorer.question == "conditional"
    assert (explorer.columns, explorer.columns_y, explorer.columns_z) == (
        [row.x], [row.y], list(row.given))
