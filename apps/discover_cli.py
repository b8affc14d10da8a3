"""``kmeviz discover FILE [--columns C ..] [--test kci] [--alpha A]
[--max-condition-size K] [--tiers "a,b" "c" ..] [--out graph.csv|.json|.dot]``: the PC
algorithm on a table (``kmeviz.pc``); exit 0 with the graph, 2 with one line on bad
input, as ``kmeviz compare``."""

from __future__ import annotations

import json
import sys

from kmeviz_apps._files import OutputError, write_file
from kmeviz_apps.compare_cli import cli_words, one_line, out_target

import kmeviz as K
from kmeviz.distributions.real import REAL_DATASETS
from kmeviz.loading import read_table
from kmeviz.loading.files import MAX_BYTES, file_name

#: ``--out``'s formats, by the file's extension
FORMATS = (".csv", ".json", ".dot")


def add_parser(sub) -> None:
    """The ``discover`` subcommand."""
    tests = sorted({spec.estimator for spec in K.CONDITIONAL_TESTS} | {
        spec.name for spec in K.CONDITIONAL_TESTS})
    cmd = sub.add_parser("discover", help="the PC algorithm: which columns of a table "
                                          "cause which, up to Markov equivalence")
    cmd.add_argument("file", nargs="?", help="CSV, TSV, .npy, .npz or Parquet")
    cmd.add_argument("--dataset", choices=sorted(REAL_DATASETS),
                     help="a bundled data set instead of FILE")
    cmd.add_argument("--columns", nargs="+", metavar="C", help="the variables (default: "
                     "every numeric column)")
    cmd.add_argument("--test", default="kci", choices=tests,
                     help="the CI test (default kci: KCI, Gamma null, each conditioning "
                          "set's factorisation shared)")
    cmd.add_argument("--alpha", type=float, default=0.05, help="level of each CI test")
    cmd.add_argument("--max-condition-size", type=int, default=None, metavar="K",
                     help="the largest conditioning set (default: no limit)")
    cmd.add_argument("--tiers", nargs="+", metavar="A,B", default=(),
                     help="background knowledge: comma-separated columns per tier, earliest "
                          "first (no edge points into an earlier tier)")
    cmd.add_argument("--orientation", default="majority", choices=("majority", "standard"),
                     help="collider rule (default majority: order-independent)")
    cmd.add_argument("--rng", type=int, default=0, help="seed (default 0)")
    cmd.add_argument("--out", help=f"write the graph: {', '.join(FORMATS)} by extension")
    cmd.add_argument("--overwrite", action="store_true", help="replace --out if it exists")


def run(args):
    """(the PC result, the report) of parsed arguments."""
    if args.dataset and not args.file:
        frame, source = REAL_DATASETS[args.dataset].load(), REAL_DATASETS[args.dataset].title
    elif args.file and not args.dataset:
        frame, source = read_table(args.file, max_bytes=MAX_BYTES), file_name(args.file)
    else:
        raise ValueError("give one FILE or --dataset")
    columns = args.columns or [c for c in frame.columns
                               if frame[c].dtype.kind in "biuf"]
    data = frame[columns].dropna() if set(columns) <= set(frame.columns) else frame
    knowledge = K.Knowledge(tiers=tuple(t.split(",") for t in args.tiers))
    result = K.pc(data, test=args.test, alpha=args.alpha, columns=columns,
                  max_condition_size=args.max_condition_size, knowledge=knowledge,
                  orientation=args.orientation, rng=args.rng)
    dropped = len(frame) - len(data)
    left_out = f" ({dropped} with a missing value left out)" if dropped else ""
    report = (f"Read {source}: {len(data)} rows{left_out}, "
              f"{len(columns)} variables; PC with {args.test} at α = {args.alpha:g}: "
              f"{result.counts.get('tests', len(result.tests))} tests, "
              f"{result.counts.get('factorisations', 0)} factorisations of a conditioning "
              "set's Gram")
    return result, report


def formatted(result) -> str:
    """The edges, one per line (a --> b directed, a --- b undirected)."""
    edges = result.edges()
    lines = [f"{e.source} {e.kind} {e.target}" for e in edges.itertuples()]
    if result.conflicts:
        lines.append(f"{len(result.conflicts)} conflicting colliders left undirected")
    return "\n".join(lines or ["no edges: every pair was separated"])


def written(result, suffix: str):
    """A writer of ``--out`` in the format of its extension."""
    if suffix == ".json":
        return lambda path: open(path, "w").write(json.dumps(result.to_dict(), indent=1))
    if suffix == ".dot":
        return lambda path: open(path, "w").write(result.to_dot() + "\n")
    return lambda path: result.edges().to_csv(path, index=False)


def main(args) -> int:
    """Run ``kmeviz discover``; 0 on success, 2 with a one-line message on bad input."""
    try:
        out = out_target(args.out, overwrite=args.overwrite) if args.out else None
        if out is not None and out.suffix not in FORMATS:
            raise ValueError(f"--out {args.out}: give a file ending in {', '.join(FORMATS)}")
        result, report = run(args)
    except (ValueError, TypeError, OSError, KeyError) as exc:
        print(f"kmeviz discover: error: {cli_words(one_line(exc))}", file=sys.stderr)
        return 2
    print(report)
    print()
    print(formatted(result))
    if out is not None:
        try:
            write_file(out, written(result, out.suffix), overwrite=args.overwrite)
        except (OutputError, OSError) as exc:
            print(f"kmeviz discover: error: {one_line(exc)}", file=sys.stderr)
            return 2
        print(f"\nwrote {out}")
    return 0
