"""Pages built off the event loop: an explorer's page (its widgets, its template and the
Bokeh models of both) is built in a thread of its own, never on the server's event loop.

Bokeh builds a session inside the page request, on the event loop: ``on_session_created``
(awaited) and then ``modify_document`` (not awaited). A page build is 0.3–0.6 s of
Python; 100 of them queued on the loop held an open page's α step for 44 s. Seats
(``_seats``) bound how many are built at once (which brought the α step under 1 s), but
each build still held the loop for its whole length. Here the whole build happens in
``on_session_created``, Bokeh's hook for per-session work "before ``modify_doc`` is called
for the session": it reaches the new document through the session context's public
``with_locked_document`` (exclusive access: no session exists yet) and awaits a build
thread, so the loop goes on serving every open page and static file meanwhile.
``modify_document`` is then left with nothing to do (or a short message when the build
failed: the log has the traceback, the browser does not).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import panel as pn
from bokeh.application.handlers.handler import Handler
from kmeviz_apps._jobs import built_off_the_loop
from panel.io.application import Application
from panel.io.state import set_curdoc

log = logging.getLogger("kmeviz.apps")

#: what a page shows when its build failed (its traceback is in the server log)
FAILED_TEXT = ("**This page could not be built.** The server log has the details; "
               "reload the page to try again.")


class ThreadBuiltPage(Handler):
    """A Bokeh handler whose page (``build()``: a Panel template) is built in a build
    thread while the event loop waits for it, not on the loop."""

    def __init__(self, build: Callable, title: str):
        super().__init__()
        self._build, self._title = build, title
        self._built: set = set()  # documents built in a build thread (by id)
        self._failed_docs: set = set()  # documents whose build raised (by id)

    async def on_session_created(self, session_context) -> None:
        async def build(doc) -> None:
            try:
                await built_off_the_loop(lambda: self._fill(doc))
            except Exception:
                log.exception("building a page failed [session %s]", session_context.id[:12])
                self._failed_docs.add(id(doc))

        await session_context.with_locked_document(build)

    def _fill(self, doc) -> None:
        with set_curdoc(doc):
            self._build().server_doc(doc=doc, title=self._title)
        self._built.add(id(doc))

    def modify_document(self, doc) -> None:
        """Built already (``on_session_created``); a failed build shows one line; a
        document that no session's creation built (Panel's ``--warm`` and
        ``--reuse-sessions`` make documents without one) is built here, in place."""
        if id(doc) in self._failed_docs:
            self._failed_docs.discard(id(doc))
            doc.clear()  # whatever the failed build had added
            with set_curdoc(doc):
                pn.pane.Markdown(FAILED_TEXT).server_doc(doc=doc, title=self._title)
        elif id(doc) in self._built:
            self._built.discard(id(doc))
        else:
            self._fill(doc)
            self._built.discard(id(doc))

    def url_path(self) -> str | None:
        return None


def thread_built_application(build: Callable, title: str, *, admin: bool = False
                             ) -> Application:
    """A Panel application serving ``build()``'s page, built off the event loop."""
    return Application(ThreadBuiltPage(build, title), admin=admin)
