"""Shared look of every kmeviz plot: the colours and labels of the two samples, and sizes.

Sizes depend on where a plot is shown, not on the plot: a notebook cell wants a fixed
size (so two plots fit side by side in a layout), a served dashboard wants plots that
stretch with the page. Builders ask ``size(height)``; a served explorer builds its plots
inside ``sizing("stretch")`` (per thread, so a notebook in the same process keeps fixed
sizes), and ``set_sizing`` changes the process default.
"""

from __future__ import annotations

import contextlib
import threading

COLOR_X, COLOR_Y, COLOR_ACCENT = "#1f77b4", "#d62728", "#2ca02c"
LABEL_X, LABEL_Y = "X ~ P", "Y ~ Q"

#: Width of a plot in a notebook: two fit side by side in JupyterLab's default cell width.
NOTEBOOK_WIDTH = 460
SIZINGS = ("fixed", "stretch")
_default = {"sizing": "fixed"}
_local = threading.local()


def _checked(mode: str) -> str:
    if mode not in SIZINGS:
        raise ValueError(f"sizing must be one of {SIZINGS}, got {mode!r}")
    return mode


def set_sizing(mode: str) -> None:
    """The process default: ``"fixed"`` (notebooks, exports) or ``"stretch"``."""
    _default["sizing"] = _checked(mode)


def get_sizing() -> str:
    """The sizing in force in this thread (``sizing``), else the process default."""
    return getattr(_local, "sizing", None) or _default["sizing"]


@contextlib.contextmanager
def sizing(mode: str):
    """Build plots with ``mode`` inside the block, in this thread only, then restore."""
    previous = getattr(_local, "sizing", None)
    _local.sizing = _checked(mode)
    try:
        yield
    finally:
        _local.sizing = previous


def size(height: int) -> dict:
    """Plot options for a plot of this ``height``: fixed width and height, or stretching to
    the page width with ``height`` as its minimum."""
    if get_sizing() == "stretch":
        return {"responsive": True, "min_height": height}
    return {"responsive": False, "width": NOTEBOOK_WIDTH, "height": height}
