"""The "Your data" explorer's table of every test: rows filled in as each test finishes,
the effect size and what reading many tests means above and below it, and its download
as CSV (``kmeviz.export_table``: the same columns as ``kmeviz compare --out``)."""

from __future__ import annotations

import io

import pandas as pd
import panel as pn
from kmeviz_apps._common import with_caption
from kmeviz_apps._url import plain

import kmeviz as K
from kmeviz import viz

#: file name of the download (fixed: never a user's string)
DOWNLOAD_NAME = "kmeviz-comparison.csv"
#: column widths (px) that show every header and test name whole at a 1200 px window
WIDTHS = {"test": 205, "p_value": 82, "p_holm": 76, "decision": 76, "statistic": 82,
          "runtime_s": 70}


#: what the table shows, under it
CAPTION = ("Every registered test on these samples, filled in as each finishes; a test too "
           "slow for the time budget says how to run it alone.")

class ReadOnlyTabulator(pn.widgets.Tabulator):
    """A Tabulator whose rows only the server writes: a page's copy of the rows sent back
    is ignored. (While the server replaced the rows, a page's stale copy of another
    length reached Panel's merge: "Must have equal len keys and value when setting with
    an iterable", or a TypeError converting a column, in the server log of /data.)"""

    def _process_data(self, data) -> None:
        return None


class ComparisonTable:
    """The table card of a comparison (one Tabulator, filled in place)."""

    def __init__(self, on_select):
        empty = pd.DataFrame(columns=list(viz.TABLE_TITLES))
        self.table = ReadOnlyTabulator(
            empty, disabled=True, show_index=False, selectable=1,
            sizing_mode="stretch_width", height=380, css_classes=["kmeviz-comparison"],
            layout="fit_columns", titles=dict(viz.TABLE_TITLES), widths=dict(WIDTHS),
            formatters={"note": {"type": "textarea"}},
            # no sort arrows: they took the headers' last letters at 1200 px ("deci…")
            configuration={"columnDefaults": {"headerSort": False}})
        self.table.param.watch(lambda event: self._select(event, on_select), "selection")
        self.message = pn.pane.Alert("", alert_type="warning", visible=False,
                                     css_classes=["kmeviz-notice"],
                                     sizing_mode="stretch_width")
        self.effect = pn.pane.Markdown("", css_classes=["kmeviz-effect"],
                                       sizing_mode="stretch_width")
        self.note = pn.pane.Markdown("", css_classes=["kmeviz-many-tests"],
                                     sizing_mode="stretch_width")
        self.download = pn.widgets.FileDownload(
            callback=self.csv, filename=DOWNLOAD_NAME, label="Download the table (CSV)",
            disabled=True, css_classes=["kmeviz-download"], width=240)
        self.result: pd.DataFrame | None = None

    def card(self, caption: str = CAPTION) -> pn.Column:
        """The table with its message, effect size, note, download and caption."""
        return with_caption(pn.Column(self.message, self.effect, self.table, self.note,
                                      self.download, sizing_mode="stretch_width"), caption)

    def clear(self, *, loading: bool) -> None:
        """No rows (a new comparison starts, or there is nothing to compare); nothing
        is sent to the page when it shows none already (one upload restarts the
        comparison once per choice it sets: seven clears cost 0.25 s of the loop)."""
        if (self.result is None and not self.message.visible and self.table.value.empty
                and self.table.loading == loading and self.download.disabled):
            return
        self.result = None
        self.message.visible = False
        self.effect.object = self.note.object = ""
        self.download.disabled = True
        self.table.param.update(value=self.table.value.iloc[0:0], loading=loading)

    def show_rows(self, rows: list) -> None:
        """The rows that have finished so far."""
        self.table.value = viz.comparison_table_text(pd.DataFrame(rows))

    def show(self, table: pd.DataFrame) -> None:
        """The finished comparison (again after α moved: only decisions change)."""
        self.result = table
        self.table.param.update(value=viz.comparison_table_text(table), loading=False)
        effect = table.attrs.get("effect_size")
        self.effect.object = "" if effect is None else (
            f"**Effect size:** <span class='kmeviz-effect-value'>{plain(effect, 200)}"
            f"</span>, {effect.meaning}.")
        self.note.object = plain(table.attrs.get("note", ""), 1600)
        self.download.disabled = False

    def fail(self, text: str) -> None:
        """The comparison could not run: ``text`` (markdown, already escaped)."""
        self.clear(loading=False)
        self.message.param.update(object=text, visible=True)

    def csv(self) -> io.StringIO:
        """The finished table as CSV, with the kernel, bandwidth, α, seed and effect."""
        return io.StringIO(K.export_table(self.result).to_csv(index=False))

    def _select(self, event, on_select) -> None:
        if event.new and 0 <= event.new[0] < len(self.table.value):
            on_select(str(self.table.value["test"].iloc[event.new[0]]))
