"""kmeviz dashboards (installed as ``kmeviz_apps``): one Panel Viewer per app.

``APPS`` maps a URL slug to (title, "module:factory"); ``kmeviz serve`` serves
them all with an index page.
"""

APPS = {
    "circular": (
        "Circular discrepancy explorer",
        "kmeviz_apps.circular_explorer:create_app",
    ),
    "bootstrap": (
        "Bootstrap null explorer",
        "kmeviz_apps.bootstrap_explorer:create_app",
    ),
    "nystrom": (
        "Nyström error vs m",
        "kmeviz_apps.nystrom_error:create_app",
    ),
    "spectrum": (
        "Effective dimension spectrum",
        "kmeviz_apps.effective_dimension:create_app",
    ),
    "cme": (
        "Conditional mean embedding explorer",
        "kmeviz_apps.cme_explorer:create_app",
    ),
    "stein": (
        "Stein explorer",
        "kmeviz_apps.stein_explorer:create_app",
    ),
}
