"""Pages are built off the event loop (``apps/_build.py``, issue 45 finding 6): while one
page takes 1.5 s to build, the same server answers another page at once; the build runs
in a ``kmeviz-build`` thread; a build that fails shows one line, never a traceback."""

from __future__ import annotations

import threading
import time
import urllib.request

import panel as pn
import pytest
from bokeh.document import Document
from kmeviz_apps._build import FAILED_TEXT, thread_built_application

BUILD_SECONDS = 1.5


@pytest.fixture
def served():
    """A Panel server in a thread of its own with a slow page, a quick page and a page
    whose build raises; yields (url, the names of the threads that built the slow page)."""
    builders = []

    def slow():
        builders.append(threading.current_thread().name)
        time.sleep(BUILD_SECONDS)  # stands for a page's Python work
        return pn.Column(pn.pane.Markdown("slow page built"))

    def broken():
        raise RuntimeError("secret detail /srv/kmeviz")

    apps = {"slow": thread_built_application(slow, "slow"),
            "broken": thread_built_application(broken, "broken"),
            "quick": lambda: pn.pane.Markdown("quick page")}
    server = pn.serve(apps, port=0, start=False, show=False, threaded=False)
    server.start()
    loop_thread = threading.Thread(target=server.io_loop.start, daemon=True)
    loop_thread.start()
    try:
        yield f"http://localhost:{server.port}/", builders, server
    finally:
        server.io_loop.add_callback(server.stop)
        server.io_loop.add_callback(server.io_loop.stop)
        loop_thread.join(timeout=10)


def texts(server, slug: str) -> str:
    """The text of every Markdown in the documents of ``slug``'s sessions."""
    return " ".join(str(model.text) for session in server.get_sessions(f"/{slug}")
                    for model in session.document.models if hasattr(model, "text"))


def fetch(url: str) -> tuple[float, str]:
    start = time.monotonic()
    with urllib.request.urlopen(url, timeout=30) as reply:
        body = reply.read().decode()
    return time.monotonic() - start, body


def test_the_loop_answers_another_page_while_one_is_built(served):
    url, builders, server = served
    slow = threading.Thread(target=fetch, args=(url + "slow",))
    slow.start()
    deadline = time.monotonic() + 10
    while not builders and time.monotonic() < deadline:
        time.sleep(0.01)
    assert builders, "the slow page's build never started"
    seconds, body = fetch(url + "quick")  # during the slow page's 1.5 s build
    slow.join()
    # built on the loop, this request waited for the whole build (about 1.5 s)
    assert seconds < 0.5 * BUILD_SECONDS, f"the quick page took {seconds:.2f} s"
    assert "Traceback" not in body and "slow page built" in texts(server, "slow")
    assert len(builders) == 1 and builders[0].startswith("kmeviz-build")


def test_a_failed_build_shows_one_line_and_no_traceback(served):
    url, _, server = served
    _, body = fetch(url + "broken")
    shown = texts(server, "broken")
    assert "could not be built" in shown and "The server log has the details" in shown
    assert FAILED_TEXT.startswith("**This page could not be built.**")
    assert "secret detail" not in shown + body and "Traceback" not in shown + body


def test_a_document_made_without_a_session_is_built_in_place():
    """Panel's --warm and --reuse-sessions initialise documents with no session created:
    those are built where they are initialised."""
    app = thread_built_application(lambda: pn.pane.Markdown("built in place"), "t")
    doc = Document()
    app.initialize_document(doc)
    assert "built in place" in " ".join(str(getattr(m, "text", "")) for m in doc.models)
