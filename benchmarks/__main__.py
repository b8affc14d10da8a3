"""Run every benchmark in one process: ``python -m benchmarks [--quick]``.

Each table compares against a baseline measured in the same run.
"""

import argparse
import os
import platform

from . import (
    bench_agginc,
    bench_aggregated,
    bench_apps,
    bench_budget,
    bench_cme,
    bench_compare,
    bench_conditional,
    bench_dependence_map,
    bench_engine,
    bench_engine_tile,
    bench_fuzz,
    bench_independence,
    bench_ksd,
    bench_mmd,
    bench_nystrom,
    bench_pc,
    bench_pc_accuracy,
    bench_power,
    bench_sessions,
    bench_spectral,
    bench_tests,
    bench_timeseries,
)

parser = argparse.ArgumentParser(prog="python -m benchmarks")
parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
args = parser.parse_args()
print(
    f"# kmeviz benchmarks — {platform.processor() or platform.machine()}, "
    f"{os.cpu_count()} cores, Python {platform.python_version()}"
)
bench_engine.run(quick=args.quick)
bench_engine_tile.run(n=2_000 if args.quick else 10_000)
bench_mmd.run(quick=args.quick)
bench_tests.run(quick=args.quick)
bench_spectral.run(quick=args.quick)
bench_compare.run(quick=args.quick)
bench_budget.run(quick=args.quick)
bench_aggregated.run(quick=args.quick)
bench_agginc.run(quick=args.quick)
bench_nystrom.run(quick=args.quick)
bench_cme.run(quick=args.quick)
bench_ksd.run(quick=args.quick)
bench_independence.run(quick=args.quick)
bench_conditional.run(quick=args.quick)
bench_timeseries.run(quick=args.quick)
bench_dependence_map.run(quick=args.quick)
bench_pc.run(quick=args.quick)
bench_pc_accuracy.run(quick=args.quick)
bench_power.run(quick=args.quick)
bench_apps.run(quick=args.quick)
bench_fuzz.run(quick=args.quick)
bench_sessions.run(quick=args.quick)
try:
    import distributed  # noqa: F401  (the dask extra)
except ImportError:
    print("\n(bench_dask skipped: pip install 'kmeviz[dask]')")
else:
    from . import bench_dask

    bench_dask.main(["--quick"] if args.quick else [])
