"""The dashboards' explorers for notebooks: ``from kmeviz.apps import BootstrapExplorer``,
then ``BootstrapExplorer(n=300)`` as a cell's last line shows the live explorer in
JupyterLab, the same class that ``kmeviz serve`` serves.

This module belongs to the apps layer (it imports ``kmeviz_apps``, hence Panel, HoloViews
and Bokeh); ``import kmeviz`` never imports it, and no core module does
(``tests/test_layers.py``). The registry itself is ``kmeviz_apps.EXPLORERS``.
"""

from __future__ import annotations

import kmeviz_apps
from kmeviz_apps import EXPLORERS, explorer_class

__all__ = ["EXPLORERS", "explorer_class", *kmeviz_apps.__all__]


def __getattr__(name: str):
    if name in kmeviz_apps.__all__:
        return getattr(kmeviz_apps, name)
    raise AttributeError(f"module 'kmeviz.apps' has no attribute {name!r}; the explorers "
                         f"are {', '.join(kmeviz_apps.__all__)}")


def __dir__():
    return sorted([*globals(), *kmeviz_apps.__all__])
