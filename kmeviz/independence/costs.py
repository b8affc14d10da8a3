"""The registered independence tests' ``work`` models: about how many flops of a matrix
product each does at N rows, d = d_X + d_Y columns and B replicates (the unit of
``kmeviz.costs``; fitted to ``benchmarks/bench_budget``'s measurements)."""

from __future__ import annotations

from ..registry import KERNEL_FLOPS, SPECTRAL_FLOPS
from .hsic import FACTOR_WORK


def _pairs(N, d) -> float:
    """Work of the N² kernel evaluations of both Grams."""
    return 2.0 * N * N * (2.0 * d + KERNEL_FLOPS)


def _rank_product(N, d) -> float:
    """About r_X r_Y, the product of the centred Grams' factor ranks at the median
    heuristic (``hsic.centred_grams``), from d = d_X + d_Y alone: measured 340–440 at
    d = 2, 1400–2600 at d = 3, 9600 at d = 4 (n = 200–2000): 450 · 4^(d − 2). Above
    ``FACTOR_WORK`` · N the Grams are kept whole."""
    return 450.0 * 4.0 ** max(d - 2, 0)


def _permutation_work(N, d, B) -> float:
    """The Grams, then per replicate the permutation's bookkeeping (about 3000 flops of
    a product per row) and the core: 2.5 N r_X r_Y by factors, or N² gathers of the whole
    permuted Gram (memory-bound, about 100 flops each: 11.7 s at N = 2000, d = 6 on a
    45 GFLOP/s core; gathers cost 1.5-2.5× more flops on a machine of faster products)."""
    r = _rank_product(N, d)
    core = 2.5 * N * r if r <= FACTOR_WORK * N else 100.0 * N * N
    return _pairs(N, d) + B * (3000.0 * N + core)


def _spectral_work(N, d, B) -> float:
    """The Grams, their eigenvalues (about 600 N r_X r_Y), and the simulation of B sums
    over the pairs of eigenvalues (about 50 flops a pair; every pair of a small N's whole
    Grams: 0.07 s at N = 200, d = 4)."""
    r = _rank_product(N, d)
    return (8.0 * _pairs(N, d) + 600.0 * N * min(r, FACTOR_WORK * N)
            + 50.0 * B * min(4.0 * r, N * N) + SPECTRAL_FLOPS)
