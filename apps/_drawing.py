"""A view's HoloViews result drawn into Bokeh models in the thread that computed it."""

from __future__ import annotations

import threading

import holoviews as hv
import panel as pn


def drawn(result):
    """A view's HoloViews result drawn into its Bokeh models where it was computed (a view
    thread), so the page's event loop only attaches them: drawn on the loop, a plot held
    it 0.45–0.6 s, and every other session's page waited. A ``DynamicMap`` (a plot that
    follows a stream) stays a HoloViews pane; anything else is returned as it is."""
    if not isinstance(result, hv.core.dimension.Dimensioned) or result.traverse(
            lambda element: element, [hv.DynamicMap]):
        return result
    for attempt in range(DRAW_ATTEMPTS):
        with _DRAWING:
            try:
                return pn.pane.Bokeh(hv.render(result, backend="bokeh"))
            except AttributeError:  # a figure built while the loop's update had validation off
                if attempt == DRAW_ATTEMPTS - 1:
                    raise


#: HoloViews updates a plot's data source with Bokeh's property validation off, and that
#: switch is process-wide (``bokeh.core.property.validation.validate(False)``): a figure
#: built in another thread meanwhile keeps its title a str and fails ("'str' object has
#: no attribute 'update'": 2 of 90 plots drawn by 6 threads at once, and 12 browser tests
#: in CI). View threads draw one at a time; a plot that meets an update on the event loop
#: (a DynamicMap's stream) is drawn again.
_DRAWING = threading.Lock()
DRAW_ATTEMPTS = 3
