"""kmeviz dashboards (installed as ``kmeviz_apps``): one Panel Viewer per app, the server
and the ``kmeviz`` command, and the one registry of the apps.

``EXPLORERS`` is the only list of the apps: the index page, ``kmeviz serve``, the docs
gallery and ``kmeviz.apps`` (the notebooks' ``from kmeviz.apps import BootstrapExplorer``)
read it. Each app file is also servable on its own, the HoloViz way: ``panel serve
apps/bootstrap_explorer.py``. Importing an explorer changes no global Panel setting: the
server applies its own (``kmeviz_apps.server``).
"""

from __future__ import annotations

import importlib

#: URL slug -> (explorer class, module of ``kmeviz_apps``), in the index page's order. An
#: explorer's title is its class's ``title``. Adding an app is one line here.
EXPLORERS = {
    "circular": ("CircularExplorer", "circular_explorer"),
    "bootstrap": ("BootstrapExplorer", "bootstrap_explorer"),
    "nystrom": ("NystromErrorExplorer", "nystrom_error"),
    "spectrum": ("EffectiveDimensionExplorer", "effective_dimension"),
    "cme": ("CMEExplorer", "cme_explorer"),
    "stein": ("SteinExplorer", "stein_explorer"),
    "data": ("DataExplorer", "data_explorer"),
    "independence": ("IndependenceExplorer", "independence_explorer"),
    "conditional": ("ConditionalExplorer", "conditional_explorer"),
    "timeseries": ("TimeSeriesExplorer", "timeseries_explorer"),
}

_BY_NAME = {name: module for name, module in EXPLORERS.values()}

__all__ = list(_BY_NAME)


def explorer_class(slug: str):
    """The explorer class served at ``/slug`` (imports its module).

    Parameters
    ----------
    slug : str
        A key of ``EXPLORERS``.

    Returns
    -------
    type
        The ``kmeviz_apps`` Viewer class.
    """
    name, module = EXPLORERS[slug]
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def __getattr__(name: str):
    if name in _BY_NAME:
        return getattr(importlib.import_module(f"{__name__}.{_BY_NAME[name]}"), name)
    raise AttributeError(f"module 'kmeviz_apps' has no attribute {name!r}; the explorers "
                         f"are {', '.join(_BY_NAME)}")


def __dir__():
    return sorted([*globals(), *_BY_NAME])
