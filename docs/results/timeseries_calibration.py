"""Writes docs/results/timeseries_calibration.txt: size of the time-series tests beside
the i.i.d. ones on serially dependent data, and their power (issue 55).

    python docs/results/timeseries_calibration.py [--repeats 500] [--repeats-large 200]

Two worker processes; each draw's seed is fixed (``rng=0``), so the table does not depend
on them.
"""

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd

from kmeviz.experiments.timeseries import timeseries_power_table, timeseries_size_table

COLUMNS = ["problem", "n", "phi", "step", "test", "rejections", "repeats", "rate",
           "ci_low", "ci_high"]


def arguments(script: str) -> argparse.Namespace:
    """--repeats (n = 300), --repeats-large (n = 1000) and --out (``script``'s .txt)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=500)
    parser.add_argument("--repeats-large", type=int, default=200, help="draws at n = 1000")
    parser.add_argument("--out", default=str(Path(script).with_suffix(".txt")))
    return parser.parse_args()


def main() -> None:
    args = arguments(__file__)
    start = time.time()
    with ProcessPoolExecutor(2) as pool:
        small = timeseries_size_table(ns=(300,), n_repeats=args.repeats, rng=0,
                                      executor=pool)
        large = timeseries_size_table(ns=(1000,), n_repeats=args.repeats_large, rng=1,
                                      executor=pool)
        power = timeseries_power_table(n=300, n_repeats=args.repeats_large, rng=2,
                                       executor=pool)
    size = pd.concat([small, large], ignore_index=True)
    with pd.option_context("display.width", 200, "display.max_rows", 500,
                           "display.float_format", "{:.3f}".format):
        text = ("# Size at alpha = 0.05 (95 % Clopper-Pearson intervals), "
                "python docs/results/timeseries_calibration.py\n"
                f"# {args.repeats} draws at n = 300, {args.repeats_large} at n = 1000; "
                f"{time.time() - start:.0f} s on 2 processes\n"
                + size[[c for c in COLUMNS if c in size]].to_string(index=False)
                + "\n\n# Power (lagged dependence Y_t = cos(2 X_(t-k)) + noise; a chain of "
                "N(0, 2^2) tested against N(0, 1))\n"
                + power[[c for c in ["problem", "n", "lag", "test", "rejections", "repeats",
                                     "rate", "ci_low", "ci_high"] if c in power]]
                .to_string(index=False) + "\n")
    Path(args.out).write_text(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
