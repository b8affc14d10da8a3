"""``kmeviz reproduce list | all | NAME [--quick] [--out DIR] [--rng SEED]
[--workers N]``: rerun a figure of the papers and write its table (NAME.csv) and plot
(NAME.png, HoloViews' matplotlib backend, no browser needed)."""

from __future__ import annotations

import importlib.util
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

from kmeviz_apps._files import OutputError, check_writable, output_folder, write_file
from tqdm import tqdm

from kmeviz.experiments.figures import FIGURES, figure

#: What ``kmeviz reproduce`` draws its PNG figures with (the ``reproduce`` extra).
PLOTTING = ("matplotlib", "holoviews")


def missing_plotting() -> str | None:
    """The one line to print when the PNG backend is not installed, else None."""
    missing = [name for name in PLOTTING if importlib.util.find_spec(name) is None]
    if not missing:
        return None
    return (f"kmeviz reproduce draws its PNG figures with {' and '.join(missing)}, not "
            "installed here: pip install 'kmeviz[reproduce]'")


def describe() -> str:
    """One line per figure: its name, paper and title."""
    width = max(map(len, FIGURES))
    return "\n".join(f"{name:<{width}}  {spec.paper}: {spec.title}"
                     for name, spec in FIGURES.items())


def progress_bar(name: str, *, file=None):
    """A ``progress(done, total)`` callback drawing a tqdm bar on ``file`` (stderr), and
    the bar to close."""
    bar = tqdm(total=None, desc=name, unit="trial", file=file or sys.stderr, leave=True,
               dynamic_ncols=True)

    def progress(done: int, total: int) -> None:
        if bar.total != total:
            bar.reset(total=total)
        bar.update(done - bar.n)

    return progress, bar


def output_files(name: str, out, *, overwrite: bool):
    """(out/NAME.csv, out/NAME.png), checked writable before a run (``OutputError``)."""
    folder = output_folder(out)
    targets = folder / f"{name}.csv", folder / f"{name}.png"
    for target in targets:
        check_writable(target, overwrite=overwrite)
    return targets


def reproduce(name: str, *, quick: bool = False, out=".", rng: int = 0,
              progress=None, overwrite: bool = False, workers: int = 1) -> dict:
    """Run figure ``name`` and write ``out/name.csv`` and ``out/name.png`` (never through a
    symbolic link; an existing file only with ``overwrite``, checked before the run);
    returns the paths and the wall time. ``progress(done, total)`` follows the trials;
    ``workers`` > 1 runs them on that many processes (same table, but for runtimes)."""
    from kmeviz.viz.figures import save_png  # HoloViews' matplotlib backend

    spec = figure(name)
    csv, png = output_files(name, out, overwrite=overwrite)
    t0 = time.perf_counter()
    if workers > 1:
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
            table = spec.run(quick=quick, rng=rng, progress=progress, executor=pool)
    else:
        table = spec.run(quick=quick, rng=rng, progress=progress)
    run_s = time.perf_counter() - t0
    write_file(csv, lambda path: table.to_csv(path, index=False), overwrite=overwrite)
    write_file(png, lambda path: save_png(spec, table, path), overwrite=overwrite)
    return {"csv": csv, "png": png, "run_s": run_s,
            "total_s": time.perf_counter() - t0}


def main(args) -> int:
    if args.figure == "list":
        print(describe())
        return 0
    if missing := missing_plotting():
        print(missing, file=sys.stderr)
        return 2
    names = list(FIGURES) if args.figure == "all" else [args.figure]
    for name in names:
        try:
            figure(name)
        except ValueError as err:  # an unknown name: say which names exist
            print(f"kmeviz reproduce: {err}")
            return 2
        try:
            output_files(name, args.out, overwrite=args.overwrite)
        except OutputError as err:
            print(f"kmeviz reproduce: {err}", file=sys.stderr)
            return 2
        progress, bar = progress_bar(name)
        try:
            done = reproduce(name, quick=args.quick, out=args.out, rng=args.rng,
                             progress=progress, overwrite=args.overwrite,
                             workers=args.workers)
        finally:
            bar.close()
        print(f"{name}: {done['csv']} and {done['png']} in {done['total_s']:.1f} s"
              f"{' (--quick)' if args.quick else ''}", flush=True)
    return 0
