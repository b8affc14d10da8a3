"""Command line: ``kmeviz serve [--port P] [--address A] [--show] [--num-threads T]
[--compute-threads C] [--num-procs P] [--allow-websocket-origin HOST[:PORT] ...]
[--prefix /PATH] [--basic-auth PASSWORD|FILE] [--cookie-secret S] [--admin [--admin-user N]]
[--warm] [--reuse-sessions] [--oauth-provider P --oauth-key K --oauth-secret S ...]`` and
``kmeviz reproduce list | all | NAME [--quick] [--out DIR] [--rng SEED] [--workers N]`` and
``kmeviz compare FILE [FILE2] [--group COL --groups A B] ...`` (``compare_cli``) and
``kmeviz course student|instructor|grade DIR`` (``course_cli``)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys

from kmeviz_apps import compare_cli, course_cli, discover_cli

from kmeviz.config import usable_cores
from kmeviz.loading.files import UPLOAD_LIMITS

#: ``panel serve``'s options that ``kmeviz serve`` passes through (flag -> its help).
OAUTH_OPTIONS = {
    "--oauth-provider": "an OAuth provider (e.g. github, google, azure, generic)",
    "--oauth-key": "the OAuth client id",
    "--oauth-secret": "the OAuth client secret",
    "--oauth-redirect-uri": "the OAuth redirect URI (the public address + /login)",
    "--oauth-encryption-key": "key that encrypts the OAuth tokens in the cookies",
}


def plain_text(doc: str) -> str:
    """A docstring as ``--help`` prints it: no reStructuredText backticks."""
    return doc.replace("``", "")


def default_threads() -> int:
    """Callback threads: numpy releases the GIL, so twice the cores keeps cheap changes
    responsive while heavy ones run."""
    return max(4, 2 * usable_cores())


def bounded_int(low: int, high: int | None = None):
    """An argparse type: an integer from ``low`` to ``high`` (argparse names the flag on
    error)."""
    what = (f"an integer from {low} to {high}" if high is not None
            else "a non-negative integer" if low == 0 else f"an integer ≥ {low}")

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {what}, got {value}")
        return value

    return parse


#: ``--rng``: a seed; ``--workers``: a process count
seed = bounded_int(0)
workers = bounded_int(1, 64)


def oauth_settings(args) -> dict:
    """The ``oauth_*`` keywords of ``pn.serve`` that the command line set."""
    names = (flag[2:].replace("-", "_") for flag in OAUTH_OPTIONS)
    return {name: getattr(args, name) for name in names if getattr(args, name)}


def admin_problem(args) -> str | None:
    """Why ``--admin`` cannot be served as asked, or None: the shared password would open
    /admin to every student, so with --basic-auth it needs --admin-user, a user of the
    --basic-auth FILE with a password of its own; off a loopback address it needs both."""
    if args.admin_user is not None and not args.admin:
        return "--admin-user needs --admin"
    if not args.admin:
        return None
    if args.basic_auth is None:
        if args.address in ("127.0.0.1", "localhost", "::1"):
            return None  # this machine's own users only
        return (f"--admin on --address {args.address} needs --basic-auth FILE and "
                "--admin-user NAME (anyone who reaches the server would open /admin)")
    if args.admin_user is None:
        return ("--admin with --basic-auth needs --admin-user NAME, a user of the "
                "--basic-auth FILE (one shared password would open /admin to everyone)")
    try:
        with open(args.basic_auth, encoding="utf-8") as file:
            users = json.load(file)
    except (OSError, ValueError):
        users = None
    if not isinstance(users, dict) or args.admin_user not in users:
        return (f"--admin-user {args.admin_user!r} is not a user of a --basic-auth FILE "
                "(a JSON file {\"name\": \"password\", ...})")
    return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="kmeviz", description=plain_text(__doc__))
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve every kmeviz dashboard with an index page")
    serve.add_argument("--port", type=int, default=5006, help="port (0 picks a free one)")
    serve.add_argument(
        "--address", default="127.0.0.1", help="address to bind (default 127.0.0.1, loopback only)"
    )
    serve.add_argument("--show", action="store_true", help="open the index in a browser")
    serve.add_argument(
        "--num-threads", type=int, default=None,
        help="threads that compute the sessions' views, so that no session blocks another "
             f"(default {default_threads()}: twice the usable cores, at least 4)")
    serve.add_argument(
        "--compute-threads", type=int, default=1,
        help="cores one computation may use (kmeviz engine and BLAS threads; default 1, so "
             "a heavy session leaves the other cores to the class; raise it when serving "
             "for yourself)")
    serve.add_argument("--num-procs", type=int, default=1,
                       help="server processes (0: one per core); sessions stay in one process")
    serve.add_argument(
        "--allow-websocket-origin", action="append", default=[], metavar="HOST[:PORT]",
        help="another host name the students' browsers use, e.g. 192.168.1.20:5006 or "
             "kmeviz.school.example (repeatable; needed with --address 0.0.0.0 or a proxy)")
    serve.add_argument("--prefix", default="",
                       help="URL prefix to serve under, e.g. /kme behind a reverse proxy")
    serve.add_argument("--basic-auth", default=None, metavar="PASSWORD|FILE",
                       help="one password for everyone, or a JSON file of users and their "
                            "passwords, {\"name\": \"password\", ...} (Panel's basic auth; "
                            "use it with HTTPS and --cookie-secret)")
    serve.add_argument("--cookie-secret", default=None,
                       help="secret that signs the login cookies (needed with --basic-auth "
                            "or OAuth across restarts)")
    serve.add_argument("--admin", action="store_true",
                       help="the Panel admin page at /admin (sessions, memory, logs); with "
                            "--basic-auth it needs --admin-user, and off this machine it "
                            "needs both")
    serve.add_argument("--admin-user", default=None, metavar="NAME",
                       help="the one user of the --basic-auth FILE who may open /admin")
    serve.add_argument("--warm", action="store_true",
                       help="run each app once before serving, so the first student does "
                            "not wait for imports")
    serve.add_argument("--reuse-sessions", action="store_true",
                       help="Panel's session reuse: a new page reuses a prepared document")
    serve.add_argument("--time-budget", type=float, default=20.0, metavar="SECONDS",
                       help="seconds one computation of a session may take before it is "
                            "stopped with a message (default 20)")
    serve.add_argument("--page-memory-mb", type=float, default=256.0, metavar="MB",
                       help="memory one computation of a page may hold at once, estimated "
                            "before it runs (default 256); a larger one is refused with a "
                            "message naming the setting to lower")
    serve.add_argument("--max-upload-mb", type=float, default=50.0, metavar="MB",
                       help="largest file a session may upload to the 'Your data' explorer "
                            "(default 50; it is held in that session's memory only)")
    for what, default in UPLOAD_LIMITS.items():
        serve.add_argument(f"--max-{what}", type=int, default=default, metavar="N",
                           help=f"{what} an uploaded table may have (default {default:,}), "
                                "checked before the file is parsed")
    serve.add_argument("--seats", type=int, default=2, metavar="N",
                       help="pages the server builds at once (default 2); the next page "
                            "requests wait their turn, and open pages stay responsive")
    serve.add_argument("--max-waiting", type=int, default=300, metavar="N",
                       help="page requests that may wait for a seat (default 300); beyond "
                            "them a request gets a 'waiting for a seat' page that retries")
    serve.add_argument("--log-level", default="info",
                       choices=["debug", "info", "warning", "error"],
                       help="what the server log (stderr, with timestamps) shows: sessions "
                            "opened, slow views and errors with their app, URL and "
                            "parameters (default info)")
    for flag, text in OAUTH_OPTIONS.items():
        serve.add_argument(flag, default=None, help=text)
    rep = sub.add_parser("reproduce", help="rerun a figure of the papers: its table (CSV) "
                         "and plot (PNG)")
    rep.add_argument("figure", help="a figure name (see 'kmeviz reproduce list'), 'all' or "
                     "'list'")
    rep.add_argument("--quick", action="store_true",
                     help="few draws: each figure in well under a minute")
    rep.add_argument("--out", default="reproductions", help="folder for NAME.csv and NAME.png")
    rep.add_argument("--rng", type=seed, default=0, help="seed (default 0)")
    rep.add_argument("--workers", type=workers, default=1,
                     help="processes that run the trials (default 1; the tables do not "
                          "depend on it, but for measured runtimes)")
    rep.add_argument("--overwrite", action="store_true",
                     help="replace NAME.csv and NAME.png if they exist (never through a "
                          "symbolic link)")
    compare_cli.add_parser(sub)
    discover_cli.add_parser(sub)
    course_cli.add_parser(sub)
    args = parser.parse_args(argv)
    if args.command == "compare":
        return compare_cli.main(args)
    if args.command == "discover":
        return discover_cli.main(args)
    if args.command == "course":
        return course_cli.run(args)
    if args.command == "reproduce":  # imported here: serve needs none of it, and back
        from kmeviz_apps.reproduce import main as reproduce_main

        return reproduce_main(args)

    if args.command == "serve":  # Panel is imported only to serve
        if importlib.util.find_spec("panel") is None:
            print("kmeviz serve needs the dashboards' packages (Panel, HoloViews, Bokeh), "
                  "not installed here: pip install 'kmeviz[apps]'", file=sys.stderr)
            return 2
        from kmeviz_apps.server import build_server, configure_logging

        configure_logging(args.log_level)

        if args.prefix and not args.prefix.startswith("/"):
            parser.error(f"--prefix must start with /, got {args.prefix!r}")
        if not 0 < args.max_upload_mb <= 2048:
            parser.error(f"--max-upload-mb must be in (0, 2048], got {args.max_upload_mb}")
        if not 16 <= args.page_memory_mb <= 1024**2:
            parser.error(f"--page-memory-mb must be in [16, 1048576], got {args.page_memory_mb}")
        if not 0 < args.time_budget <= 3600:
            parser.error(f"--time-budget must be in (0, 3600] seconds, got {args.time_budget}")
        for name, low in (("num_threads", 1), ("num_procs", 0), ("compute_threads", 1),
                          ("seats", 1), ("max_waiting", 0), ("max_rows", 1),
                          ("max_columns", 1), ("max_cells", 1)):
            value = getattr(args, name)
            if value is not None and value < low:
                parser.error(f"--{name.replace('_', '-')} must be >= {low}, got {value}")
        if (why := admin_problem(args)) is not None:
            parser.error(why)
        server, url = build_server(
            address=args.address, port=args.port, show=False,
            num_threads=args.num_threads or default_threads(), num_procs=args.num_procs,
            compute_threads=args.compute_threads,
            allow_websocket_origin=args.allow_websocket_origin, prefix=args.prefix.rstrip("/"),
            basic_auth=args.basic_auth, cookie_secret=args.cookie_secret, admin=args.admin,
            warm=args.warm, reuse_sessions=args.reuse_sessions, oauth=oauth_settings(args),
            time_budget=args.time_budget, max_upload_mb=args.max_upload_mb,
            admin_user=args.admin_user, seats=args.seats, max_waiting=args.max_waiting,
            max_rows=args.max_rows, max_columns=args.max_columns, max_cells=args.max_cells,
            page_memory_mb=args.page_memory_mb)
        server.start()
        print(f"kmeviz dashboards at {url}  (Ctrl+C to stop)", flush=True)
        if args.show:
            server.io_loop.add_callback(server.show, "/")
        try:
            server.io_loop.start()
        except KeyboardInterrupt:
            print("stopped", file=sys.stderr)
    return 0
