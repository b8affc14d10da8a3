"""The "Your data" explorer's upload box: the dropper, its message, and the table of the
files in it (read in this session only, never shared)."""

from __future__ import annotations

import hashlib
import logging

import panel as pn
from kmeviz_apps._own_data import (
    MAX_LISTED,
    PCS,
    BoundedFileDropper,
    as_bytes,
    offered_choices,
    upload_frame,
)
from kmeviz_apps._settings import current as server_settings
from kmeviz_apps._url import plain

from kmeviz.budget import BudgetExceeded
from kmeviz.loading import FORMATS, read_table

log = logging.getLogger("kmeviz.apps")

#: What the browser lets through: the extensions, and the MIME types browsers report for
#: them (Windows with Excel sends a .csv as application/vnd.ms-excel, a .npz is a zip,
#: a .npy or .parquet has no registered type). The server judges a file by its extension
#: and content (``read_table``), never by the type the browser sent.
ACCEPTED = [*FORMATS, "text/csv", "text/plain", "text/tab-separated-values",
            "text/comma-separated-values", "text/x-csv", "application/csv",
            "application/x-csv", "application/vnd.ms-excel", "application/zip",
            "application/x-zip-compressed", "application/octet-stream"]


def upload_note() -> str:
    """What the upload box takes (the server's limit read when a page opens)."""
    settings = server_settings()
    limits, megabytes = settings.upload_limits, settings.max_upload_bytes / 1024**2
    return (f"One table with a group column, or two tables (one per sample): CSV, TSV, "
            f".npy, .npz, Parquet; at most {megabytes:g} MB per file, "
            f"{limits.max_rows:,} rows and {limits.max_columns:,} columns. "
            "A file stays in this session's memory only.")


def digest_of(*parts: bytes) -> str:
    """The sha256 of the parts one after another, without joining them (a join copied
    every uploaded file once more)."""
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(part)
    return hasher.hexdigest()


class UploadBox:
    """The files in the upload box as one table: one file with a group column, or the
    newest two as one sample each, however the browser delivered them (together, one at
    a time, or in two drops). A file that cannot be read is left out and named; a set
    that cannot be compared clears the upload (no stale table). ``on_change(upload,
    keep_current=...)`` receives (key, table, names, group candidates, the widgets' first
    offer: ``offered_choices``) or None. Reading and splitting the files, and what the
    widgets offer, is a job of the explorer ``owner``: under its time budget,
    stopped when its page closes."""

    def __init__(self, on_change, owner):
        self._on_change, self._owner = on_change, owner
        self._job = owner.job()  # reading the files, one drop at a time
        self._read: dict = {}  # sha256 of a dropped file -> its table, or why it is unreadable
        max_bytes = server_settings().max_upload_bytes
        limit = max_bytes / 1024**2
        self.dropper = BoundedFileDropper(
            max_bytes=max_bytes, on_refused=self._refuse, multiple=True, max_files=2,
            max_file_size=f"{limit:g}MB", accepted_filetypes=ACCEPTED,
            sizing_mode="stretch_width", label="Your table(s)")
        self.dropper.param.watch(self.receive, "value")
        self.message = pn.pane.Markdown(upload_note(), css_classes=["kmeviz-upload-note"])

    def widgets(self) -> list:
        return [self.dropper, self.message]

    def receive(self, event) -> None:
        """Read the files now in the box (``event.new``: {name: content}) as a job of the
        owner (``_jobs``: off the event loop, within the session's time budget, stopped
        when its page closes or newer files arrive), then switch."""
        files = dict(event.new or {})
        self._job.start(lambda emit: emit(self._outcome(files)), self._show_outcome)

    def _show_outcome(self, outcome, error) -> None:
        if isinstance(error, BudgetExceeded):
            self._read = {}
            self._say("**These files cannot be used:** reading them took longer than the "
                      f"session's time budget of {self._owner.budget_seconds:g} s (kmeviz "
                      "serve --time-budget sets it); try a smaller file", "error")
            self._on_change(None, keep_current=False)
            return
        if error is not None:
            log.error("reading an upload failed", exc_info=error)
            self._say("**These files cannot be used:** reading them failed; the server "
                      "log has the details", "error")
            self._on_change(None, keep_current=False)
            return
        text, kind, upload, keep_current, self._read = outcome
        self._say(text, kind)
        self._on_change(upload, keep_current=keep_current)

    def _outcome(self, files: dict) -> tuple:
        """(message, its kind, the upload or None, keep_current, the files read) for the
        files in the box."""
        read, frames, unreadable = self._read_dropped(files)
        left_out = "".join(f" {plain(why, 300)}." for why in unreadable)
        if not frames:
            return (f"**This file cannot be used:**{left_out}" if left_out else "",
                    "error" if left_out else "note", None, not left_out, read)
        try:
            frame, names, candidates = upload_frame(frames[-2:], server_settings().upload_limits)
        except (ValueError, TypeError) as exc:
            return (f"**These files cannot be used:** {plain(exc, 400)}.{left_out}", "error",
                    None, False, read)
        key = digest_of(repr(names).encode(), *(as_bytes(files[name]) for name in names))
        wide = (f" The column lists offer {MAX_LISTED} at a time (type in *Find columns* "
                "for others); with none chosen, every numeric column is used."
                if frame.shape[1] > MAX_LISTED else "")
        first_offer = offered_choices(frame, None, None, None, PCS, [], candidates=candidates)
        one = ("" if candidates else " No column splits its rows into groups (text, or "
               "numbers with at most 10 values): one sample, for the independence and fit "
               "questions; for two samples drop a second file or add a group column.")
        return (f"Loaded {plain(', '.join(names), 200)}: {frame.shape[0]:,} rows, "
                f"{frame.shape[1]:,} columns.{one}{wide}{left_out}", "ok",
                (key, frame, names, candidates, first_offer), False, read)

    def _read_dropped(self, files: dict) -> tuple[dict, list, list]:
        """({key: table or why} of the files, [(name, table)] of the readable files in
        order, [why each other file cannot be read]); each file read once per session
        (keyed by its name and content)."""
        read, frames, unreadable = {}, [], []
        settings = server_settings()
        for name, content in files.items():
            data = as_bytes(content)
            digest = digest_of(name.encode(), b"\0", data)
            if digest not in self._read:
                try:
                    self._read[digest] = read_table(data, name=name,
                                                    max_bytes=settings.max_upload_bytes,
                                                    limits=settings.upload_limits)
                except (ValueError, TypeError) as exc:
                    self._read[digest] = str(exc)
            read[digest] = value = self._read[digest]
            if isinstance(value, str):
                unreadable.append(value)
            else:
                frames.append((name, value))
        return read, frames, unreadable  # files no longer in the box are forgotten

    def _say(self, text: str, kind: str) -> None:
        self.message.object = text or upload_note()
        self.message.css_classes = [f"kmeviz-upload-{kind}"]

    def _refuse(self, why: str) -> None:
        self._say(f"**This file cannot be used:** {plain(why, 300)}", "error")
