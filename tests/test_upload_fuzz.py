"""Fuzzed uploads against the "Your data" explorer on the server side (issue 44): hostile
column names, file names and group values, random group splits, NaN patterns and 0–3
files. Every case: no unexpected error in any view, the comparison or a null view, and no
element from a user's string in any HTML the page is sent (Markdown and HTML panes, the
MultiChoice chips)."""

import html
import re

import numpy as np
import pandas as pd
import pytest

pn = pytest.importorskip("panel")
from kmeviz_apps.data_explorer import DataExplorer  # noqa: E402

HOSTILE = ['<img src=x onerror="alert(1)">', "<script>alert(2)</script>", "</div>", "<b>b</b>",
           "a\"b'c", "<i>i</i>", "`code`", "[link](http://example.com)", "**bold**",
           "<u onmouseover=alert(3)>u</u>", "x&amp;y", "$\\frac{1}{0}$", "\u202eevil", " "]
PLAIN = ["alpha", "beta", "gamma", "delta", "rate", "time"]
#: an element made from one of HOSTILE in HTML sent to the page
MARKUP = re.compile(r"<(img|script|b|i|u)\b|</div>", re.IGNORECASE)
#: random cases of the fuzz in the default run; the slow test runs SLOW_CASES
CASES = 40
SLOW_CASES = 200


class Drop:
    def __init__(self, files):
        self.new = files


def random_file(rng, columns: list, group: str | None) -> pd.DataFrame:
    n = int(rng.integers(6, 40))
    frame = pd.DataFrame(rng.normal(size=(n, len(columns))), columns=columns)
    for column in columns:  # NaN patterns: none, a few cells, a whole column
        pattern = rng.integers(4)
        if pattern == 1:
            frame.loc[rng.random(n) < 0.2, column] = np.nan
        elif pattern == 2 and rng.random() < 0.3:
            frame[column] = np.nan
    if group is not None:
        values = rng.choice(HOSTILE + PLAIN, size=int(rng.integers(1, 4)), replace=False)
        frame[group] = rng.choice(values, size=n)
    return frame


def random_case(rng) -> dict:
    names = list(dict.fromkeys(rng.choice(HOSTILE + PLAIN, size=int(rng.integers(1, 5)))))
    group = str(rng.choice(HOSTILE + ["group"])) if rng.random() < 0.6 else None
    if group in names:
        group = None
    files = {}
    for k in range(int(rng.integers(0, 4))):
        columns = names if rng.random() < 0.8 else [*names, "extra"]
        frame = random_file(rng, columns, group if rng.random() < 0.8 else None)
        files[f"{rng.choice(HOSTILE + PLAIN)}{k}.csv"] = frame.to_csv(index=False)
    return files


def html_sent(*viewables) -> list[str]:
    """Every HTML text and MultiChoice label the page would receive from these."""
    texts = []
    for viewable in viewables:
        root = pn.panel(viewable).get_root()
        for model in root.references():
            kind = type(model).__name__
            if kind == "HTML":  # Panel's: its text travels escaped, the page unescapes it
                texts.append(html.unescape(model.text))
            elif kind == "Div":
                texts.append(model.text)
            elif kind == "MultiChoice":
                texts += [o if isinstance(o, str) else o[1] for o in model.options]
    return texts


def unexpected(shown) -> bool:
    return isinstance(shown, pn.pane.Alert) and "Something went wrong" in shown.object


def test_fuzzed_uploads_raise_nothing_unexpected_and_send_no_markup():
    run_upload_fuzz(CASES)


@pytest.mark.slow
def test_many_fuzzed_uploads_raise_nothing_unexpected_and_send_no_markup():
    run_upload_fuzz(SLOW_CASES)


def run_upload_fuzz(cases: int) -> None:
    rng = np.random.default_rng(44)
    errors, markup = [], []
    for case in range(cases):
        files = random_case(rng)
        explorer = DataExplorer()
        explorer._box.receive(Drop(files))
        if explorer.group == "" and len(explorer.param.group.objects) > 1:
            explorer.group = str(rng.choice([g for g in explorer.param.group.objects.values()
                                             if g]))
        views = [explorer.summary_view(), explorer.samples_view(), explorer.witness_view()]
        try:
            parts = []  # the comparison job's work, run here
            explorer._comparison_work()(parts.append)
            table = parts[-1][1]
        except (ValueError, TypeError):
            table = None  # a readable message in the page (prepared's checks)
        except Exception as exc:  # noqa: BLE001
            errors.append((case, "comparison", repr(exc)))
            table = None
        if table is not None:
            explorer.comparison = table
            explorer._table.show(table)
            for test in rng.choice(table["test"], size=3, replace=False):
                explorer.test = str(test)
                views.append(explorer.null_view())
        errors += [(case, "view", v.object) for v in views if unexpected(v)]
        sent = html_sent(*[v for v in views if isinstance(v, pn.pane.PaneBase)],
                         explorer._box.message, explorer._table.effect,
                         explorer._table.note, *explorer.buttons())
        markup += [(case, text) for text in sent if MARKUP.search(text)]
    assert errors == []
    assert markup == []
