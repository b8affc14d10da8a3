"""Serve every kmeviz app with an index page (``kmeviz serve``), and the settings a server
applies (``configure_server``) whether it is ``kmeviz serve`` or ``panel serve`` on an
app file.

The server lives with the apps: the numerical core (``kmeviz``) never imports it, Panel,
HoloViews or Bokeh.
"""

from __future__ import annotations

import gc
import logging
import re
import threading
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import panel as pn
from bokeh.core.validation import silence
from bokeh.core.validation.warnings import FIXED_SIZING_MODE
from bokeh.server.urls import per_app_patterns
from kmeviz_apps import EXPLORERS, explorer_class
from kmeviz_apps._build import thread_built_application
from kmeviz_apps._index import index_page
from kmeviz_apps._log import session_tag
from kmeviz_apps._seats import CURRENT_SEAT, Seats, waiting_page
from kmeviz_apps._settings import ServerSettings, current, set_settings, upload_limits
from panel.io.server import DocHandler as PanelDocHandler
from panel.io.server import WSHandler as PanelWSHandler
from threadpoolctl import threadpool_limits
from tornado.web import HTTPError

import kmeviz
from kmeviz.loading.files import UPLOAD_LIMITS

_configured = threading.Lock()
#: How long a page's session waits for the page's websocket: under load a browser's
#: websocket arrived more than 5 s after its page, and Bokeh built the session again
#: (11 of 30, 85 of 100 sessions built twice)
UNUSED_SESSION_SECONDS = 60.0




def is_loopback(origin: str) -> bool:
    """An Origin naming this machine by a loopback address (``localhost``, ``127.0.0.1``,
    ``[::1]``): only a page served from this machine has it, never a rebinding host name."""
    host = urllib.parse.urlsplit(origin).hostname or ""
    return host in ("localhost", "127.0.0.1", "::1")


#: what a client is told when the server cannot apply its message (the log has the rest)
CLIENT_ERROR_TEXT = "the server could not apply this message"


def admin_allowed(user, path: str) -> bool:
    """Whether ``user`` (a name, or Tornado's cookie bytes) may request ``path``: anything
    under the admin page needs the admin user, when one is set."""
    settings = current()
    if settings.admin_user is None or not (path == settings.admin_path
                                           or path.startswith(settings.admin_path + "/")):
        return True
    name = user.decode() if isinstance(user, bytes) else user
    return name == settings.admin_user


def authorize(user_info, path: str) -> bool:
    """Panel's ``authorize_callback`` of a served page: the admin page is the admin
    user's alone (every other page is every logged-in user's)."""
    return admin_allowed((user_info or {}).get("user"), path)


def defuse_query(query: str) -> str:
    """``query`` with every value that Panel's own query parsing would crash on quoted:
    ``str.isdigit`` is true for '²' or 5000 digits, and then Panel's ``int()`` raises
    while it builds ``pn.state.location`` (a bare 500 before any kmeviz code runs). Quoted,
    the value is text, which the explorer's own parser refuses and names in its notice."""
    pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
    risky = [(k, v) for k, v in pairs if v.isdigit() and (not v.isascii() or len(v) > 200)]
    if not risky:
        return query
    return urllib.parse.urlencode([(k, f"'{v[:200]}'" if (k, v) in risky else v)
                                   for k, v in pairs])


#: a Host header a page request may carry: a name or IPv4 address, then an optional port.
#: An IPv6 literal ("[::1]:5088") gave HTTP 500 and a traceback from Panel's reading of
#: the page's address; it gets 400 (use a name: localhost).
HOST_FORM = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})(?::[0-9]{1,5})?")


def known_host(host: str, origins) -> bool:
    """Whether a page request's Host header names this server: a loopback name, or one of
    the origins its websockets accept (``--allow-websocket-origin``; a name without a port
    is port 80). Any other Host (a DNS-rebinding name) built a session for nothing."""
    host = (host or "").lower()
    if is_loopback(f"http://{host}"):
        return True
    return host in origins or (":" not in host and f"{host}:80" in origins)


class PageHandler(PanelDocHandler):
    """Panel's page handler with kmeviz's checks in Tornado's public ``prepare`` hook,
    before Bokeh and Panel read the request: a Host that is not this server's is refused
    (``known_host``); an explorer's page waits for a seat (``_seats``: the server builds a
    few pages at a time, and a full queue gets the "waiting for a seat" page); and a query
    that ``defuse_query`` changes is redirected to its defused form first (the browser's
    address is what its Location sends back later). A seat that no explorer took charge
    of (the index page, a failed request) is released when the response is finished
    (``on_finish``). Pinned by ``tests/ui/test_fuzz.py`` (a link with '²' is redirected,
    then answers 200, not 500) and ``tests/ui/test_seats.py``."""

    async def prepare(self):
        request = self.request
        if not HOST_FORM.fullmatch(request.host or ""):
            raise HTTPError(400, "malformed Host")  # Panel's page code cannot read it
        if not known_host(request.host, self.application.websocket_origins):
            raise HTTPError(403, "unknown Host")  # before a session is built for it
        query = defuse_query(request.query)
        if query != request.query:
            # the browser's own address must hold the defused query too: its Location
            # sends the address back, and Panel's parsing of it failed on the raw one
            self.redirect(f"{request.path}?{query}")
            return
        seats = current().seats
        explorer_page = (seats is not None
                         and request.path.rstrip("/").rsplit("/", 1)[-1] in EXPLORERS)
        self.kmeviz_seat = await seats.take() if explorer_page else None
        if explorer_page and self.kmeviz_seat is None:
            self.set_status(503)
            self.set_header("Retry-After", "5")
            self.finish(waiting_page(seats.queued))
            return
        CURRENT_SEAT.set(self.kmeviz_seat)  # the explorer built by this request claims it
        await super().prepare()

    def on_finish(self):
        seat = getattr(self, "kmeviz_seat", None)
        if seat is not None and seat.claimed:
            seat.page_sent()
        elif seat is not None:
            seat.release()
        super().on_finish()


class SocketHandler(PanelWSHandler):
    """Panel's websocket handler with three of kmeviz's rules, in public hooks:

    - ``prepare`` (Tornado) checks every websocket's Origin against the server's
      allowlist, whatever its Host. Tornado calls ``check_origin`` only for requests that
      look cross-origin: one whose Origin equals its Host header is let through unchecked,
      so a page on a DNS-rebinding host name (``Host: evil.example:5006``, ``Origin:
      http://evil.example:5006``) could drive a lecturer's loopback server; it gets 403
      (loopback origins are this machine's own pages, as under ``panel serve``). The admin
      page's websocket is the admin user's alone.
    - ``on_close`` (Tornado): the page is gone, so its session ends at the next check
      (``request_expiration``; a page whose websocket has not arrived yet keeps its
      session for ``UNUSED_SESSION_SECONDS``).
    - ``send_message`` (Bokeh): a message the server cannot apply (a malformed PATCH-DOC
      from a hand-made client) is answered with Bokeh's ERROR reply, which carries the
      full traceback (server paths, the Python version); it goes out with one fixed line
      and no traceback. Bokeh has logged the details.

    ``tests/ui/test_served_security.py`` sends such requests and messages."""

    async def prepare(self):
        origin = self.request.headers.get("Origin")
        if origin is not None and not (is_loopback(origin) or self.check_origin(origin)):
            raise HTTPError(403, "websocket Origin not allowed")
        if not admin_allowed(self.current_user, self.request.path):
            raise HTTPError(403, "the admin page is for --admin-user only")
        await super().prepare()

    def on_close(self):
        session = self.connection.session if self.connection is not None else None
        super().on_close()
        if session is not None:
            session.request_expiration()

    async def send_message(self, message):
        if getattr(message, "msgtype", None) == "ERROR":
            message.content.update(text=CLIENT_ERROR_TEXT, traceback=None)
        return await super().send_message(message)


def install_handlers() -> None:
    """Serve every app through ``PageHandler`` and ``SocketHandler``: Bokeh builds each
    app's routes from ``bokeh.server.urls.per_app_patterns`` and takes no argument to
    choose their handlers, so the entries Panel put there (its own subclasses, installed
    the same way) are replaced by kmeviz's subclasses of them. The one change kmeviz makes
    to Bokeh's or Panel's objects; ``tests/test_app_server.py`` checks it still routes."""
    ours = {PanelDocHandler: PageHandler, PanelWSHandler: SocketHandler}
    per_app_patterns[:] = [(route, ours.get(handler, handler))
                           for route, handler in per_app_patterns]


def limit_compute_threads(compute_threads: int) -> None:
    """Each computation uses at most ``compute_threads`` cores: kmeviz's engine threads
    (``set_config(n_threads=...)``) and BLAS/LAPACK threads (threadpoolctl), process-wide.
    With one thread per computation, a session running a heavy state leaves the other
    cores to everyone else's cheap changes."""
    kmeviz.set_config(n_threads=compute_threads)
    threadpool_limits(limits=compute_threads, user_api="blas")  # until changed again


LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure_logging(level: str = "info") -> None:
    """The server's log on stderr with timestamps: kmeviz's sessions and errors (with the
    app, URL and parameters), Bokeh's and Tornado's requests, at ``level``."""
    logging.basicConfig(format=LOG_FORMAT, level=level.upper(), force=True)
    for name in ("kmeviz", "kmeviz.apps", "bokeh", "tornado"):
        logging.getLogger(name).setLevel(level.upper())


def log_callback_error(exc: BaseException) -> None:
    """Panel's ``exception_handler`` for the server: an exception in a widget callback goes
    to the server log with its traceback, session and page URL, and is not re-raised into
    Bokeh (which would send the traceback to the browser in an ERROR message)."""
    location = pn.state.location if pn.state.curdoc is not None else None
    url = location.href if location is not None else "(no page)"
    logging.getLogger("kmeviz.apps").error("unexpected error in a callback [%s] at %s",
                                           session_tag() or "no session", url, exc_info=exc)


def configure_server(compute_threads: int | None = None) -> None:
    """What a kmeviz server process needs (idempotent): kmeviz's page and websocket
    handlers (a real origin check of websockets, no traceback to a client, page queries
    Panel can parse, seats), callback errors logged instead of sent to the browser, and
    ``compute_threads`` cores per computation (when given; ``build_server`` gives it). The
    server's own settings (budget, uploads, seats, admin) are a ``ServerSettings`` that
    ``build_server`` sets (``_settings``)."""
    with _configured:
        install_handlers()
        # Bokeh's W-1005 fires for a plot whose size a stretching layout sets later: noise
        # that buried real errors (about 10 per session)
        silence(FIXED_SIZING_MODE, True)
        pn.config.exception_handler = log_callback_error
        if compute_threads is not None:
            limit_compute_threads(compute_threads)


def freeze_startup_heap() -> None:
    """Move everything the server holds after start-up (Panel, HoloViews, Bokeh, numpy and
    the explorers' modules: about 250 000 objects) out of the garbage collector's sight
    (``gc.freeze``). Each closed session triggers a full collection (Panel schedules one),
    and building a page's many Bokeh models triggers the collector's own; walking the
    start-up heap cost 0.1 s each time. Objects made later are collected as before."""
    for slug in EXPLORERS:
        explorer_class(slug)  # imports the explorer's module
    import holoviews.plotting.bokeh  # noqa: F401 - the backend every page draws with

    gc.collect()
    gc.freeze()


def build_server(*, address: str = "127.0.0.1", port: int = 5006, show: bool = False,
                 num_threads: int = 4, num_procs: int = 1, compute_threads: int = 1,
                 allow_websocket_origin: list[str] | tuple = (), prefix: str = "",
                 basic_auth: str | None = None, cookie_secret: str | None = None,
                 admin: bool = False, warm: bool = False, reuse_sessions: bool = False,
                 oauth: dict | None = None, time_budget: float = 20.0,
                 max_upload_mb: float = 50.0, admin_user: str | None = None,
                 seats: int = 2, max_waiting: int = 300,
                 max_rows: int = UPLOAD_LIMITS["rows"],
                 max_columns: int = UPLOAD_LIMITS["columns"],
                 max_cells: int = UPLOAD_LIMITS["cells"], page_memory_mb: float = 256.0):
    """A started-but-not-running Panel server for all apps; returns (server, url).

    Each page is built in a build thread (``_build``), never on the event loop; its
    widget events are applied on the event loop, one at a time and in order; views
    compute as jobs (``_jobs``) in ``num_threads`` shared threads, so a heavy computation
    in one session does not block the others; and each computation uses
    ``compute_threads`` cores. ``prefix``, ``basic_auth``, ``cookie_secret``, ``admin``,
    ``warm``, ``reuse_sessions`` and the ``oauth_*`` settings in ``oauth`` are ``panel
    serve``'s own options. One computation of a session may take ``time_budget``
    seconds; it is then stopped with a message (``kmeviz.budget``), and may hold
    ``page_memory_mb`` at once (estimated before it runs: refused, or skipped in a
    comparison, with a message naming the setting to lower). A session may upload
    files of up to ``max_upload_mb`` (sent in chunks of at most 10 MB, under Bokeh's
    websocket message limit), each a table of at most ``max_rows``, ``max_columns`` and
    ``max_cells``, checked before it is parsed. With ``admin_user``, the admin page (and
    its websocket) is that logged-in user's alone. At most ``seats`` pages are built at
    once and ``max_waiting`` more wait for a seat (``_seats``).
    """
    configure_server(compute_threads)
    settings = ServerSettings(
        time_budget=float(time_budget), page_memory_bytes=int(page_memory_mb * 1024**2),
        max_upload_bytes=int(max_upload_mb * 1024**2),
        upload_limits=upload_limits(max_rows, max_columns, max_cells),
        seats=Seats(seats, max_waiting), admin_user=admin_user if admin else None,
        admin_path=f"{prefix}/admin",
        view_threads=ThreadPoolExecutor(num_threads, thread_name_prefix="kmeviz-view"),
        # a build per seat, and one for the index page
        build_threads=ThreadPoolExecutor(seats + 1, thread_name_prefix="kmeviz-build"))
    set_settings(settings)  # this thread's context: the server's tasks and threads copy it
    if reuse_sessions:
        pn.config.reuse_sessions = True
    if settings.admin_user is not None:
        pn.config.authorize_callback = authorize
    titles = {"/": "kmeviz", **{slug: explorer_class(slug).title for slug in EXPLORERS}}
    apps = {"/": thread_built_application(index_page, titles["/"], admin=admin),
            **{slug: thread_built_application(explorer_class(slug).create_app,
                                              titles[slug], admin=admin)
               for slug in EXPLORERS}}
    origins = [f"{host}:{port}" for host in {address, "localhost", "127.0.0.1"}]
    origins += list(allow_websocket_origin)
    extra = {"prefix": prefix} if prefix else {}
    server = pn.serve(apps, address=address, port=port, show=show, start=False, title=titles,
                      websocket_origin=origins, threaded=False, num_procs=num_procs,
                      basic_auth=basic_auth, cookie_secret=cookie_secret, admin=admin,
                      warm=warm, **(oauth or {}), **extra,
                      # a closed tab's session (and its computation) ends within ~1 s
                      # (``SocketHandler.on_close``: expired when its websocket closes);
                      # a page waits for its websocket this long before its session goes
                      check_unused_sessions_milliseconds=1000,
                      unused_session_lifetime_milliseconds=int(1000 * UNUSED_SESSION_SECONDS))
    freeze_startup_heap()
    host = "localhost" if address in ("127.0.0.1", "0.0.0.0", "") else address
    return server, f"http://{host}:{server.port}{server.prefix}/"
