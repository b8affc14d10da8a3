"""Writes docs/results/block_permutation_calibration.txt: size of the block permutation
HSIC tests (hyppo DcorrX's null, with and without the lag search) on independent AR(1)
pairs, the lag search's shift test beside them, and their power on lagged dependence
(issue 55).

    python docs/results/block_permutation_calibration.py [--repeats 500] [--repeats-large 200]

Two worker processes; each draw's seed is fixed, so the table does not depend on them.
"""

import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd
from timeseries_calibration import arguments  # this folder's sibling script

from kmeviz.experiments.timeseries import (
    BLOCK_TESTS,
    timeseries_power_table,
    timeseries_size_table,
)

SIZE = ["n", "phi", "test", "rejections", "repeats", "rate", "ci_low", "ci_high"]
POWER = ["n", "lag", "test", "rejections", "repeats", "rate", "ci_low", "ci_high"]


def main() -> None:
    args = arguments(__file__)
    start = time.time()
    size_options = {"hsic_tests": BLOCK_TESTS, "families": ("independence",)}
    with ProcessPoolExecutor(2) as pool:
        small = timeseries_size_table(ns=(300,), n_repeats=args.repeats, rng=0,
                                      executor=pool, **size_options)
        large = timeseries_size_table(ns=(1000,), n_repeats=args.repeats_large, rng=1,
                                      executor=pool, **size_options)
        power = timeseries_power_table(n=300, n_repeats=args.repeats_large, rng=2,
                                       executor=pool, hsic_tests=BLOCK_TESTS, chain=False)
    size = pd.concat([small, large], ignore_index=True)
    with pd.option_context("display.width", 200, "display.max_rows", 500,
                           "display.float_format", "{:.3f}".format):
        text = ("# Block permutation HSIC on independent AR(1) pairs: size at alpha = 0.05 "
                "(95 % Clopper-Pearson intervals),\n# python "
                "docs/results/block_permutation_calibration.py\n"
                f"# {args.repeats} draws at n = 300, {args.repeats_large} at n = 1000; "
                f"{time.time() - start:.0f} s on 2 processes\n"
                + size[SIZE].to_string(index=False)
                + "\n\n# Power (lagged dependence Y_t = cos(2 X_(t-k)) + noise)\n"
                + power[POWER].to_string(index=False) + "\n")
    Path(args.out).write_text(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
