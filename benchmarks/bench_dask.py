"""Scaling out with dask (issue 14): n = 10⁸ points on a LocalCluster, and a runner on it.

``python -m benchmarks.bench_dask [--n N] [--quick]``

1. A Nyström KME fit and a Nyström MMD test (spectral null) on ``n`` points, d = 10, drawn
   lazily in chunks of 10⁶ by ``kmeviz.chunked.lazy_sample``, on a two-worker
   ``LocalCluster`` (one thread each: this machine has two cores). Reported: wall time,
   the peak resident memory of each worker process, and the seconds per 10⁶ points
   against the in-memory numpy path at n = 10⁶ measured in the same run (drawing the
   points plus the estimator, the engine on both cores). The dask path draws every chunk
   twice (once to read the landmarks, once for the pass), which the ratio includes.
2. ``ksd_power`` of one dimension with 100 draws, serially and on the cluster's
   executor: the speed-up, and whether the tables are identical.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np
import pandas as pd

import kmeviz as K
from kmeviz.chunked import lazy_sample
from kmeviz.experiments import ksd_power, paper_mixture

from ._util import print_table

CHUNK = 1_000_000
D = 10
M = 100  # landmarks


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class _Mixture:
    """The Nyström paper's mixture (Sec. 6.1) in d = 10, as a picklable chunk sampler."""

    def __init__(self):
        self.mixture = paper_mixture(d=D, rng=0)

    def __call__(self, rows, rng):
        return self.mixture.sample(rows, rng=rng)


def _shifted_normal(shift, rows, rng):
    X = rng.standard_normal((rows, D))
    X[:, 0] += shift
    return X


def _fit(X, kernel):
    return K.NystromKME(kernel, M, rng=1).fit(X).squared_norm()


def _test(X, Y, kernel):
    return K.mmd_test(X, Y, kernel, estimator="pooled-nystrom", null="spectral",
                      n_landmarks=M, rng=2)


def in_memory(kernel, sampler, shift) -> dict:
    """Seconds for 10⁶ points on the numpy path: drawing them, and the estimator."""
    out = {}
    g = np.random.default_rng(0)
    t0 = time.perf_counter()
    X = sampler(CHUNK, g)
    out["fit: draw"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    _fit(X, kernel)
    out["fit: estimator"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    X, Y = _shifted_normal(0.0, CHUNK // 2, g), _shifted_normal(shift, CHUNK // 2, g)
    out["test: draw"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    _test(X, Y, kernel)
    out["test: estimator"] = time.perf_counter() - t0
    return out


def scale_out(client, n: int) -> None:
    from functools import partial

    sampler = _Mixture()
    kernel = K.GaussianKernel(K.median_heuristic(sampler(1000, np.random.default_rng(9)),
                                                 rng=0))
    shift = 0.002  # a mean shift of 0.002 in one coordinate: found at n = 10⁸, not at 10⁶
    base = in_memory(kernel, sampler, shift)
    rows = []
    X = lazy_sample(sampler, n, dim=D, chunk_rows=CHUNK, rng=3)
    t0 = time.perf_counter()
    norm = _fit(X, kernel)
    wall = time.perf_counter() - t0
    memory = client.run(_peak_rss_mb)
    per = wall / (n / CHUNK)
    numpy_per = base["fit: draw"] + base["fit: estimator"]
    rows.append(["Nyström KME fit", n, M, wall, per, numpy_per, per / numpy_per,
                 max(memory.values()), f"‖μ̂_m‖² = {norm:.6f}"])
    half = n // 2
    Xs = lazy_sample(partial(_shifted_normal, 0.0), half, dim=D, chunk_rows=CHUNK // 2, rng=4)
    Ys = lazy_sample(partial(_shifted_normal, shift), half, dim=D, chunk_rows=CHUNK // 2,
                     rng=5)
    t0 = time.perf_counter()
    result = _test(Xs, Ys, kernel)
    wall = time.perf_counter() - t0
    memory = client.run(_peak_rss_mb)
    per = wall / (n / CHUNK)
    numpy_per = base["test: draw"] + base["test: estimator"]
    rows.append(["Nyström MMD test (spectral null)", n, M, wall, per, numpy_per,
                 per / numpy_per, max(memory.values()),
                 f"MMD² = {result.statistic:.3g}, p = {result.p_value:.3g}"])
    print_table(
        f"Dask LocalCluster, 2 workers × 1 thread, d = {D}, chunks of 10⁶ rows "
        f"(numpy path at n = 10⁶: fit draw {base['fit: draw']:.2f} s + estimator "
        f"{base['fit: estimator']:.2f} s; test draw {base['test: draw']:.2f} s + "
        f"estimator {base['test: estimator']:.2f} s)",
        ["job", "n", "m", "wall s", "s per 10⁶ (dask)", "s per 10⁶ (numpy, n = 10⁶)",
         "ratio", "peak RSS per worker MB", "result"], rows)


def runner_speedup(client, n_repeats: int) -> None:
    kwargs = dict(n=1000, n_repeats=n_repeats, rng=0)
    t0 = time.perf_counter()
    serial = ksd_power("laplace", [5], **kwargs)
    t_serial = time.perf_counter() - t0
    t0 = time.perf_counter()
    parallel = ksd_power("laplace", [5], executor=client.get_executor(), **kwargs)
    t_parallel = time.perf_counter() - t0
    same = serial.drop(columns="runtime_s").equals(parallel.drop(columns="runtime_s"))
    print_table(f"ksd_power('laplace', [5], n=1000, n_repeats={n_repeats}), six tests of "
                "Fig. 1b per draw",
                ["run", "wall s", "speed-up", "table identical (but runtime_s)"],
                [["serial (executor=None)", t_serial, 1.0, "—"],
                 ["LocalCluster, 2 workers", t_parallel, t_serial / t_parallel, str(same)]])
    print(serial[["test", "rejections", "rate"]].to_string(index=False))


def main(argv=None) -> None:
    from distributed import Client, LocalCluster

    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_dask")
    parser.add_argument("--n", type=float, default=1e8, help="points (default 1e8)")
    parser.add_argument("--draws", type=int, default=100, help="ksd_power draws")
    parser.add_argument("--quick", action="store_true", help="n = 10⁷, 10 draws")
    args = parser.parse_args(argv)
    n, draws = (10**7, 10) if args.quick else (int(args.n), args.draws)
    pd.set_option("display.width", 120)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0", memory_limit="6GB") as cluster, \
            Client(cluster) as client:
        print(f"# dask {__import__('dask').__version__}, dashboard {client.dashboard_link}")
        scale_out(client, n)
        runner_speedup(client, draws)


if __name__ == "__main__":
    main()
