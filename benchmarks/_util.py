"""Timing and memory helpers shared by the benchmarks."""

from __future__ import annotations

import time
import tracemalloc


def best_time(fn, *, repeat: int = 3) -> tuple[float, object]:
    """Best wall-clock time of ``repeat`` calls, and the last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def peak_memory_mb(fn) -> tuple[float, object]:
    """Peak extra memory (MB) allocated while ``fn`` runs (numpy allocations are traced)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 2**20, result


def print_table(title: str, header: list[str], rows: list[list]) -> None:
    cells = [header] + [[f"{c:.4g}" if isinstance(c, float) else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    print(f"\n## {title}\n")
    for k, r in enumerate(cells):
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |")
        if k == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
