"""How often PC on kernel CI tests finds the true graph (issue 58, points 3 and 4): the
structural Hamming distance (SHD) of PC's CPDAG to the true DAG's CPDAG against n, for
KCI, Nyström KCI, RCIT and RCoT inside PC, on random non-linear structural models
(``kmeviz.discovery.models``), with a 95 % interval of the mean over the models; and the
linear-time tests inside PC at n = 10⁴ (time and SHD).
``python -m benchmarks.bench_pc_accuracy [--quick]``."""

from __future__ import annotations

import sys
import time

import numpy as np
from scipy import stats

import kmeviz as K
from kmeviz.discovery import dag_to_cpdag, random_dag
from kmeviz.discovery.graph import structural_hamming_distance
from kmeviz.discovery.models import structural_sample

from ._util import print_table

#: PC's test names of the four CI tests compared
TESTS = {"KCI": "kci", "Nyström KCI": "nystrom/gamma", "RCIT": "rcit/spectral",
         "RCoT": "rcot/spectral"}
#: nodes and edge density of the random models
NODES, DENSITY = 6, 0.35


def model(seed: int, n: int, p: int = NODES):
    """A random DAG and n rows of its structural model (one stream per seed)."""
    rng = np.random.default_rng([58, seed])
    dag = random_dag(p, DENSITY, rng)
    return dag, structural_sample(dag, n, rng=rng)


def shd_and_seconds(test: str, dag, data) -> tuple[int, float]:
    t0 = time.perf_counter()
    result = K.pc(data, test=test, rng=0)
    seconds = time.perf_counter() - t0
    return structural_hamming_distance(result.graph, dag_to_cpdag(dag)), seconds


def interval(values) -> str:
    """mean [95 % t-interval of the mean]."""
    values = np.asarray(values, dtype=float)
    mean = values.mean()
    half = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
    return f"{mean:.2f} [{max(mean - half, 0):.2f}, {mean + half:.2f}]"


def accuracy(sizes, models: int) -> list:
    rows = []
    for n in sizes:
        data = [model(seed, n) for seed in range(models)]
        for name, test in TESTS.items():
            runs = [shd_and_seconds(test, dag, X) for dag, X in data]
            shd = [s for s, _ in runs]
            rows.append([n, name, models, interval(shd), f"{np.mean(np.equal(shd, 0)):.2f}",
                         f"{np.median([t for _, t in runs]):.2f}"])
            print(" | ".join(map(str, rows[-1])), flush=True)
    return rows


def large(n: int, models: int, p: int = 8) -> list:
    rows = []
    for name in ("Nyström KCI", "RCIT"):
        runs = []
        for seed in range(models):
            dag, X = model(seed, n, p)
            runs.append(shd_and_seconds(TESTS[name], dag, X))
        rows.append([n, p, name, models, " ".join(str(s) for s, _ in runs),
                     " ".join(f"{t:.1f}" for _, t in runs)])
        print(" | ".join(map(str, rows[-1])), flush=True)
    return rows


def run(quick: bool = False) -> None:
    sizes, models = ((200, 500), 5) if quick else ((200, 500, 1000, 2000), 50)
    print_table(f"PC on {NODES}-node random non-linear models (edge density {DENSITY}): "
                "structural Hamming distance to the true CPDAG, mean [95 % interval] "
                "over the models", ["n", "CI test", "models", "SHD", "share SHD = 0",
                                    "median s"], accuracy(sizes, models))
    print_table("The linear-time tests inside PC at large n, 8-node models: SHD and seconds "
                "of each model", ["n", "nodes", "CI test", "models", "SHD", "seconds"],
                large(2000 if quick else 10_000, 2 if quick else 3))


if __name__ == "__main__":
    run(quick="--quick" in sys.argv)
