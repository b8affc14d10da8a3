"""Writes docs/results/test_power_selected.csv: power of the kernel learned on all the data
(``mmd_test(estimator="selected")``) against the median heuristic, the split test with
learned ARD length scales, MMDAgg and MMD-FUSE, on the same draws, at n = 100 … 1000 a
sample, on three problems (issue 59, point 4):

- "two scales": d = 10 normals, Q's first two coordinates scaled by s = 1.2;
- "two coordinates": the same, Q's first two coordinates correlated (ρ = 0.5; notebook 12);
- "blobs": FastMMD's blob grid, ε = 3 (the median heuristic's bandwidth is far too wide);
- "shift": d = 10 normals, Q shifted by δ = 0.08 in every coordinate: the median
  heuristic's own ground, where the learned test's min-p costs it most.

    python docs/results/selected_power.py [--repeats 100] [--problems shift ...]

With ``--problems`` only those problems' rows are computed and replaced in the stored
table.

Two worker processes; each draw's seed is fixed, so the table does not depend on them.
"""

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd

from kmeviz.experiments.power import kernel_choice_power_table

PROBLEMS = (("two scales", 1.2, 59), ("two coordinates", 0.5, 60), ("blobs", 3.0, 61),
            ("shift", 0.08, 62))
METHODS = ("median heuristic", "learned (all data)", "learned ARD (split)", "MMDAgg",
           "MMD-FUSE")
SIZES = (100, 200, 300, 500, 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=100)
    parser.add_argument("--problems", nargs="*", default=[p for p, _, _ in PROBLEMS])
    args = parser.parse_args()
    start = time.time()
    path = Path(__file__).with_name("test_power_selected.csv")
    frames = []
    if set(args.problems) != {p for p, _, _ in PROBLEMS} and path.exists():
        kept = pd.read_csv(path)
        frames.append(kept[~kept.problem.isin(args.problems)])
    with ProcessPoolExecutor(2) as pool:
        for problem, parameter, seed in PROBLEMS:
            if problem not in args.problems:
                continue
            frames.append(kernel_choice_power_table(
                problem, parameter, sizes=SIZES, n_repeats=args.repeats, methods=METHODS,
                n_resamples=200, rng=seed, executor=pool, progress=lambda *_: None)
                .assign(problem=problem, parameter=parameter))
    table = pd.concat(frames, ignore_index=True)
    columns = ["problem", "parameter", *[c for c in frames[-1].columns
                                         if c not in ("problem", "parameter")]]
    order = {p: i for i, (p, _, _) in enumerate(PROBLEMS)}
    table = table.sort_values("problem", key=lambda c: c.map(order), kind="stable")
    table[columns].to_csv(path, index=False)
    print(f"{time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
