"""Your data explorer (``kmeviz.compare_tests`` on your own samples).

Upload a table (CSV, TSV, .npy, .npz; one file with a group column, or two files), or pick a
bundled data set or a generator; compare two groups, or test whether two groups of columns
are independent. See the samples and the witness, every registered test filling in a
table as it finishes, and the null distribution of the test you select.
"""

from __future__ import annotations

import threading

import pandas as pd
import panel as pn
import param
from kmeviz_apps._common import Explorer, Plot, error_message, guarded
from kmeviz_apps._comparison import ComparisonTable
from kmeviz_apps._map_table import MapCards, MapTable
from kmeviz_apps._own_choices import offer_choices, one_restart, prepared_samples
from kmeviz_apps._own_conditional import (
    CONDITIONAL,
    GRAPH,
    MAP,
    graph_words,
    map_words,
    whole_table_work,
)
from kmeviz_apps._own_data import (
    PCS,
    QUESTIONS,
    ROWS,
    built_in_frame,
    compare_samples,
    no_group_message,
)
from kmeviz_apps._own_pairs import INDEPENDENCE
from kmeviz_apps._own_views import null_plot, samples_plot, summary_markdown, witness_plot
from kmeviz_apps._upload import UploadBox
from kmeviz_apps._url import plain

import kmeviz as K
from kmeviz import viz
from kmeviz.distributions.real import REAL_DATASETS

UPLOADED = "Uploaded file"
#: the longest text the Find-columns box takes (a column name a person would type)
MAX_FIND = 200
#: what defines the two samples (the views read them; the comparison, and the bandwidth)
SAMPLES = ("source", "n", "epsilon", "seed", "upload_key", "group", "group_x", "group_y",
           "columns", "columns_y", "columns_z", "standardize", "question", "time_column")
#: the questions of column groups of every row: no group column needed
PAIRED = (INDEPENDENCE, CONDITIONAL, MAP, GRAPH)
#: the questions of the whole table: their own card, no comparison table
WHOLE = (MAP, GRAPH)
COMPARISON = (*SAMPLES, "bandwidth_log10", "rows")
SOURCES = {spec.title: name for name, spec in REAL_DATASETS.items()} | {
    "Blob grid (FastMMD Fig. 4)": "blobs", "Rings (FastMMD Sec. 4.2)": "rings",
    UPLOADED: "upload"}


class DataExplorer(MapCards, Explorer):
    """Every test on your own two samples, with the witness of where they differ."""

    title = "Your data"
    CONTROLS = ("source", "question", "rows", "n", "epsilon", "seed", "standardize",
                "bandwidth_log10", "alpha")
    #: the controls of a generator of the papers, hidden for a data set or an upload
    GENERATOR_CONTROLS = {"n": ("blobs", "rings"), "epsilon": ("blobs",)}
    WIDGETS = {"bandwidth_log10": {"type": pn.widgets.FloatSlider, "throttled": True},
               "alpha": {"type": pn.widgets.FloatSlider, "throttled": True},
               "epsilon": {"type": pn.widgets.FloatSlider, "throttled": True},
               "n": {"type": pn.widgets.IntInput, "step": 100}}
    SUMMARY_WIDTH = 360
    EXTENSIONS = ("tabulator", "filedropper")
    PLOTS = (
        Plot("samples_view", "Samples",
             "Two samples: on the chosen plane (two columns, or the first two principal "
             "components of the pooled, standardized sample). Independence and given Z: X's "
             "first column against Y's. The map: every pair's normalised HSIC. The graph: "
             "what PC found (→ a direction every graph of its class shares)."),
        Plot("witness_view", "Witness",
             "Two samples: the witness μ̂_X − μ̂_Y on that plane (the other coordinates at "
             "the pooled mean), red where X has more mass; its norm is the MMD. "
             "Independence: the witness of dependence on the first columns. Given Z: the "
             "residuals of X and Y after KCI's regression on Z."),
        Plot("null_view", "Null distribution",
             "The null distribution of the selected test, with the observed statistic."),
    )

    source = param.Selector(default=REAL_DATASETS["penguins"].title, objects=list(SOURCES),
                            label="Data")
    question = param.Selector(default="two-sample", objects=QUESTIONS, label="Question")
    rows = param.Selector(default="check", objects=ROWS, label="Rows")
    n = param.Integer(default=300, bounds=(20, 5000), label="n per sample (generators)")
    epsilon = param.Number(default=2.0, bounds=(1.0, 6.0), step=0.1,
                           label="eigenvalue ratio ε (blob grid)")
    standardize = param.Boolean(default=True, label="Standardize columns")
    bandwidth_log10 = param.Number(default=0.0, bounds=(-2.0, 2.0), step=0.05,
                                   label="Bandwidth: log₁₀(σ / median heuristic)")
    alpha = param.Number(default=0.05, bounds=(0.005, 0.5), step=0.005, label="α")
    # session-only choices (never in the URL): they depend on the data
    group = param.Selector(default=None, objects=[], precedence=-1, label="Group column")
    group_x = param.Selector(default=None, objects=[], precedence=-1, label="X: group")
    group_y = param.Selector(default=None, objects=[], precedence=-1, label="Y: group")
    columns = param.ListSelector(default=[], objects=[], precedence=-1, label="Columns")
    columns_y = param.ListSelector(default=[], objects=[], precedence=-1,
                                   label="Y: columns (independence, conditional)")
    columns_z = param.ListSelector(default=[], objects=[], precedence=-1,
                                   label="Z: columns (conditional)")
    # the lists show the columns whose names contain this text (a table wider than them)
    find_columns = param.String(default="", precedence=-1, label="Find columns")
    time_column = param.Selector(default="", objects=[""], precedence=-1,
                                 label="Time column (sorts the rows)")
    x_axis = param.Selector(default=PCS[0], objects=list(PCS), precedence=-1, label="x axis")
    y_axis = param.Selector(default=PCS[1], objects=list(PCS), precedence=-1, label="y axis")
    test = param.Selector(default="biased/permutation",
                          objects=list(dict.fromkeys(s.name for s in (
                              *K.MMD_TESTS, *K.GOF_TESTS, *K.INDEPENDENCE_TESTS,
                              *K.CONDITIONAL_TESTS))),
                          precedence=-1,
                          label="Null distribution of")
    upload_key = param.String(default="", precedence=-1)
    comparison = param.Parameter(default=None, precedence=-1)

    def __init__(self, **params):
        super().__init__(**params)
        self._upload = None  # (key, frame, names, candidates, offer) of this session's upload
        self._numeric: list = []  # every numeric column of the table (but the group)
        self._offering = False
        self._restarts_held, self._restart_due = 0, False  # ``_one_restart``
        self._memo_lock = threading.Lock()
        self._memo: tuple = (None, None)  # (choices, (X, Y, report, kernel)) of the last call
        self._table = ComparisonTable(self._select_test)
        self._map: MapTable | None = None  # built on first use (``MapCards``)
        self._map_columns = None  # the map's columns while one of its pairs is open
        self._cards = pn.Column(self._table.card(), sizing_mode="stretch_width")
        self._comparison = self.job()  # the table's comparison, one at a time
        self._box = UploadBox(self._show_upload, owner=self)
        # shown for a table wider than the lists (a widget of its own: hiding a widget of
        # the parameter list rebuilt the list, 0.1 s of the event loop)
        self._find = pn.widgets.TextInput.from_param(
            self.param.find_columns, visible=False, sizing_mode="stretch_width",
            placeholder="part of a column name", max_length=MAX_FIND)
        # a served page compares from its onload on (``main``), under the server's budget
        self._page_loaded = not self.constructed_for_a_page
        self._refresh_choices()
        self._show_question()

    # -- the data ----------------------------------------------------------------------
    def frame(self) -> pd.DataFrame:
        """The current table: a bundled data set, the blob grid, or this session's upload."""
        kind = SOURCES[self.source]
        if kind != "upload":
            return built_in_frame(kind, int(self.n), float(self.epsilon), int(self.seed))
        if self._upload is None:
            raise ValueError("no file uploaded yet (or none usable): drop a CSV or other "
                             "table on the upload box (its message says what a file lacks)")
        return self._upload[1]

    def _show_upload(self, upload, *, keep_current: bool) -> None:
        """Switch to ``upload`` (key, table, names), or, with None, to no upload (the views
        and the table then wait for one), unless ``keep_current`` (an empty box that never
        showed a file: the current data stay)."""
        if upload is None and keep_current and SOURCES[self.source] != "upload":
            return
        self._upload, previous = upload, self.upload_key
        key = "" if upload is None else upload[0]
        with one_restart(self):
            self.param.update(source=UPLOADED, upload_key=key)
            if key == previous:
                self.param.trigger("upload_key")  # the views and the table let go of it

    @param.depends("source", watch=True, on_init=True)
    def _show_generator_controls(self):
        """The generators' own controls (n, ε) only for a generator."""
        for name, kinds in self.GENERATOR_CONTROLS.items():
            self.param[name].precedence = 0 if SOURCES[self.source] in kinds else -1

    @param.depends("question", watch=True)
    def _show_question(self):
        """The map's card for the map, the table's otherwise; back on the map after one
        of its pairs, the map's columns again."""
        self._cards[0].visible = self.question not in WHOLE
        if self.question in WHOLE:
            self.map_table().card.visible = True
        elif self._map is not None:
            self._map.card.visible = False
        if self.question in WHOLE and self._map_columns is not None:
            columns, self._map_columns = self._map_columns, None
            self.columns = [c for c in columns
                            if c in self.param.columns.get_range().values()]

    @param.depends("source", "n", "epsilon", "seed", "upload_key", watch=True)
    def _refresh_choices(self):
        """The group column, groups, columns and axes offered for the current table."""
        spec = REAL_DATASETS.get(SOURCES[self.source])
        offer_choices(self, None if spec is None else spec.group,
                            None if spec is None else spec.groups)

    @param.depends("group", watch=True)
    def _refresh_groups(self):
        if not self._offering:  # the user picked another group column
            offer_choices(self, self.group, None)

    @param.depends("columns", "find_columns", watch=True)
    def _refresh_axes(self):
        if not self._offering:
            offer_choices(self, self.group, (self.group_x, self.group_y), self.columns)

    def choices(self) -> tuple:
        """What defines the two samples and the kernel."""
        return (*(tuple(v) if isinstance(v, list) else v
                  for v in (getattr(self, name) for name in SAMPLES)), self.bandwidth_log10)

    def prepared(self):
        """(X, Y, report, kernel) of the current choices, computed once per choice and
        shared by the views and the comparison (so the witness and the tests use the same
        kernel). Per session: an upload is never a key of a shared cache."""
        choices = self.choices()
        with self._memo_lock:
            if self._memo[0] != choices:
                self._memo = (choices, prepared_samples(self))
            return self._memo[1]

    def source_kind(self) -> str:
        """"upload", a generator's name, or a bundled data set's name."""
        return SOURCES[self.source]

    def no_group_message(self) -> str:
        """Why nothing is compared yet when no column reads as a group label."""
        return no_group_message(self.source_names(),
                                [n for n in self.param.group.objects.values() if n])

    def source_names(self) -> tuple:
        """The file names of an upload, or the data set's title."""
        if SOURCES[self.source] == "upload" and self._upload is not None:
            return self._upload[2]
        return (self.source,)

    def kernel(self, X, Y):
        """The Gaussian kernel at 10^bandwidth_log10 × the median heuristic."""
        return K.GaussianKernel(K.median_heuristic(X, Y) * 10.0 ** self.bandwidth_log10)

    # -- the comparison, filled in as each test finishes ---------------------------------
    @param.depends(*COMPARISON, watch=True)
    def restart_comparison(self):
        """Empty the table in the change itself (never these samples' summary beside old
        p-values) and run the comparison as a job (``_jobs``), cancelling the older one."""
        if self._restarts_held:
            self._restart_due = True
            return
        self.comparison = None
        if not self._page_loaded:  # a served page's link: its onload starts the comparison
            self._comparison.cancel()
            return
        if SOURCES[self.source] == "upload" and (
                self._upload is None or not (self.group or self.question in PAIRED)):
            # nothing to compare until a usable file and its group column: the upload's
            # message (or the summary) says what is missing; no table of other data stays
            self._comparison.cancel()
            self._table.clear(loading=False)
            self._clear_map()
            return
        self._table.clear(loading=True)
        self._clear_map("The map appears when every pair has been tested.")
        self._comparison.start(whole_table_work(self) if self.question in WHOLE else
                               self._comparison_work(), self._show_comparison)

    def _comparison_work(self):
        """``compare_samples`` as a job's work: the rows so far as each test finishes, then
        (rows, table); a bundled data set's table is shared by every session."""
        seconds = self.budget_seconds or 60.0
        shared = SOURCES[self.source] != "upload"  # an upload's comparison stays in its session
        key = (*self.choices(), self.rows, self.alpha, seconds) if shared else None
        alpha, seed, question, order = self.alpha, self.seed, self.question, self.rows
        spec = REAL_DATASETS.get(SOURCES[self.source])
        if order == "check" and spec is not None:
            order = spec.rows  # what the bundled data set's rows are

        def work(emit):
            X, Y, _, kernel = self.prepared()
            rows = []

            def progress(row):
                if row is not None:
                    rows.append(row)
                    emit((list(rows), None))

            table = compare_samples(X, Y, kernel, alpha=alpha, seed=seed, seconds=seconds,
                                    progress=progress, shared_key=key, question=question,
                                    rows=order)
            emit((rows, table))
        return work

    def _show_comparison(self, part, error) -> None:
        if error is not None:
            self._clear_map()
            self._table.fail(error_message(error, self).object)
            return
        rows, table = part
        if self.question in WHOLE and table is not None:
            self.comparison = table
            self._table.clear(loading=False)
            if self.question == GRAPH:
                self.map_table().show_graph(table, graph_words(table))
            else:
                self.map_table().show(table, map_words(table))
            return
        if table is None:
            self._table.show_rows(rows)
            return
        self.comparison = table
        self._relevel()

    @param.depends("alpha", watch=True)
    def _relevel(self):
        """The decisions at the current α: only the thresholds move, nothing is rerun."""
        table = self.comparison
        if table is None or self.question in WHOLE:
            return
        ran = table["p_value"].notna()
        table.loc[ran, "reject"] = table.loc[ran, "p_value"] <= self.alpha
        table.attrs["alpha"] = self.alpha
        self._table.show(table)

    def open_pair(self, x: str, y: str, given: tuple = ()) -> None:
        """One pair of the map (or one test of the graph, given its set): the independence
        or conditional question with every test, its witness and table."""
        columns = list(self.columns)
        with one_restart(self):
            self.param.update(question=CONDITIONAL if given else INDEPENDENCE,
                              columns=[x], columns_y=[y],
                              **({"columns_z": list(given)} if given else {}))
        self._map_columns = columns

    def _select_test(self, name: str) -> None:
        self.test = name
        self.show_plot("null_view")  # the chosen test's null distribution

    # -- views ---------------------------------------------------------------------------
    @param.depends(*SAMPLES, "bandwidth_log10", "question")
    @guarded
    def summary_view(self):
        if (SOURCES[self.source] == "upload" and self._upload is not None and not self.group
                and self.question not in PAIRED):
            text = plain(self.no_group_message(), 1200)
        else:
            text = summary_markdown(self)
        return pn.pane.Markdown(text, css_classes=["kmeviz-summary"],
                                sizing_mode="stretch_width")

    @param.depends(*SAMPLES, "x_axis", "y_axis")
    @guarded
    def samples_view(self):
        return samples_plot(self)

    @param.depends(*SAMPLES, "bandwidth_log10", "x_axis", "y_axis")
    @guarded
    def witness_view(self):
        return witness_plot(self)

    @param.depends("comparison", "test", "alpha", "question")
    @guarded
    def null_view(self):
        return null_plot(self)

    # -- layout --------------------------------------------------------------------------
    def buttons(self) -> list:
        choices = pn.Param(self.param, parameters=["group", "group_x", "group_y",
                                                   "columns", "columns_y", "columns_z",
                                                   "time_column", "x_axis", "y_axis", "test"],
                           display_threshold=-10, show_name=False,
                           widgets={name: pn.widgets.MultiChoice for name in (
                               "columns", "columns_y", "columns_z")},
                           sizing_mode="stretch_width")
        return [pn.pane.Markdown("### Upload"), *self._box.widgets(), self._find, choices]

    def __panel__(self):
        self._kick_off()
        layout = super().__panel__()
        layout.insert(len(layout) - 1, pn.Column(self._cards, width=viz.NOTEBOOK_WIDTH))
        return layout

    def main(self) -> list:
        """The summary and plots, then the table (not deferred: its code loads with it)."""
        self._page_loaded = False  # nothing is compared for a page that never loads
        self._comparison.cancel()  # what construction began: the onload starts the page's
        self.comparison = None
        pn.state.onload(self._kick_off)
        return [*super().main(), pn.Row(self._cards, sizing_mode="stretch_width")]

    def _kick_off(self):  # the first comparison, once the page has loaded
        self._page_loaded = True
        if self.comparison is None:
            self.restart_comparison()


create_app = DataExplorer.create_app
DataExplorer.serve_if_script(__name__)
