"""``kmeviz compare``: every test on a researcher's own data, from the command line.

kmeviz compare FILE [FILE2] [--group COL --groups A B] [--columns C ...]
[--no-standardize] [--tests T ...] [--time-budget S] [--out table.csv] [--gof TARGET]
[--independence --x C .. --y C ..] [--conditional --x C .. --y C .. --z C ..]
[--time-series | --iid] [--time COLUMN]
prints the table of every test (kmeviz.compare_tests, or compare_gof) with a progress
bar on stderr, the Holm-adjusted p-values and the effect size. Columns are standardized
by default, as in Python and the dashboard. The rows are checked for serial dependence
(a time series, an MCMC chain): when it is found, the i.i.d. tests' rows say their p-values
cannot be trusted; --time-series runs the time-series tests instead (dependent wild
bootstrap, circular shifts), --iid skips the check. Exit 0 on success, 2 with one line (no
traceback) on bad input.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

import numpy as np
from kmeviz_apps._cli_kernels import add_kernel_options, check_kernel_options, chosen_kernels
from kmeviz_apps._files import OutputError, check_real_folder, check_writable, write_file
from kmeviz_apps._map_cli import formatted_map, run_map

import kmeviz as K
from kmeviz.distributions.real import REAL_DATASETS
from kmeviz.loading import (
    MAX_BYTES,
    conditional_from_frame,
    in_time_order,
    load_sample,
    paired_from_frame,
    read_table,
    samples_from_frame,
)
from kmeviz.loading.files import file_name
from kmeviz.results import p_value_text
from kmeviz.timeseries.serial import quiet_serial_warnings

#: The named targets of ``--gof``.
GOF_TARGETS = {
    "normal": "the standard normal N(0, I_d) (of the standardized columns, by default)",
    "normal-fitted": "the normal with the sample's mean and covariance (fitted on the data "
                     "it then tests: a check of shape, not a calibrated test of normality)",
}


def add_parser(sub) -> argparse.ArgumentParser:
    """The ``compare`` subcommand's options."""
    cmp = sub.add_parser(
        "compare", help="run every two-sample (or goodness-of-fit) test on your data",
        description=__doc__.replace("``", ""),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    cmp.add_argument("files", nargs="*", metavar="FILE",
                     help="CSV, TSV, .npy, .npz or Parquet: one file with --group, or two")
    cmp.add_argument("--dataset", choices=sorted(REAL_DATASETS),
                     help="a bundled real data set instead of files")
    cmp.add_argument("--group", help="the column whose values split one file's rows")
    cmp.add_argument("--groups", nargs=2, metavar=("A", "B"),
                     help="the two values of --group to compare")
    cmp.add_argument("--columns", nargs="+", metavar="C", help="the numeric columns to use")
    cmp.add_argument("--standardize", action=argparse.BooleanOptionalAction, default=True,
                     help="centre and scale each column by the pooled mean and deviation "
                          "(default: on, as in Python and the dashboard)")
    cmp.add_argument("--tests", nargs="+", default=["all"], metavar="T",
                     help="test names 'estimator/null' or estimators (default: all)")
    cmp.add_argument("--time-budget", type=float, default=10.0, metavar="S",
                     help="seconds for the whole comparison (default 10)")
    cmp.add_argument("--alpha", type=float, default=0.05, help="level (default 0.05)")
    cmp.add_argument("--rng", type=int, default=0, help="seed (default 0)")
    cmp.add_argument("--max-size-mb", type=float, default=MAX_BYTES / 1024**2,
                     help=f"largest file read (default {MAX_BYTES // 1024**2} MB)")
    cmp.add_argument("--out", metavar="table.csv",
                     help="also write the table as CSV (never through a symbolic link; an "
                          "existing file only with --overwrite)")
    cmp.add_argument("--overwrite", action="store_true",
                     help="let --out replace an existing file")
    cmp.add_argument("--gof", choices=sorted(GOF_TARGETS), metavar="TARGET",
                     help="goodness of fit of one sample (all rows of FILE) against a "
                          "target: " + "; ".join(f"{k}: {v}" for k, v in GOF_TARGETS.items()))
    cmp.add_argument("--independence", action="store_true",
                     help="test whether column groups --x and --y of one FILE (or "
                          "--dataset) are independent, with every HSIC test")
    cmp.add_argument("--conditional", action="store_true",
                     help="test whether column groups --x and --y of one FILE (or "
                          "--dataset) are independent given --z, with every conditional "
                          "test (KCI, Nyström KCI, RCIT, RCoT)")
    cmp.add_argument("--dependence-map", action="store_true",
                     help="every pair of the columns of one FILE (or --dataset; --columns "
                          "to choose): normalised HSIC, HSIC's Gamma p-value, Holm and "
                          "Benjamini-Hochberg adjusted; --out writes every pair")
    cmp.add_argument("--x", nargs="+", metavar="C",
                     help="with --independence or --conditional: X's columns")
    cmp.add_argument("--y", nargs="+", metavar="C",
                     help="with --independence or --conditional: Y's columns")
    cmp.add_argument("--z", nargs="+", metavar="C",
                     help="with --conditional: the conditioning columns Z")
    add_kernel_options(cmp)
    cmp.add_argument("--test-option", action="append", default=[], metavar="NAME=VALUE",
                     dest="test_options",
                     help="an option of the tests that declare it (repeatable); the tests' "
                          "own options are listed at the end of this help")
    cmp.epilog = own_options_help()
    rows = cmp.add_mutually_exclusive_group()
    rows.add_argument("--time-series", action="store_true",
                      help="the rows are a time series or a Markov chain in order: run the "
                           "time-series tests (dependent wild bootstrap; for independence "
                           "also circular shifts and a lag search) instead of the i.i.d. ones")
    rows.add_argument("--iid", action="store_true",
                      help="the rows are exchangeable (e.g. sorted i.i.d. data): do not "
                           "check them for serial dependence")
    cmp.add_argument("--time", metavar="COLUMN",
                     help="a column of times (numbers or dates): sort the rows by it, and "
                          "do not use it as data (one FILE or --dataset)")
    return cmp


def own_options_help() -> str:
    """The registered tests' own options (``TestOption``), for ``--help``."""
    lines = [f"  {spec.registry}(estimator={spec.estimator!r}, null={spec.null!r}): "
             f"{option.words()}"
             for registry in (K.MMD_TESTS, K.GOF_TESTS, K.INDEPENDENCE_TESTS,
                              K.CONDITIONAL_TESTS)
             for spec in registry for option in spec.own_options]
    return "\n".join(["options of a test's own (--test-option NAME=VALUE):",
                      *(lines or ["  none registered"])])


def test_options_of(args) -> dict:
    """``--test-option NAME=VALUE`` as {name: the string value} (each test reads it by
    its option's type)."""
    pairs = {}
    for text in args.test_options:
        name, sep, value = text.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--test-option takes NAME=VALUE, got {text!r}")
        pairs[name.strip()] = value.strip()
    return pairs


def rows_of(args) -> str:
    """``rows=`` of the comparison: "time series", "iid" or "check" (a bundled data
    set's own, ``RealDataset.rows``, when neither flag is given)."""
    if args.time_series or args.iid:
        return "time series" if args.time_series else "iid"
    return REAL_DATASETS[args.dataset].rows if args.dataset else "check"


def ordered_frame(frame, args):
    """The table sorted by ``--time`` (and without it), or as read."""
    return frame if args.time is None else in_time_order(frame, args.time)


def main(args) -> int:
    """Run ``kmeviz compare``; 0 on success, 2 with a one-line message on bad input."""
    try:
        out = out_target(args.out, overwrite=args.overwrite) if args.out else None
        check_kernel_options(args)
        with quiet_serial_warnings():  # the table's note says it, in CLI words
            table, report = (run_map(args, int(args.max_size_mb * 1024**2))
                             if args.dependence_map else run(args))
    except (ValueError, TypeError, OSError) as exc:
        print(f"kmeviz compare: error: {cli_words(one_line(exc))}", file=sys.stderr)
        return 2
    print(report)
    print()
    print(formatted_map(table) if args.dependence_map else formatted(table))
    export = (lambda t: t) if args.dependence_map else K.export_table
    if out is not None:
        try:
            write_file(out, lambda path: export(table).to_csv(path, index=False),
                       overwrite=args.overwrite)
        except (OutputError, OSError) as exc:
            print(f"kmeviz compare: error: {one_line(exc)}", file=sys.stderr)
            return 2
        print(f"\nwrote {out}")
    return 0


def out_target(out: str, *, overwrite: bool) -> Path:
    """``--out`` as a file to write, checked before the run (one line, no traceback, for
    a folder, a missing folder, a symbolic link, or, without ``--overwrite``, an existing
    file or a folder reached through a link)."""
    target = Path(out)
    if target.is_dir():
        raise OutputError(f"--out {out}: is a folder; give a file name such as "
                          f"{target / 'table.csv'}")
    if not target.parent.is_dir():
        raise OutputError(f"--out {out}: the folder {target.parent} does not exist")
    check_real_folder(target.parent, out, overwrite=overwrite)
    check_writable(target, overwrite=overwrite)
    return target


def run(args):
    """(the comparison table, the loading report) for parsed arguments."""
    if not (0 < args.time_budget <= 24 * 3600):
        raise ValueError(f"--time-budget must be in (0, 86400] seconds, got {args.time_budget}")
    max_bytes = int(args.max_size_mb * 1024**2)
    if args.gof:
        if len(args.files) != 1 or args.dataset or args.group:
            raise ValueError("--gof tests one sample: give exactly one FILE (all its rows)")
        X, report = load_sample(args.files[0], columns=args.columns,
                                standardize=args.standardize, max_bytes=max_bytes,
                                time=args.time)
        target = gof_target(args.gof, X)
        with progress_bar(len(K.compare.selected_tests(K.GOF_TESTS, args.tests,
                                                       rows_of(args)))) as bar:
            table = K.compare_gof(X, target, tests=args.tests, alpha=args.alpha,
                                  time_budget=args.time_budget, rng=args.rng, progress=bar,
                                  rows=rows_of(args), test_options=test_options_of(args))
        return table, report
    if args.independence and args.conditional:
        raise ValueError("choose --independence or --conditional, not both")
    if args.independence or args.conditional:
        return run_independence(args, max_bytes)
    if args.x or args.y or args.z:
        raise ValueError("--x, --y (and --z) choose the variables of --independence and "
                         "--conditional")
    if args.dataset:
        if args.files:
            raise ValueError("give FILE(s) or --dataset, not both")
        spec = REAL_DATASETS[args.dataset]
        X, Y, report = samples_from_frame(
            ordered_frame(spec.load(), args), group=args.group or spec.group,
            groups=args.groups or spec.groups, columns=args.columns,
            standardize=args.standardize, sources=(spec.title,))
    elif len(args.files) == 1 and args.time:
        X, Y, report = samples_from_frame(
            ordered_frame(read_table(args.files[0], max_bytes=max_bytes), args),
            group=args.group, groups=args.groups, columns=args.columns,
            standardize=args.standardize, sources=(file_name(args.files[0]),))
    elif args.time:
        raise ValueError("--time sorts the rows of one table: give one FILE or --dataset")
    elif len(args.files) in (1, 2):
        X, Y, report = K.load_samples(*args.files, group=args.group, groups=args.groups,
                                      columns=args.columns, standardize=args.standardize,
                                      max_bytes=max_bytes)
    else:
        raise ValueError(f"give one FILE with --group, two FILEs, or --dataset; got "
                         f"{len(args.files)} files")
    with progress_bar(len(K.compare.selected_tests(K.MMD_TESTS, args.tests,
                                                   rows_of(args)))) as bar:
        table = K.compare_tests(X, Y, tests=args.tests, alpha=args.alpha,
                                time_budget=args.time_budget, rng=args.rng, progress=bar,
                                rows=rows_of(args), test_options=test_options_of(args))
    return table, report


def run_independence(args, max_bytes: int):
    """(the table, the report) of ``--independence --x .. --y ..`` or of ``--conditional
    --x .. --y .. --z ..``."""
    flag = "--conditional" if args.conditional else "--independence"
    if not (args.x and args.y):
        raise ValueError(f"{flag} needs --x COLUMNS and --y COLUMNS"
                         + (" and --z COLUMNS" if args.conditional else ""))
    if args.conditional and not args.z:
        raise ValueError("--conditional needs --z COLUMNS, the conditioning variables "
                         "(without Z, use --independence)")
    if args.z and not args.conditional:
        raise ValueError("--z is the conditioning set of --conditional")
    if args.group or args.groups or args.gof or args.columns:
        raise ValueError(f"{flag} tests column groups of the same rows: --group, --groups, "
                         "--columns and --gof do not apply")
    groups = {"x": args.x, "y": args.y, **({"z": args.z} if args.conditional else {})}
    if args.dataset and not args.files:
        spec = REAL_DATASETS[args.dataset]
        frame, sources = spec.load(), (spec.title,)
    elif len(args.files) == 1 and not args.dataset:
        frame, sources = read_table(args.files[0], max_bytes=max_bytes), (
            file_name(args.files[0]),)
    else:
        raise ValueError(f"{flag} reads one FILE or --dataset")
    frame = ordered_frame(frame, args)
    if args.conditional:
        X, Y, Z, report = conditional_from_frame(frame, **groups,
                                                 standardize=args.standardize,
                                                 sources=sources)
        registry, compare, samples = K.CONDITIONAL_TESTS, K.compare_ci, (X, Y, Z)
    else:
        X, Y, report = paired_from_frame(frame, **groups, standardize=args.standardize,
                                         sources=sources)
        kx, ky = chosen_kernels(args, report, X, Y)
        registry, samples = K.INDEPENDENCE_TESTS, (X, Y)

        def compare(*samples, **options):
            return K.compare_independence(*samples, kernel_x=kx, kernel_y=ky, **options)
    if args.conditional and args.time_series:
        raise ValueError("--time-series: no conditional-independence test for time series "
                         "yet; without --time-series the table says whether the rows are "
                         "serially dependent")
    with progress_bar(len(K.compare.selected_tests(registry, args.tests,
                                                   rows_of(args)))) as bar:
        table = compare(*samples, tests=args.tests, alpha=args.alpha,
                        time_budget=args.time_budget, rng=args.rng, progress=bar,
                        rows=rows_of(args), test_options=test_options_of(args))
    return table, report


def gof_target(name: str, X: np.ndarray):
    """The ``--gof`` target for sample X."""
    d = X.shape[1]
    if name == "normal":
        return K.NormalTarget(np.zeros(d))
    cov = np.atleast_2d(np.cov(X, rowvar=False)) + 1e-9 * np.eye(d)
    return K.NormalTarget(X.mean(axis=0), cov)


class progress_bar:
    """A tqdm bar on stderr (when it is a terminal) advanced by each finished row."""

    def __init__(self, total: int):
        from tqdm import tqdm

        self.bar = tqdm(total=total, unit="test", file=sys.stderr,
                        disable=not sys.stderr.isatty(), leave=False)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.bar.close()

    def __call__(self, row):
        if row is not None:
            self.bar.set_postfix_str(row["test"])
            self.bar.update(1)


def formatted(table) -> str:
    """The table as text: numbers to 4 significant digits, rows aligned to the longest
    test name, notes as numbered footnotes, then the kernel, the effect size and what
    reading many tests at once means."""
    lines, notes = [], []
    width = max([len("test"), *map(len, table["test"])]) + 1
    header = (f"{'test':<{width}} {'statistic':>11} {'p-value':>9} {'Holm p':>9} "
              f"{'decision':>9} {'seconds':>8}")
    lines += [header, "-" * len(header)]
    B = table.attrs.get("n_resamples") or 0
    def footnote(note: str) -> int:  # the same note on many rows is one footnote
        if note not in notes:
            notes.append(note)
        return notes.index(note) + 1

    for row in table.itertuples():
        if math.isnan(row.p_value):
            lines.append(f"{row.test:<{width}} {'-':>11} {'-':>9} {'-':>9} "
                         f"{'[' + str(footnote(row.note)) + ']':>9} {'-':>8}")
            continue
        decision = "reject" if row.reject else "keep"
        mark = ""
        if row.note:
            mark = f" [{footnote(row.note)}]"
        lines.append(f"{row.test:<{width}} {row.statistic:>11.4g} "
                     f"{p_value_text(row.p_value, B):>9} {p_value_text(row.p_holm, B):>9} "
                     f"{decision:>9} {row.runtime_s:>8.3g}{mark}")
    kernel = table.attrs.get("kernel")
    kernel = "each test's default (see --help)" if kernel is None else repr(kernel)
    lines.append(f"\nkernel: {kernel}; alpha = {table.attrs['alpha']:g}; seed = "
                 f"{table.attrs.get('seed')}")
    effect = table.attrs.get("effect_size")
    if effect is not None:
        lines.append(f"effect size: {effect} ({effect.meaning})")
    lines.append(cli_words(table.attrs.get("note", "")))
    lines += [f"[{i}] {cli_words(note)}" for i, note in enumerate(notes, 1)]
    return "\n".join(lines)


#: Python words in a library message -> what a command-line user types instead
CLI_WORDS = (
    (re.compile(r"give group=\(--group: ([^)]*)\)"), r"give --group COLUMN (\1)"),
    (re.compile(r"groups=\(A, B\)"), "--groups A B"),
    (re.compile(r"kmeviz\.(?:mmd|ksd)_test\([^)]*estimator='([^']*)'(?:, null='([^']*)')?\)"),
     lambda m: f"--tests {m.group(1)}" + (f"/{m.group(2)}" if m.group(2) else "")),
    (re.compile(r"raise time_budget"), "raise --time-budget"),
    (re.compile(r"\(rows='time series', or [a-z]+_test\((?:[^()]|\([^()]*\))*\)\)"),
     "(--time-series)"),
    (re.compile(r"pass rows='iid'"), "pass --iid"),
    (re.compile(r"groups must be"), "--groups must be"),
)


def cli_words(text: str) -> str:
    """A library message in command-line words (``--groups A B``, ``--tests NAME``)."""
    for pattern, replacement in CLI_WORDS:
        text = pattern.sub(replacement, text)
    return text


def one_line(exc: BaseException) -> str:
    """An error as one line (its first)."""
    text = str(exc).strip() or type(exc).__name__
    if isinstance(exc, OSError) and exc.filename:
        text = f"{exc.strerror or text}: {exc.filename}"
    return text.splitlines()[0]
