"""The "Your data" explorer without a browser: uploads, choices, the witness, and the
comparison it runs (the browser tests are in tests/ui/test_data_app.py)."""


import numpy as np
import pandas as pd
import pytest

import kmeviz as K

pytest.importorskip("panel")
from kmeviz_apps._own_data import plane_directions  # noqa: E402
from kmeviz_apps.data_explorer import UPLOADED, DataExplorer  # noqa: E402


def TABLE_TESTS(registry):  # the tests a comparison's table runs (i.i.d. rows)
    return K.compare.selected_tests(registry, "all")


class Drop:
    def __init__(self, files):
        self.new = files


def table_text(seed=0, shift=1.0, column="a"):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(60, 2)), columns=[column, "b"])
    frame["arm"] = np.repeat(["treated", "control"], 30)
    frame.loc[frame.arm == "treated", column] += shift
    return frame.to_csv(index=False)


def test_the_default_state_computes_every_view():
    explorer = DataExplorer()
    assert explorer.failures() == {}
    assert (explorer.group, explorer.group_x, explorer.group_y) == ("species", "Adelie",
                                                                    "Gentoo")
    assert explorer.columns == ["bill_length_mm", "bill_depth_mm", "flipper_length_mm",
                                "body_mass_g"]


def test_an_upload_switches_to_it_and_a_bad_one_says_why():
    explorer = DataExplorer()
    explorer._box.receive(Drop({"bad.csv": "arm,a\nx,1\nx,2,3\n"}))
    assert "This file cannot be used" in explorer._box.message.object
    # the page names the upload, and shows no table of other data beside its message
    assert explorer.source == UPLOADED and explorer.comparison is None
    assert "no file uploaded yet" in explorer.failures()["summary_view"]
    explorer._box.receive(Drop({"bad.csv": "arm,a\nx,1\nx,2,3\n",
                                   "trial.csv": table_text()}))  # the bad one is left out
    assert explorer.source == UPLOADED and explorer.group == "arm"
    assert (explorer.group_x, explorer.group_y) == ("treated", "control")
    assert explorer.failures() == {}


def test_two_files_are_one_sample_each():
    explorer = DataExplorer()
    a = pd.DataFrame({"p": [1.0, 2, 3, 4], "q": [1.0, 0, 1, 0]}).to_csv(index=False)
    b = pd.DataFrame({"p": [5.0, 6, 7, 8], "q": [1.0, 1, 0, 0]}).to_csv(index=False)
    explorer._box.receive(Drop({"a.csv": a, "b.csv": b}))
    X, Y, report, _ = explorer.prepared()
    assert report.sources == ("a.csv", "b.csv") and X.shape == Y.shape == (4, 2)


def test_uploads_stay_in_their_session():
    first, second = DataExplorer(), DataExplorer()
    first._box.receive(Drop({"private.csv": table_text(column="secret")}))
    assert "secret" in first.columns and "secret" not in second.param.columns.objects
    with pytest.raises(ValueError, match="no file uploaded yet"):
        second.param.update(source=UPLOADED)
        second.frame()


def test_the_comparison_fills_the_table_and_a_newer_change_cancels_the_older():
    """Served (a document whose callbacks run on an 'event loop' thread), the comparison
    is a job: a change empties the table in the change itself, cancels the running
    comparison, and the table ends with the newest samples' rows."""
    from panel.io.state import set_curdoc

    from .test_jobs import LOOP, ServedDoc, wait_for

    explorer = DataExplorer()
    explorer._box.receive(Drop({"trial.csv": table_text(shift=2.0)}))  # not served: at once
    explorer.loop = LOOP  # served from here on
    with set_curdoc(ServedDoc()):
        explorer.param.update(bandwidth_log10=0.25)
        older = explorer._comparison._cancel
        # new samples empty the table in the change itself, before any other work: the
        # page never shows their summary beside the p-values of the samples before
        assert explorer.comparison is None and len(explorer._table.table.value) == 0
        explorer.param.update(bandwidth_log10=0.5)  # a newer change
        assert older.is_set()  # the older comparison was told to stop
        bandwidth = 10**0.5 * K.median_heuristic(*explorer.prepared()[:2])
        # done: the comparison is set, then (on the 'event loop' thread) the table shows it
        assert wait_for(lambda: explorer.comparison is not None
                        and len(explorer._table.table.value) == len(TABLE_TESTS(K.MMD_TESTS)), 60)
    table = explorer.comparison
    assert table.attrs["kernel"].bandwidth == pytest.approx(bandwidth, rel=1e-12)
    assert len(explorer._table.table.value) == len(TABLE_TESTS(K.MMD_TESTS))
    assert table.set_index("test").loc["biased/permutation", "reject"]
    assert explorer.null_view() is not None
    explorer.alpha = 0.005  # α moves the decisions only: the same table, relevelled
    assert explorer.comparison is table and table.attrs["alpha"] == 0.005
    ran = table.p_value.notna()
    assert (table.reject[ran] == (table.p_value[ran] <= 0.005)).all()


def test_the_plane_directions():
    pooled = np.random.default_rng(0).normal(size=(100, 3)) * [3.0, 1.0, 0.1]
    U = plane_directions(("PC 1", "c2"), ("c1", "c2", "c3"), pooled)
    assert abs(abs(U[0, 0]) - 1) < 0.05 and U[:, 1].tolist() == [0.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="the two axes are the same direction"):
        plane_directions(("c1", "c1"), ("c1", "c2", "c3"), pooled)


def test_the_witness_on_the_plane_is_the_witness_in_space():
    explorer = DataExplorer()
    explorer.param.update(x_axis="bill_depth_mm", y_axis="flipper_length_mm")
    from kmeviz_apps._own_data import witness_on_plane
    from kmeviz_apps._own_views import plane

    X, Y, _, kernel, U, mean, offset = plane(explorer)

    assert kernel is explorer.prepared()[3]  # the kernel of the tests, computed once
    xs, ys, values = witness_on_plane(X, Y, kernel, U, mean, offset, X @ U + offset,
                                      Y @ U + offset)
    point = mean.copy()
    point[1], point[2] = xs[7], ys[11]  # the plane of two columns, the others at the mean
    direct = kernel(point[None], X).mean() - kernel(point[None], Y).mean()
    assert values[11, 7] == pytest.approx(direct, rel=1e-10, abs=1e-14)


class Chunk:
    event_name = "upload_event"

    def __init__(self, name, data, chunk, total):
        self.data = {"name": name, "data": data, "chunk": chunk, "total_chunks": total,
                     "type": "text/csv"}


def test_the_server_side_of_an_upload_is_bounded_whatever_the_browser_sends():
    explorer = DataExplorer()
    dropper = explorer._box.dropper
    dropper._max_bytes = 100  # as kmeviz serve --max-upload-mb would set it
    dropper._process_event(Chunk("big.csv", b"x" * 60, 1, 3))
    dropper._process_event(Chunk("big.csv", b"x" * 60, 2, 3))  # 120 bytes > 100
    assert "big.csv" not in dropper._file_buffer and dropper.value == {}
    assert "csv is over the limit" in explorer._box.message.object
    dropper._process_event(Chunk("ok.csv", table_text().encode()[:90], 1, 1))
    assert "ok.csv" in dropper.value  # a small file still arrives


def test_a_bundled_data_sets_comparison_is_computed_once_for_every_session():
    """Issue 29: every page opens with the same comparison of a bundled data set, computed
    once for all sessions (0.3 s of CPU each); an upload's never enters the shared cache."""
    from kmeviz_apps._own_data import shared_comparison

    def compare(explorer):
        """The comparison job's work run here: (parts it emitted, the final table)."""
        parts = []
        explorer._comparison_work()(parts.append)
        return parts, parts[-1][1]

    first, second = DataExplorer(), DataExplorer()
    shared_comparison.cache_clear()
    parts, table = compare(first)
    # the computing session sees its rows come
    assert len(parts) - 1 >= len(TABLE_TESTS(K.MMD_TESTS))
    _, again = compare(second)
    info = shared_comparison.cache_info()
    assert (info.hits, info.misses) == (1, 1)
    pd.testing.assert_frame_equal(again, table)
    again.loc[0, "p_value"] = -1.0  # a session's copy: the next one is untouched
    assert compare(second)[1].loc[0, "p_value"] >= 0
    second.seed = 1  # another choice, another comparison
    compare(second)
    assert shared_comparison.cache_info().misses == 2

    mine = DataExplorer()
    mine._box.receive(Drop({"trial.csv": table_text(shift=2.0)}))
    shared_comparison.cache_clear()
    compare(mine)
    compare(mine)
    assert shared_comparison.cache_info() == (0, 0, 16, 0)


def test_the_independence_question_compares_two_groups_of_columns():
    """Y's columns against X's (the others) of every row: the table of every independence
    test, the witness of dependence, and an escaped hostile column name."""
    explorer = DataExplorer(question="independence")
    assert explorer.columns_y == ["body_mass_g"]
    X, Y, report, kernels = explorer.prepared()
    assert X.shape == (342, 3) and Y.shape == (342, 1)  # every species, 2 rows with NaN out
    assert isinstance(kernels, K.KernelPair)
    assert explorer.failures() == {}
    parts = []
    explorer._comparison_work()(parts.append)
    table = parts[-1][1]
    assert list(table["test"]) == [s.name for s in K.compare.selected_tests(
        K.INDEPENDENCE_TESTS, "all")]
    assert (table["p_value"] < 0.01).all()  # body mass depends on the bill and flipper
    # a hostile column name, uploaded: escaped in the summary and the columns' chips
    name = "<img src=x onerror=alert(1)>"
    rng = np.random.default_rng(0)
    x = rng.normal(size=80)
    frame = pd.DataFrame({name: x, "y": x**2 + 0.1 * rng.normal(size=80),
                          "arm": np.repeat(["a", "b"], 40)})
    explorer._box.receive(Drop({"pairs.csv": frame.to_csv(index=False)}))
    explorer.columns_y = ["y"]
    assert explorer.failures() == {}
    summary = explorer.summary_view().object
    assert "<img" not in summary and "&lt;img" in summary
    from tests.test_upload_fuzz import html_sent

    chips = [t for t in html_sent(*explorer.buttons()) if "img" in t]
    assert chips and all("<img" not in t for t in chips), chips
    assert explorer.prepared()[0].shape == (80, 1)


def test_the_independence_question_says_what_is_missing():
    explorer = DataExplorer(question="independence")
    explorer.columns_y = []
    assert "choose at least one column for Y" in explorer.failures()["summary_view"]
    explorer.param.update(columns=["body_mass_g"], columns_y=["body_mass_g"])
    assert "not one of Y's" in explorer.failures()["summary_view"]


def test_a_yes_no_column_is_read_by_the_delta_kernel_as_on_the_command_line():
    """A 0/1 column chosen as Y on the page: the delta kernel, said in the summary, and the
    same p-value as kmeviz compare --independence on the same file (group_kernels)."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=120)
    frame = pd.DataFrame({"x": x, "treated": (x + rng.normal(size=120) > 1.2).astype(int),
                          "arm": np.repeat(["a", "b"], 60)})
    explorer = DataExplorer(question="independence")
    explorer._box.receive(Drop({"trial.csv": frame.to_csv(index=False)}))
    explorer.param.update(columns=["x"], columns_y=["treated"])
    assert explorer.failures() == {}
    assert "categorical" in explorer.summary_view().object
    X, Y, report, kernels = explorer.prepared()
    assert repr(kernels.y) == "CategoricalKernel()" and report.categorical == ("treated",)
    page = K.hsic_test(X, Y, kernel_x=kernels.x, kernel_y=kernels.y, null="gamma")
    from kmeviz.loading import paired_from_frame
    from kmeviz.loading.paired import group_kernels

    X2, Y2, report2 = paired_from_frame(frame, x=["x"], y=["treated"])
    kx, ky = group_kernels(report2, X2, Y2)
    cli = K.hsic_test(X2, Y2, kernel_x=kx, kernel_y=ky, null="gamma")
    assert page.p_value == pytest.approx(cli.p_value, rel=1e-12) and page.p_value < 0.01
