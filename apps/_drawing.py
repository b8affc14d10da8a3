"""A view's HoloViews result drawn into Bokeh models in the thread that computed it."""

from __future__ import annotations

import functools
import threading

import holoviews as hv
import panel as pn
from bokeh.document import Document


def drawn(result):
    """A view's HoloViews result drawn into its Bokeh models where it was computed (a view
    thread), so the page's event loop only attaches them: drawn on the loop, a plot held
    it 0.45–0.6 s, and every other session's page waited. A ``DynamicMap`` (a plot that
    follows a stream) stays a HoloViews pane; anything else is returned as it is.

    The plot gets a new document: ``hv.render`` would take Bokeh's ``curdoc()``, which
    in a thread is the top of Bokeh's process-wide stack of patched documents, and an
    exception in any session's callback leaves its (later destroyed) document there for
    good ("Patched curdoc has been previously destroyed": every later view failed)."""
    if not isinstance(result, hv.core.dimension.Dimensioned) or result.traverse(
            lambda element: element, [hv.DynamicMap]):
        return result
    for attempt in range(DRAW_ATTEMPTS):
        with _DRAWING:
            try:
                return pn.pane.Bokeh(render(result))
            except AttributeError:  # a figure built while the loop's update had validation off
                if attempt == DRAW_ATTEMPTS - 1:
                    raise


def render(result):
    """The Bokeh model of a HoloViews result, in a document of its own (never Bokeh's
    ``curdoc()``, which a thread may find destroyed: ``drawn``)."""
    return server_renderer().get_plot(result, doc=Document()).state


@functools.cache
def server_renderer():
    """HoloViews' Bokeh renderer in server mode, as Panel's HoloViews pane uses it served:
    the mode in which ``get_plot`` takes the document it is given (made on first use, so
    importing an explorer loads no plotting backend)."""
    return hv.renderer("bokeh").instance(mode="server")


#: HoloViews updates a plot's data source with Bokeh's property validation off, and that
#: switch is process-wide (``bokeh.core.property.validation.validate(False)``): a figure
#: built in another thread meanwhile keeps its title a str and fails ("'str' object has
#: no attribute 'update'": 2 of 90 plots drawn by 6 threads at once, and 12 browser tests
#: in CI). View threads draw one at a time; a plot that meets an update on the event loop
#: (a DynamicMap's stream) is drawn again.
_DRAWING = threading.Lock()
DRAW_ATTEMPTS = 3
