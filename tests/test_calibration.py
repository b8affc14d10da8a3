"""Statistical calibration (slow): type-I error of every valid estimator/null pair.

Run with ``python -m pytest -m slow``. P = Q = N(0, I₂), Gaussian kernel σ = 1, α = 0.05;
the 99% Clopper–Pearson interval of the rejection rate over the null draws must contain
α. The linear-time and B-test normal nulls are asymptotic in the number of summands, so
they are checked at n = 3000 (at n = 200 the B-test has 14 blocks and is conservative,
about 3%); the quadratic-time tests at n = 200.
"""

import pytest

from kmeviz import VALID_NULLS
from kmeviz.experiments import size_table

QUADRATIC = [(e, n) for e, ns in VALID_NULLS.items() for n in ns
             if e not in ("linear", "block")]
LINEAR = [("linear", "normal"), ("block", "normal")]
EQUAL_SIZES_ONLY = [("unbiased", "pearson")]


@pytest.mark.slow
def test_type_one_error_of_quadratic_time_pairs():
    df = size_table(n=200, n_repeats=1000, rng=2026, pairs=QUADRATIC)
    assert df["within_interval"].all(), df.to_string()


@pytest.mark.slow
def test_type_one_error_of_linear_time_and_block_pairs():
    df = size_table(n=3000, n_repeats=1000, rng=31, pairs=LINEAR)
    assert df["within_interval"].all(), df.to_string()


@pytest.mark.slow
def test_type_one_error_with_unequal_sizes():
    pairs = [p for p in QUADRATIC if p not in EQUAL_SIZES_ONLY]
    df = size_table(n=150, m=250, n_repeats=600, rng=7, pairs=pairs)
    assert df["within_interval"].all(), df.to_string()


# -- goodness of fit (Kalinke et al.): P = Q = N(0, I_d) -------------------------------
KSD_METHODS = {"full IMQ": ("full", "imq", None), "Nyström IMQ (m = 4√n)": ("nystrom", "imq", 4),
               "full Gauss": ("full", "gauss", None),
               "Nyström Gauss (m = 4√n)": ("nystrom", "gauss", 4)}


def ksd_size_table(*, n, d, n_repeats, methods, rng, level=0.99):
    from kmeviz.experiments.ksd import ksd_power

    # D = 199 replicates: α (D + 1) is an integer, so the wild bootstrap level is exact
    return ksd_power("null", [d], n=n, n_repeats=n_repeats, methods=methods, n_resamples=199,
                     level=level, rng=rng)


@pytest.mark.slow
def test_type_one_error_of_ksd_tests():
    df = ksd_size_table(n=500, d=5, n_repeats=1000, methods=KSD_METHODS, rng=55)
    assert ((df.ci_low <= 0.05) & (0.05 <= df.ci_high)).all(), df.to_string()


def test_type_one_error_of_the_nystrom_spectral_null_bounded():
    """The CI-sized check of the Nyström spectral null (the slow tests cover it with 1000
    draws): 400 null draws at n = 150 per sample, 99% interval around the rate."""
    df = size_table(n=150, n_repeats=400, rng=404, pairs=[("pooled-nystrom", "spectral")])
    assert ((df.ci_low <= 0.05) & (0.05 <= df.ci_high)).all(), df.to_string()


def test_type_one_error_of_the_pearson_null_bounded():
    """CI-sized check of the Pearson null (the slow tests run 1000 draws): 400 null draws
    at n = 100 per sample, 99% interval around the rate."""
    df = size_table(n=100, n_repeats=400, rng=808, pairs=[("unbiased", "pearson")])
    assert ((df.ci_low <= 0.05) & (0.05 <= df.ci_high)).all(), df.to_string()
