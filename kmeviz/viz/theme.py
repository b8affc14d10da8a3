"""Shared look of every kmeviz plot: the colours and labels of the two samples, and sizes.

Sizes depend on where a plot is shown, not on the plot: a notebook cell wants a fixed
size (so two plots fit side by side in a layout), a served dashboard wants plots that
stretch with the page. Builders ask ``size(height)``; the server switches every builder
to stretching with ``set_sizing("stretch")``, so neither notebooks nor apps override sizes.
"""

from __future__ import annotations

import contextlib

COLOR_X, COLOR_Y, COLOR_ACCENT = "#1f77b4", "#d62728", "#2ca02c"
LABEL_X, LABEL_Y = "X ~ P", "Y ~ Q"

#: Width of a plot in a notebook: two fit side by side in JupyterLab's default cell width.
NOTEBOOK_WIDTH = 460
SIZINGS = ("fixed", "stretch")
_state = {"sizing": "fixed"}


def set_sizing(mode: str) -> None:
    """``"fixed"`` (notebooks, exports; the default) or ``"stretch"`` (served dashboards)."""
    if mode not in SIZINGS:
        raise ValueError(f"sizing must be one of {SIZINGS}, got {mode!r}")
    _state["sizing"] = mode


def get_sizing() -> str:
    return _state["sizing"]


@contextlib.contextmanager
def sizing(mode: str):
    """Build plots with ``mode`` inside the block, then restore the previous sizing."""
    previous = get_sizing()
    set_sizing(mode)
    try:
        yield
    finally:
        set_sizing(previous)


def size(height: int) -> dict:
    """Plot options for a plot of this ``height``: fixed width and height, or stretching to
    the page width with ``height`` as its minimum."""
    if _state["sizing"] == "stretch":
        return {"responsive": True, "min_height": height}
    return {"responsive": False, "width": NOTEBOOK_WIDTH, "height": height}
