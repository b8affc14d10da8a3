"""What the server log says about a session: its id and its explorer's page and
parameters (imported by the job runner and the server without importing the apps)."""

from __future__ import annotations

import panel as pn
from kmeviz_apps._url import url_parameters


def session_tag() -> str:
    """The current browser session's id, shortened for the log ("" outside a server)."""
    doc = pn.state.curdoc
    context = doc.session_context if doc is not None else None
    return f"session {context.id[:12]}" if context is not None else ""


def describe(explorer) -> str:
    """The explorer's app, session, page URL and parameters, for the server log (work
    that outlives its page, or runs in a thread of its own, keeps the page's)."""
    if explorer is None:
        return "(no explorer)"
    location = pn.state.location
    url = location.href if location is not None and location.href else None
    tag, url = session_tag() or explorer.served_at[0], url or explorer.served_at[1]
    values = {name: getattr(explorer, name) for name in url_parameters(explorer)}
    return f"{type(explorer).__name__} [{tag}] at {url} with {values}"
