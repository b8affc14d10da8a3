"""The "Your data" explorer's table of a dependence map: one row per pair of columns,
strongest first, a click on a row opening that pair, and the download of every pair
(the columns of ``kmeviz compare FILE --dependence-map --out``)."""

from __future__ import annotations

import io

import pandas as pd
import panel as pn
from kmeviz_apps._common import with_caption
from kmeviz_apps._comparison import ReadOnlyTabulator
from kmeviz_apps._url import neutral, plain

from kmeviz.results import p_value_text

#: file name of the download (fixed: never a user's string)
DOWNLOAD_NAME = "kmeviz-dependence-map.csv"
#: the rows a page shows (the download holds every pair)
SHOWN = 200
TITLES = {"x": "column", "y": "column", "effect": "normalised HSIC", "p_value": "p-value",
          "p_bh": "BH p", "p_holm": "Holm p", "depends": "depends (BH)",
          "given": "given", "level": "|given|", "independent": "separated"}
CAPTION = ("Every pair of the chosen columns, strongest dependence first (at most "
           f"{SHOWN} shown; the download holds them all). Click a row, or a cell of the "
           "map, to test that pair with every independence test.")


def strongest(pairs: pd.DataFrame) -> pd.DataFrame:
    """The ``SHOWN`` pairs of strongest dependence, strongest first."""
    return pairs.sort_values(["effect", "p_value"], ascending=[False, True]).head(SHOWN)


def shown_pairs(top: pd.DataFrame) -> pd.DataFrame:
    """The pairs as displayed: rounded, decisions in words, column names as text that
    no character reorders (a Tabulator cell shows them as plain text)."""
    return pd.DataFrame({
        "x": [neutral(str(c)) for c in top["x"]], "y": [neutral(str(c)) for c in top["y"]],
        "effect": [f"{v:.3f}" for v in top["effect"]],
        **{c: [p_value_text(float(v), 0) for v in top[c]] for c in ("p_value", "p_bh",
                                                                    "p_holm")},
        "depends": ["yes" if r else "no" for r in top["reject_bh"]]})


class MapTable:
    """The map's card (one Tabulator); ``on_pair(x, y)`` when a row is clicked."""

    def __init__(self, on_pair):
        self.table = ReadOnlyTabulator(
            pd.DataFrame(columns=list(TITLES)), disabled=True, show_index=False,
            selectable=1, sizing_mode="stretch_width", height=380,
            css_classes=["kmeviz-map-table"], layout="fit_columns", titles=dict(TITLES),
            configuration={"columnDefaults": {"headerSort": False}})
        self.table.param.watch(lambda event: self._select(event, on_pair), "selection")
        self.summary = pn.pane.Markdown("", css_classes=["kmeviz-map-summary"],
                                        sizing_mode="stretch_width")
        self.download = pn.widgets.FileDownload(
            callback=self.csv, filename=DOWNLOAD_NAME, label="Download every pair (CSV)",
            disabled=True, css_classes=["kmeviz-map-download"], width=240)
        self.pairs: pd.DataFrame | None = None
        self._names: list = []  # the shown rows' (x, y), as the table names them
        self.card = with_caption(pn.Column(self.summary, self.table, self.download,
                                           sizing_mode="stretch_width"), CAPTION)
        self.card.visible = False

    def show(self, pairs: pd.DataFrame | None, words: str = "") -> None:
        """The finished map (None: none yet), with ``words`` (plain text) above it."""
        self.pairs = pairs
        top = strongest(pairs) if pairs is not None else None
        self._names = [] if top is None else list(zip(top["x"], top["y"], strict=True))
        self.summary.object = plain(words, 1600)
        self.table.value = (shown_pairs(top) if top is not None
                            else self.table.value.iloc[0:0])
        self.download.disabled = pairs is None

    def show_graph(self, result, words: str = "") -> None:
        """The tests of a PC run (``kmeviz.pc``), in order; the download holds the graph's
        edges, as ``kmeviz discover --out graph.csv`` writes them."""
        tests = result.tests
        self.pairs = result.edges()
        self._names = [(x, y, tuple(g)) for x, y, g in zip(tests["x"], tests["y"],
                                                             tests["given"], strict=True)]
        self.summary.object = plain(words, 1600)
        self.table.value = pd.DataFrame({
            "x": [neutral(str(c)) for c in tests["x"]],
            "y": [neutral(str(c)) for c in tests["y"]],
            "given": [neutral(", ".join(map(str, g))) for g in tests["given"]],
            "level": tests["level"].to_numpy(),
            "p_value": [p_value_text(float(v), 0) for v in tests["p_value"]],
            "independent": ["yes: edge removed" if v else "no" for v in tests["independent"]]})
        self.download.disabled = False

    def csv(self) -> io.StringIO:
        """Every pair, as ``--dependence-map --out`` writes them (a graph: its edges)."""
        return io.StringIO(self.pairs.to_csv(index=False))

    def _select(self, event, on_pair) -> None:
        if event.new and 0 <= event.new[0] < len(self._names):
            on_pair(*self._names[event.new[0]])


class MapCards:
    """An explorer's map card (its ``_map``), added to its ``_cards`` when the map or the
    graph is first asked for: most pages never show it, and its models were a tenth of an
    opened page's server CPU. The explorer opens a clicked pair (``open_pair``)."""

    def map_table(self) -> MapTable:
        """The map's card, built (and added below the table's) on first use."""
        if self._map is None:
            self._map = MapTable(self.open_pair)
            self._cards.append(self._map.card)
        return self._map

    def _clear_map(self, words: str = "") -> None:
        if self._map is not None:
            self._map.show(None, words)
