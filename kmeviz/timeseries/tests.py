"""The time-series tests, registered beside the i.i.d. ones (``Needs.ORDERED_ROWS``):

- ``mmd_test(null="dependent-wild-bootstrap")``: MMD²_b between two series, replicates
  uᵀKu over the joint Gram centred by the pooled mean, with u = [Wˣ/m; −Wʸ/n], Wˣ, Wʸ
  independent multiplier processes (Chwialkowski, Sejdinovic & Gretton 2014);
- ``ksd_test(null="dependent-wild-bootstrap")``: KSD²_V on a chain, Kalinke et al. Eq. 9
  with the sign chain of Eq. 10 flipping with probability (1 − e^{−1/ℓ})/2
  (Chwialkowski, Strathmann & Gretton 2016);
- ``hsic_test(null="dependent-wild-bootstrap")``: HSIC_b = (1/n²) 1ᵀ(K̃∘L̃)1 and
  Wᵀ(K̃∘L̃)W/n² (2014, Sec. 4);
- ``hsic_test(null="shift")`` and ``hsic_test(estimator="max-lag", null="shift")``: HSIC_b
  (or its maximum over lags |k| ≤ K) against Y circularly shifted by every s with A ≤ s ≤
  n − A (Chwialkowski & Gretton 2014), all shifts from one FFT pass.
"""

from __future__ import annotations

import math

import numpy as np

from ..budget import check_memory
from ..gof.wild import WildSigns, full_wild_bootstrap
from ..kernels import SteinKernel, symmetric_quadratic_forms
from ..kernels.engine import single_threaded_blas
from ..needs import Needs
from ..registry import GOF_TESTS, INDEPENDENCE_TESTS, KERNEL_FLOPS, MMD_TESTS, Outcome
from ..twosample.spectra import centred_gram
from . import blocks, nulls

#: the fewest shifts a shift test accepts (before they are thinned)
MIN_SHIFTS = 19
#: fewer thinned shifts than this and the p-value cannot reach 0.05: the result says so
FEW_SHIFTS = 20


#: The dependent wild bootstrap's fixed cost beyond a call's (its multiplier process and
#: serial checks): 3 ms measured at N = 200, in the unit of ``kmeviz.costs``.
WILD_SETUP_FLOPS = 2e8


def _gram_work(N, d) -> float:
    return 2.0 * N * N * (2.0 * d + KERNEL_FLOPS)


def _wild_length(length, n, family, *samples) -> float:
    if length is None:
        return nulls.wild_length(n, *samples, scale=nulls.WILD_SCALES[family],
                                 product=family == "independence",
                                 cap=nulls.MAX_LENGTH_FRACTION[family])
    if not length > 0 or length > n:
        raise ValueError(f"wild_length must be in (0, n] = (0, {n}], got {length}")
    return float(length)


def _describe_wild(result) -> str:
    return (f"{result.null_samples.size} replicates, multiplier correlation length "
            f"ℓ = {result.null_params['wild_length']:.3g}")


def _describe_shift(result) -> str:
    p = result.null_params
    lags = f", lags |k| ≤ {p['max_lag']}" if p.get("max_lag") else ""
    return (f"{result.null_samples.size} circular shifts {p['min_shift']} … "
            f"{p['max_shift']}, every {p['shift_step']}{lags}")


@MMD_TESTS.register("biased", "dependent-wild-bootstrap", cost="quadratic",
                    needs=Needs.ORDERED_ROWS, options=("wild_length",),
                    work=lambda N, d, B: _gram_work(N, d) / 2 + 3.0 * N * N * B,
                    memory=lambda N, d, B: 24.0 * N * B,
                    describe_null=_describe_wild, resample_counts=lambda r: {
                        "n_resamples": r.null_samples.size},
                    summary="two series: multiplier processes (Chwialkowski et al. 2014)")
def mmd_dependent_wild(X, Y, kernel, *, estimator, n_resamples, rng, wild_length) -> Outcome:
    """MMD²_b of two series and its dependent wild bootstrap (module docstring)."""
    m, n = X.shape[0], Y.shape[0]
    length = _wild_length(wild_length, min(m, n), "two-sample", X, Y)
    check_memory(24.0 * (m + n) * (n_resamples + 1), "the dependent wild bootstrap",
                 "n_resamples or the sample sizes")
    U = np.empty((m + n, n_resamples + 1))
    U[:m, 0], U[m:, 0] = 1.0 / m, -1.0 / n
    U[:m, 1:] = nulls.multiplier_process(m, n_resamples, length, rng) / m
    U[m:, 1:] = -nulls.multiplier_process(n, n_resamples, length, rng) / n
    U -= U.mean(axis=0)  # (Hu)ᵀ K (Hu): the joint Gram centred by the pooled mean
    forms, _, _ = symmetric_quadratic_forms(kernel, np.vstack([X, Y]), U)
    return Outcome(float(forms[0]), null_samples=forms[1:],
                   null_params={"wild_length": length})


@GOF_TESTS.register("full", "dependent-wild-bootstrap", cost="quadratic",
                    needs=Needs.ORDERED_ROWS | Needs.KERNEL_DERIVATIVES,
                    options=("wild_length",),
                    describe_null=_describe_wild,
                    summary="a chain: signs flipping with prob. (1 − e^(−1/ℓ))/2 "
                            "(Chwialkowski et al. 2016)")
def ksd_dependent_wild(X, target, kernel, *, n_resamples, rng, wild_length) -> Outcome:
    """KSD²_V of a chain and its wild bootstrap with autocorrelated signs (module
    docstring). At ℓ → 0 the signs are ``ksd_test(wild="markov")``'s."""
    stein = SteinKernel(kernel, target)
    prepared = stein.prepare(X)
    n = X.shape[0]
    length = _wild_length(wild_length, n, "gof", X)
    check_memory(8.0 * n * n_resamples, "the dependent wild bootstrap",
                 "n_resamples (D, the bootstrap replicates) or n")
    signs = WildSigns(n_resamples, rng, flip_probability=nulls.flip_probability(length))
    W = signs.take(n)
    with single_threaded_blas():
        statistic, null_samples = full_wild_bootstrap(stein, prepared, W)
    return Outcome(statistic, null_samples=null_samples, null_params={"wild_length": length})


def _hsic_memory(N, d, B) -> float:
    return 16.0 * N * N + 24.0 * N * B


@INDEPENDENCE_TESTS.register("biased", "dependent-wild-bootstrap", cost="quadratic",
                             needs=Needs.ORDERED_ROWS, options=("wild_length",),
                             work=lambda N, d, B: _gram_work(N, d) + 2.0 * N * N * B
                             + WILD_SETUP_FLOPS,
                             memory=_hsic_memory, describe_null=_describe_wild,
                             summary="series: multiplier processes on K̃∘L̃ "
                                     "(Chwialkowski et al. 2014)")
def hsic_dependent_wild(X, Y, kernel, *, estimator, n_resamples, rng, wild_length) -> Outcome:
    """HSIC_b of two series and its dependent wild bootstrap (module docstring)."""
    n = X.shape[0]
    length = _wild_length(wild_length, n, "independence", X, Y)
    check_memory(_hsic_memory(n, 0, n_resamples), "the dependent wild bootstrap HSIC",
                 "n_resamples or n")
    H = centred_gram(X, kernel.x)
    H *= centred_gram(Y, kernel.y)
    statistic = float(H.sum()) / n**2
    W = nulls.multiplier_process(n, n_resamples, length, rng)
    return Outcome(statistic, null_samples=nulls.quadratic_replicates(H, W),
                   null_params={"wild_length": length}, one_pass=False)


def _checked_max_lag(max_lag, n) -> int:
    """K: 0 for the tests without ``max_lag`` in their options (their default), the
    default ⌈log n⌉ for None."""
    max_lag = nulls.default_max_lag(n) if max_lag is None else int(max_lag)
    if not 0 <= max_lag < n // 4:
        raise ValueError(f"max_lag must be an integer in [0, n/4) = [0, {n // 4}), got "
                         f"{max_lag}")
    return max_lag


def _shift_work(N, d, B) -> float:
    return _gram_work(N, d) + 135.0 * N * N * math.log2(max(N, 2))


@INDEPENDENCE_TESTS.register("biased", "shift", cost="quadratic", needs=Needs.ORDERED_ROWS,
                             options=("min_shift",), work=_shift_work,
                             memory=lambda N, d, B: 24.0 * N * N,
                             describe_null=_describe_shift, resample_counts=lambda r: {
                                 "n_resamples": r.null_samples.size},
                             summary="Y circularly shifted (Chwialkowski & Gretton 2014)")
@INDEPENDENCE_TESTS.register("max-lag", "shift", cost="quadratic", needs=Needs.ORDERED_ROWS,
                             options=("min_shift", "max_lag"), work=_shift_work,
                             memory=lambda N, d, B: 24.0 * N * N,
                             describe_null=_describe_shift, resample_counts=lambda r: {
                                 "n_resamples": r.null_samples.size},
                             summary="max over lags −K ≤ k ≤ K of HSIC_b, shifts null")
def hsic_shift(X, Y, kernel, *, estimator, n_resamples, rng, min_shift, max_lag=0) -> Outcome:
    """HSIC_b (or ``max-lag``: max_{|k| ≤ K} HSIC_b(X_t, Y_{t+k})) and its null of circular
    shifts s ∈ [A + K, n − A − K] (``nulls.shifted_statistics``: every shift at once), one
    in every τ_T, τ_T the autocorrelation time of the shifted statistics
    (``nulls.effective_count``). ``n_resamples`` is not used."""
    n = X.shape[0]
    max_lag = _checked_max_lag(max_lag, n)
    A = nulls.min_shift(n, X, Y) if min_shift is None else int(min_shift)
    if A < 1:
        raise ValueError(f"min_shift must be a positive integer, got {min_shift}")
    lo, hi = A + max_lag, n - A - max_lag
    if hi - lo + 1 < MIN_SHIFTS:
        raise ValueError(
            f"too few rows for the shift test: n = {n} rows leave {max(hi - lo + 1, 0)} "
            f"shifts between {lo} and {hi} (min_shift = {A}, max_lag = {max_lag}); it "
            f"needs at least {MIN_SHIFTS}: more rows, a smaller min_shift or max_lag")
    check_memory(24.0 * n * n, "the shift test", "n")
    T = nulls.shifted_statistics(centred_gram(X, kernel.x), centred_gram(Y, kernel.y))
    M = nulls.max_over_lags(T, max_lag)
    # neighbouring shifts give nearly equal statistics: keep shifts one autocorrelation
    # time of the shifted statistics apart, nearly independent replicates (all of them
    # ranked, the 95 % quantile of 13 effective replicates passed 9–16 % of the time)
    effective = nulls.effective_count(M[lo:hi + 1])
    step = max(1, int(round((hi - lo + 1) / effective)))
    params = {"min_shift": A, "max_shift": n - A, "max_lag": max_lag,
              "effective_shifts": effective, "shift_step": step,
              "lag": int((np.argmax(np.r_[T[n - max_lag:], T[:max_lag + 1]]) - max_lag)
                         if max_lag else 0),
              "shifted": T}
    replicates = M[lo:hi + 1:step]
    fitted = {}
    if replicates.size + 1 < FEW_SHIFTS:
        fitted["note"] = (f"only {replicates.size} nearly independent shifts: the p-value is "
                          f"at least 1/{replicates.size + 1}; for more replicates use "
                          "null='block-permutation' or 'dependent-wild-bootstrap'")
    return Outcome(float(M[0]), null_samples=replicates, null_params=params, fitted=fitted,
                   one_pass=False)


def _describe_blocks(result) -> str:
    p = result.null_params
    lags = f", lags |k| ≤ {p['max_lag']}" if p["max_lag"] else ""
    return (f"{result.null_samples.size} circular block permutations of Y, blocks of "
            f"{p['block_size']} rows{lags}")


#: a replicate's gather of the permuted Gram, per entry, in matrix-product flops: it is
#: memory-bound (measured 650–970 flop-equivalents per entry at n = 1000 here, against
#: ~40 per entry and lag for the lags' BLAS products)
GATHER_FLOPS = 600.0


def _block_work(N, d, B, lags=0) -> float:
    return _gram_work(N, d) + 0.7 * N * N * B * (GATHER_FLOPS + 40.0 * lags)


def _lagged_block_work(N, d, B) -> float:
    return _block_work(N, d, B, lags=2 * nulls.default_max_lag(max(N, 2)) + 1)


@INDEPENDENCE_TESTS.register("biased", "block-permutation", cost="quadratic",
                             needs=Needs.ORDERED_ROWS, options=("block_size",),
                             work=_block_work, memory=lambda N, d, B: 40.0 * N * N,
                             describe_null=_describe_blocks,
                             summary="Y's blocks permuted (Mehta et al. 2019)")
@INDEPENDENCE_TESTS.register("max-lag", "block-permutation", cost="quadratic",
                             needs=Needs.ORDERED_ROWS, options=("block_size", "max_lag"),
                             work=_lagged_block_work, memory=lambda N, d, B: 40.0 * N * N,
                             describe_null=_describe_blocks,
                             summary="max over lags of HSIC_b, Y's blocks permuted "
                                     "(hyppo's DcorrX null)")
def hsic_block_permutation(X, Y, kernel, *, estimator, n_resamples, rng, block_size,
                           max_lag=0) -> Outcome:
    """HSIC_b (or ``max-lag``: max_{|k| ≤ K} HSIC_b(X_t, Y_{t+k})) against circular block
    permutations of Y (``blocks``), the statistic recomputed on each."""
    n = X.shape[0]
    max_lag = _checked_max_lag(max_lag, n)
    block = blocks.check_block_length(
        blocks.default_block_length(n, X, Y) if block_size is None else int(block_size), n)
    check_memory(40.0 * n * n, "the block permutation test", "n")
    statistic, replicates = blocks.block_permutation_statistics(
        centred_gram(X, kernel.x), centred_gram(Y, kernel.y), max_lag, block, n_resamples,
        rng)
    fitted = {}
    if n // block < blocks.FEW_BLOCKS:
        fitted["note"] = (f"only {n // block} blocks of {block} rows: with so few, the block "
                          "permutation null is too narrow (10 % rejections of independent "
                          "AR(1) pairs at α = 0.05 with 7 blocks); prefer "
                          "null='dependent-wild-bootstrap'")
    return Outcome(statistic, null_samples=replicates, fitted=fitted,
                   null_params={"block_size": block, "max_lag": max_lag}, one_pass=False)
