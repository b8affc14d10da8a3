"""The Gaussian tile before and after issue 46, against the two-thread tile reference of
``bench_engine``, in one run: ``python -m benchmarks.bench_engine_tile``.

Exact biased MMD², n = 10⁴ per sample, d = 16; each version three times, interleaved
(min and median). "before" is the tile of 0.2 (the product, then two passes subtracting
the half squared norms, with two tasks in flight per thread); "after" is one product of
the rows augmented by [-h, 1] and [1, -h] (and 16 small tasks in flight per thread).
"""

from __future__ import annotations

import time

import numpy as np

import kmeviz as K
import kmeviz.kernels.engine as engine
from kmeviz.kernels.base import _Prepared

from .bench_engine import reference_mmd2
from .bench_engine import report_reference_ratios as report


class BeforeGaussian(K.GaussianKernel):
    """The Gaussian tile of kmeviz 0.2 before issue 46."""

    def prepare_validated(self, X):
        Xs = X / self.bandwidth
        return _Prepared(Xs, 0.5 * np.einsum("ij,ij->i", Xs, Xs))

    def tile_into(self, a, b, out):
        np.dot(a.X, b.X.T, out=out)
        out -= a.h[:, None]
        out -= b.h[None, :]
        return np.exp(out, out=out)


def run(n: int = 10_000, d: int = 16, repeats: int = 3) -> None:
    X, Y = K.uniform_boxes_two_sample(n, dim=d, rng=0)
    sigma = K.median_heuristic(X, Y, rng=0)
    kernels = {"before": BeforeGaussian(sigma), "after": K.GaussianKernel(sigma)}
    in_flight = {"before": 2, "after": engine.SMALL_RESULTS_IN_FLIGHT}
    times, values = {}, {}
    for _ in range(repeats):
        for dtype in ("float64", "float32"):
            for label in ("reference", "before", "after"):
                if label == "reference":
                    def call(dtype=dtype):
                        return reference_mmd2(X, Y, sigma, threads=2, dtype=np.dtype(dtype))
                else:
                    engine.SMALL_RESULTS_IN_FLIGHT = in_flight[label]

                    def call(dtype=dtype, kernel=kernels[label]):
                        with K.config_context(dtype=dtype):
                            return K.mmd2(X, Y, kernel)
                t0 = time.perf_counter()
                values[dtype, label] = call()
                times.setdefault((dtype, label), []).append(time.perf_counter() - t0)
    engine.SMALL_RESULTS_IN_FLIGHT = in_flight["after"]
    print(f"\n## The Gaussian tile before and after issue 46 (n = {n}, d = {d}, "
          f"{repeats} repeats)")
    for dtype in ("float64", "float32"):
        ref = times[dtype, "reference"]
        print(f"{dtype}: reference min {min(ref):.3f} s, median {np.median(ref):.3f} s")
        for label in ("before", "after"):
            t = times[dtype, label]
            print(f"  {label}: min {min(t):.3f} s ({min(t) / min(ref):.2f}×), median "
                  f"{np.median(t):.3f} s ({np.median(t) / np.median(ref):.2f}×); "
                  f"MMD² = {values[dtype, label]!r}")
    exact = values["float64", "before"]
    print(f"float64 after vs before: relative difference "
          f"{abs(values['float64', 'after'] - exact) / exact:.2g}; float32 after vs "
          f"float64: {abs(values['float32', 'after'] - exact) / exact:.2g}")
    report({dtype: min(times[dtype, "after"]) / min(times[dtype, "reference"])
            for dtype in ("float64", "float32")})


if __name__ == "__main__":
    run()
