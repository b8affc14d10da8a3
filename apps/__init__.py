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
}
