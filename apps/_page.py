"""The common page of every kmeviz app: Panel's Fast list template without its web font,
the explorer's parameters kept in the URL."""

from __future__ import annotations

import panel as pn
from kmeviz_apps._url import sync_with_url

CSS = """
.kmeviz-caption { color: #555; font-size: 0.9em; margin-top: -6px; }
"""
#: the plots' tab titles wrap to a second line where the page is narrow (Bokeh clips them)
TABS_WRAP = ".bk-headers-wrapper { display: flex; flex-wrap: wrap; }"


#: The pages' font: the system's own (Panel's Fast design loads Open Sans from Google's
#: font host, so an offline classroom drew nothing for it and every visit was announced
#: to a third party)
SYSTEM_FONTS = ("system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, "
                "sans-serif")


class Fast(pn.theme.Fast):
    """Panel's Fast design without its web font: every request of a page goes to the
    kmeviz server itself. (The class keeps Panel's name: Panel finds a design's bundled
    files under its lower-cased class name.)"""

    # Private, with reason: Panel 1.9 reads the font from ``config.design._resources``
    # itself (panel/io/resources.py, ``Resources.css_files``), so overriding the public
    # ``resolve_resources`` left the link (tests/ui/test_served_security.py's
    # test_no_page_requests_another_host: 10 requests to fonts.googleapis.com).
    # tests/test_app_server.py's canary checks the member still exists.
    _resources = {**pn.theme.Fast._resources, "font": {}}


def page(title: str, sidebar, main, explorer=None,
         extensions: tuple = ()) -> pn.template.FastListTemplate:
    """The common page template of every kmeviz app; with ``explorer``, its parameters are
    kept in the URL (``sync_with_url``); ``extensions`` are Panel's (their code loads with
    every page)."""
    pn.extension(*extensions, raw_css=[CSS], notifications=False)
    if explorer is not None:  # the (hidden) notice sits in the first card, not a card of its own
        main = [pn.Column(sync_with_url(explorer), explorer.notice, main[0],
                          sizing_mode="stretch_width"),
                *main[1:]]
    return pn.template.FastListTemplate(
        title=f"kmeviz · {title}",
        sidebar=sidebar,
        main=main,
        accent="#2ca02c",
        design=Fast,
        font=SYSTEM_FONTS,
        font_url="",
        sidebar_width=330,
        header_background="#264653",
    )
