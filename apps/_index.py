"""The landing page of ``kmeviz serve``: every explorer's card."""

from __future__ import annotations

import functools
import html
import importlib

import panel as pn
from kmeviz_apps import EXPLORERS, explorer_class


@functools.cache
def index_cards() -> str:
    """Every explorer's card (title, link, the last paragraph of its module docstring) as
    one block of HTML, made once: the page is one pane, not two dozen models (each ``GET
    /`` builds it anew, and 26 Markdown panes and Columns took it past 1 s while another
    session's grid computed)."""
    cards = []
    for slug in EXPLORERS:
        cls = explorer_class(slug)
        blurb = (importlib.import_module(cls.__module__).__doc__ or "").strip()
        blurb = blurb.split("\n\n")[-1].replace("\n", " ")
        cards.append(f'<div class="kmeviz-app-card"><h3><a href="./{html.escape(slug)}">'
                     f"{html.escape(cls.title)}</a></h3><p>{html.escape(blurb)}</p></div>")
    return f'<div class="kmeviz-app-cards">{"".join(cards)}</div>'


INDEX_CSS = """
.kmeviz-app-cards { display: flex; flex-wrap: wrap; gap: 20px; }
.kmeviz-app-card { width: 390px; border: 1px solid #ddd; border-radius: 8px;
                   padding: 0 12px; }
"""


def index_page():
    """The landing page: every app with its title, description and link."""
    pn.extension(notifications=False)
    intro = pn.pane.Markdown(
        "# kmeviz dashboards\n\nSee and play with kernel mean embeddings. "
        "Pick an explorer; every widget updates its plots live."
    )
    cards = pn.pane.HTML(index_cards(), stylesheets=[INDEX_CSS], sizing_mode="stretch_width")
    return pn.Column(intro, cards, margin=(10, 30), sizing_mode="stretch_width")
