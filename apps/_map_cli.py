"""``kmeviz compare FILE --dependence-map``: every pair of a table's columns, the map's
rows as text, strongest first."""

from __future__ import annotations

import kmeviz as K
from kmeviz.distributions.real import REAL_DATASETS
from kmeviz.loading import read_table
from kmeviz.loading.files import file_name

#: Pairs printed (the --out table holds all).
PRINTED = 30


def run_map(args, max_bytes: int):
    """(the map's pairs, the report) for ``--dependence-map``."""
    if (args.independence or args.conditional or args.gof or args.group or args.groups
            or args.test_options):
        raise ValueError("--dependence-map reads every pair of columns of one table: "
                         "--independence, --conditional, --gof, --group, --groups and "
                         "--test-option do not apply (choose columns with --columns)")
    if args.x or args.y or args.z:
        raise ValueError("--dependence-map reads every pair of --columns; --x, --y and "
                         "--z choose the variables of --independence and --conditional")
    if args.dataset and not args.files:
        spec = REAL_DATASETS[args.dataset]
        frame, source = spec.load(), spec.title
    elif len(args.files) == 1 and not args.dataset:
        frame, source = read_table(args.files[0], max_bytes=max_bytes), file_name(
            args.files[0])
    else:
        raise ValueError("--dependence-map reads one FILE or --dataset")
    pairs = K.dependence_map(frame, args.columns, alpha=args.alpha, rng=args.rng)
    columns = len(set(pairs["x"]) | set(pairs["y"]))
    report = (f"Loaded {source}: {pairs.attrs['n']} rows; {columns} columns, "
              f"{len(pairs)} pairs. {pairs.attrs['note']}").strip()
    return pairs, report


def formatted_map(pairs) -> str:
    """The pairs as text, strongest effect first (at most ``PRINTED``), then what the
    columns mean."""
    shown = pairs.sort_values(["effect", "p_value"], ascending=[False, True]).head(PRINTED)
    labels = shown["x"].astype(str) + " ~ " + shown["y"].astype(str)
    width = max(len("pair"), *labels.str.len()) + 1
    header = (f"{'pair':<{width}} {'effect':>7} {'HSIC':>10} {'p-value':>9} {'BH p':>9} "
              f"{'Holm p':>9}")
    lines = [header, "-" * len(header)]
    for label, row in zip(labels, shown.itertuples(), strict=True):
        lines.append(f"{label:<{width}} {row.effect:>7.3f} {row.hsic:>10.4g} "
                     f"{row.p_value:>9.3g} {row.p_bh:>9.3g} {row.p_holm:>9.3g}")
    if len(pairs) > PRINTED:
        lines.append(f"... {len(pairs) - PRINTED} more pairs (--out writes them all)")
    alpha = pairs.attrs["alpha"]
    lines.append(f"\n{int(pairs.reject_bh.sum())} of {len(pairs)} pairs depend at false "
                 f"discovery rate {alpha:g} (Benjamini-Hochberg), "
                 f"{int(pairs.reject_holm.sum())} at family-wise level {alpha:g} (Holm). "
                 "effect: the normalised HSIC, 0 for independent columns, 1 for a column "
                 "read the same as the other; HSIC_b with its spectral null per pair.")
    return "\n".join(lines)
