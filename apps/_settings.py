"""What a kmeviz server is configured with, as one object (``ServerSettings``) in one
ContextVar (issue 57: no module-level server state).

``build_server`` (``kmeviz serve``) sets it in the thread that then runs the server:
Tornado's request and websocket tasks, the build threads of pages and the job threads of
views copy that context, so each reads the settings of the server it serves. A notebook
or ``panel serve apps/x.py`` reads the defaults. ``using(settings)`` sets them for a block
(the tests)."""

from __future__ import annotations

import contextlib
import contextvars
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from kmeviz.loading.files import UPLOAD_LIMITS, TableLimits


def upload_limits(max_rows: int = UPLOAD_LIMITS["rows"],
                  max_columns: int = UPLOAD_LIMITS["columns"],
                  max_cells: int = UPLOAD_LIMITS["cells"]) -> TableLimits:
    """The largest table an upload may become, checked before it is parsed (``kmeviz
    serve --max-rows/--max-columns/--max-cells``; a refusal names the option)."""
    return TableLimits(max_rows=max_rows, max_columns=max_columns, max_cells=max_cells,
                       raised_by={what: f"kmeviz serve --max-{what}"
                                  for what in ("rows", "columns", "cells")})


@dataclass(frozen=True)
class ServerSettings:
    """A server's settings (``kmeviz serve``'s options).

    Attributes
    ----------
    time_budget : float
        Seconds one computation of a page may take (``--time-budget``).
    page_memory_bytes : int
        Bytes one computation may hold at once (``--page-memory-mb``).
    max_upload_bytes : int
        The largest file a page may upload (``--max-upload-mb``).
    upload_limits : TableLimits
        The largest table an upload may become (``--max-rows/--max-columns/--max-cells``).
    seats : Seats or None
        The server's queue of pages being built (``--seats``, ``--max-waiting``); None:
        pages are built as they are asked for (a page served by ``panel serve``).
    admin_user : str or None
        The one user who may open the admin page (``--admin-user``), under
        ``admin_path``; None: no such restriction.
    admin_path : str
    view_threads : ThreadPoolExecutor
        The threads that compute every session's views and live plots (``--num-threads``):
        a class of 100 changing a widget at once queues here instead of running 100
        threads against each other.
    build_threads : ThreadPoolExecutor
        The threads pages are built in (``_build``): one per seat, one for the index.
    """

    time_budget: float = 20.0
    page_memory_bytes: int = 256 * 1024**2
    max_upload_bytes: int = 50 * 1024**2
    upload_limits: TableLimits = field(default_factory=upload_limits)
    seats: object = None
    admin_user: str | None = None
    admin_path: str = "/admin"
    view_threads: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(4, thread_name_prefix="kmeviz-view"))
    build_threads: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(3, thread_name_prefix="kmeviz-build"))


_SETTINGS: contextvars.ContextVar = contextvars.ContextVar("kmeviz_server_settings")


def current() -> ServerSettings:
    """The settings of the server this code runs for (the defaults outside one)."""
    try:
        return _SETTINGS.get()
    except LookupError:
        return DEFAULT


def set_settings(settings: ServerSettings) -> None:
    """Make ``settings`` the current ones for this thread's context and every context
    copied from it later (``build_server``, before its server starts)."""
    if not isinstance(settings, ServerSettings):
        raise TypeError(f"settings must be a ServerSettings, got {settings!r}")
    _SETTINGS.set(settings)


@contextlib.contextmanager
def using(settings: ServerSettings):
    """``settings`` for the block, the former ones after it."""
    token = _SETTINGS.set(settings)
    try:
        yield settings
    finally:
        _SETTINGS.reset(token)


DEFAULT = ServerSettings()
