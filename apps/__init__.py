"""kmeviz dashboards (installed as ``kmeviz_apps``): one Panel Viewer per app, the server
and the ``kmeviz`` command.

The apps are listed once, in ``kmeviz.apps.EXPLORERS`` (slug -> explorer class); the
index page, ``kmeviz serve`` and ``kmeviz.apps`` read it. Each app file is also servable
on its own, the HoloViz way: ``panel serve apps/bootstrap_explorer.py``.
"""
