"""The dashboards' explorers, for notebooks: ``from kmeviz.apps import BootstrapExplorer``
then ``BootstrapExplorer(n=300)`` as a cell's last line shows the live explorer in
JupyterLab, the same class that ``kmeviz serve`` serves.

The explorers live in ``kmeviz_apps`` (Panel, HoloViews, Bokeh); this module imports them
on first use, so ``import kmeviz`` stays free of plotting libraries.
"""

from __future__ import annotations

import importlib

#: explorer name -> module of ``kmeviz_apps`` that defines it
EXPLORERS = {
    "CircularExplorer": "circular_explorer",
    "BootstrapExplorer": "bootstrap_explorer",
    "NystromErrorExplorer": "nystrom_error",
    "EffectiveDimensionExplorer": "effective_dimension",
    "SteinExplorer": "stein_explorer",
    "CMEExplorer": "cme_explorer",
}

__all__ = list(EXPLORERS)


def __getattr__(name: str):
    if name in EXPLORERS:
        return getattr(importlib.import_module(f"kmeviz_apps.{EXPLORERS[name]}"), name)
    raise AttributeError(f"module 'kmeviz.apps' has no attribute {name!r}; the explorers "
                         f"are {', '.join(EXPLORERS)}")


def __dir__():
    return sorted([*globals(), *EXPLORERS])
