"""``kmeviz reproduce list | all | NAME [--quick] [--out DIR] [--rng SEED]``: rerun a figure
of the papers and write its table (NAME.csv) and plot (NAME.png, HoloViews' matplotlib
backend, no browser needed)."""

from __future__ import annotations

import time
from pathlib import Path

from kmeviz.experiments.figures import FIGURES, figure


def describe() -> str:
    """One line per figure: its name, paper and title."""
    width = max(map(len, FIGURES))
    return "\n".join(f"{name:<{width}}  {spec.paper}: {spec.title}"
                     for name, spec in FIGURES.items())


def reproduce(name: str, *, quick: bool = False, out=".", rng: int = 0) -> dict:
    """Run figure ``name`` and write ``out/name.csv`` and ``out/name.png``; returns the
    paths and the wall time."""
    from kmeviz.viz.figures import save_png

    spec = figure(name)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    table = spec.run(quick=quick, rng=rng)
    run_s = time.perf_counter() - t0
    csv, png = out / f"{name}.csv", out / f"{name}.png"
    table.to_csv(csv, index=False)
    save_png(spec, table, png)
    return {"csv": csv, "png": png, "run_s": run_s,
            "total_s": time.perf_counter() - t0}


def main(args) -> int:
    if args.figure == "list":
        print(describe())
        return 0
    names = list(FIGURES) if args.figure == "all" else [args.figure]
    for name in names:
        try:
            done = reproduce(name, quick=args.quick, out=args.out, rng=args.rng)
        except ValueError as err:  # an unknown name: say which names exist
            print(f"kmeviz reproduce: {err}")
            return 2
        print(f"{name}: {done['csv']} and {done['png']} in {done['total_s']:.1f} s"
              f"{' (--quick)' if args.quick else ''}", flush=True)
    return 0
