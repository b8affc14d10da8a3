"""Rows of a served page that are built when they scroll into view.

Every HoloViews plot a page shows costs the server 0.1–0.2 s of CPU to build into Bokeh
models (issue 29: a page without plots cost 0.28 s per session, each plot added about
0.2 s). A row below the fold is therefore only a placeholder of its height until the
browser reports, through an ``IntersectionObserver``, that it is within ``MARGIN`` of
the visible area; then the server builds it. A student who never scrolls never costs
the server those plots, and one who does sees them appear as they come into view.
"""

from __future__ import annotations

from collections.abc import Callable

import panel as pn
import param
from panel.reactive import ReactiveHTML

#: a row is built when it comes this close to the visible part of the page
MARGIN = "200px"


class Shown(ReactiveHTML):
    """A marker whose ``shown`` turns true once the browser has scrolled it near view."""

    shown = param.Boolean(default=False)

    _template = '<div id="marker" style="width: 100%; height: 1px;"></div>'
    _scripts = {
        "render": f"""
const observer = new IntersectionObserver((entries) => {{
  if (entries.some((entry) => entry.isIntersecting)) {{
    data.shown = true;
    observer.disconnect();
  }}
}}, {{rootMargin: "{MARGIN}"}});
observer.observe(marker);
state.observer = observer;
""",
        "remove": "if (state.observer) { state.observer.disconnect(); }",
    }


def when_shown(build: Callable[[], pn.viewable.Viewable], height: int) -> pn.Column:
    """A column that holds a placeholder of ``height`` pixels until it scrolls into
    view, and then ``build()`` (called once, in the session's own thread)."""
    marker = Shown(height=1, margin=0, sizing_mode="stretch_width")
    waiting = pn.pane.Markdown("Drawn when scrolled into view …",
                               css_classes=["kmeviz-lazy", "kmeviz-caption"])
    holder = pn.Column(marker, waiting, min_height=height, sizing_mode="stretch_width")

    def show(event):
        if event.new:
            holder.param.update(objects=[build()], min_height=None)

    marker.param.watch(show, "shown")
    return holder
