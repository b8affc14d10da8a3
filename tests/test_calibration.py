"""Statistical calibration (slow): type-I error of every valid estimator/null pair.

Run with ``python -m pytest -m slow``. 1000 null draws per pair (n = 200 per sample);
the 99% Clopper–Pearson interval of the rejection rate must contain α = 0.05.
"""

import pytest

from kmeviz.experiments import size_table


@pytest.mark.slow
def test_type_one_error_of_every_valid_pair():
    df = size_table(n=200, n_repeats=1000, rng=2026)
    assert df["within_interval"].all(), df.to_string()


@pytest.mark.slow
def test_type_one_error_with_unequal_sizes():
    df = size_table(n=150, m=250, n_repeats=600, rng=7)
    assert df["within_interval"].all(), df.to_string()
