"""Command line: ``kmeviz serve [--port P] [--address A] [--show]``."""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="kmeviz", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve every kmeviz dashboard with an index page")
    serve.add_argument("--port", type=int, default=5006, help="port (0 picks a free one)")
    serve.add_argument(
        "--address", default="127.0.0.1", help="address to bind (default 127.0.0.1, loopback only)"
    )
    serve.add_argument("--show", action="store_true", help="open the index in a browser")
    args = parser.parse_args(argv)

    if args.command == "serve":
        from .server import build_server

        server, url = build_server(address=args.address, port=args.port, show=False)
        server.start()
        print(f"kmeviz dashboards at {url}  (Ctrl+C to stop)", flush=True)
        if args.show:
            server.io_loop.add_callback(server.show, "/")
        try:
            server.io_loop.start()
        except KeyboardInterrupt:
            print("stopped", file=sys.stderr)
    return 0
