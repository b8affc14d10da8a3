import numpy as np
import pytest

import kmeviz as K
from kmeviz.experiments import (
    binomial_interval,
    fastmmd_type2_vs_L,
    rejection_rates,
    size_table,
    type2_vs_epsilon,
)


def test_clopper_pearson_interval():
    lo, hi = binomial_interval(5, 100, 0.95)
    assert lo == pytest.approx(0.01643, abs=1e-4) and hi == pytest.approx(0.11284, abs=1e-4)
    assert binomial_interval(0, 10)[0] == 0.0 and binomial_interval(10, 10)[1] == 1.0


def test_rejection_rates_are_tidy_paired_and_report_progress():
    calls = []
    tests = {"perm": {"kernel": K.GaussianKernel(1.0), "n_resamples": 49},
             "gamma": {"kernel": K.GaussianKernel(1.0), "null": "gamma"}}
    df = rejection_rates(lambda g: (g.normal(size=(30, 2)), g.normal(1.0, 1.0, size=(30, 2))),
                         tests, n_repeats=5, rng=0, progress=lambda d, t: calls.append((d, t)))
    assert list(df["test"]) == ["perm", "gamma"]
    assert set(df.columns) >= {"rejections", "repeats", "rate", "ci_low", "ci_high", "runtime_s"}
    assert np.all(df["rate"] == 1.0)  # a unit mean shift at n = 30 is always detected
    assert calls == [(i, 5) for i in range(1, 6)]
    again = rejection_rates(lambda g: (g.normal(size=(30, 2)), g.normal(size=(30, 2))), tests,
                            n_repeats=5, rng=1)
    assert again["rejections"].tolist() == rejection_rates(
        lambda g: (g.normal(size=(30, 2)), g.normal(size=(30, 2))), tests, n_repeats=5,
        rng=1)["rejections"].tolist()


def test_type_one_error_bounded_subset():
    """CI subset of the calibration: 200 null draws, exact permutation and linear-normal.

    The permutation test with B = 199 is exact at α = 0.05; the 99% Clopper–Pearson
    interval of 200 draws must contain 0.05. The full table is test_calibration (slow).
    """
    df = size_table(n=100, n_repeats=200, rng=11,
                    pairs=[("biased", "permutation"), ("linear", "normal")])
    assert df["within_interval"].all(), df


def test_fig8a_runner_trend_small():
    df = fastmmd_type2_vs_L(Ls=(1, 64), n=200, n_repeats=12, n_resamples=99, rng=0)
    assert list(df["L"]) == [1, 64]
    assert {"type2_error", "type2_ci_low", "type2_ci_high", "runtime_s"} <= set(df.columns)
    assert df["type2_error"].iloc[1] <= df["type2_error"].iloc[0]


def test_fig8b_runner_shape_and_progress():
    seen = []
    df = type2_vs_epsilon(epsilons=(1.5, 3.0), n=60, n_repeats=2, n_resamples=19, rng=0,
                          progress=lambda d, t: seen.append((d, t)))
    assert len(df) == 2 * 5 and set(df["epsilon"]) == {1.5, 3.0}  # five tests of Fig. 8b
    assert seen[-1] == (4, 4) and seen[0] == (1, 4)


def test_nystrom_error_vs_m_small():
    from kmeviz.experiments import nystrom_error_vs_m

    df = nystrom_error_vs_m(ns=(400,), ms=(5, 40, 200), d=3, n_repeats=3, rng=0,
                            baselines=("uniform",))
    ny = df[df.estimator == "nystrom"].set_index("m")["mean_error"]
    emp = df[df.estimator == "empirical"]["mean_error"].iloc[0]
    unif = df[df.estimator == "uniform"].set_index("m")["mean_error"]
    assert ny[5] > ny[40] > ny[200] * 0.999
    assert ny[200] < 1.1 * emp and unif[200] > ny[200]
    assert set(df.columns) >= {"n", "m", "estimator", "mean_error", "p05", "p95", "runtime_s"}


def test_every_rate_runner_has_the_one_column_schema():
    """Two-sample and goodness-of-fit runners: their parameters, then RATE_COLUMNS."""
    from kmeviz.experiments.ksd import ksd_power
    from kmeviz.experiments.runners import RATE_COLUMNS

    kernel = K.GaussianKernel(1.0)
    two = rejection_rates(lambda g: (g.normal(size=(20, 1)), g.normal(size=(20, 1))),
                          {"perm": {"kernel": kernel, "n_resamples": 19}}, n_repeats=2, rng=0)
    gof = ksd_power("null", [2], n=40, n_repeats=2, n_resamples=19, rng=0,
                    methods={"full": ("full", "imq", None)})
    fig8a = fastmmd_type2_vs_L(Ls=(2,), n=20, n_repeats=2, n_resamples=19, rng=0)
    assert list(two.columns) == RATE_COLUMNS
    assert list(gof.columns) == ["problem", "parameter", *RATE_COLUMNS]
    assert list(fig8a.columns[:6]) == ["L", "test", "rejections", "repeats", "runtime_s",
                                       "type2_error"]


def test_ksd_power_is_rejection_rates_on_ksd_tests():
    """Same generator, same draws, same tests: ksd_power adds only its two columns."""
    from kmeviz.experiments.ksd import draw_problem, ksd_power

    power = ksd_power("laplace", [2], n=60, n_repeats=3, n_resamples=49, rng=4,
                      methods={"nystrom": ("nystrom", "imq", 4.0)})

    def nystrom(data, *, alpha, rng):
        target, X = data
        # m = int(4√60) = 30, the authors' int(4 * np.sqrt(n))
        return K.ksd_test(X, target, K.IMQKernel(), estimator="nystrom", n_landmarks=30,
                          n_resamples=49, alpha=alpha, rng=rng)

    direct = rejection_rates(lambda g: draw_problem("laplace", 2, 60, g),
                             {"nystrom": nystrom}, n_repeats=3, rng=4)
    cols = ["test", "rejections", "repeats", "rate", "ci_low", "ci_high"]
    assert power[cols].to_dict("records") == direct[cols].to_dict("records")


def test_kernel_family_runner_is_unbiased_around_the_exact_mmd():
    """FastMMD Fig. 6 (small): every approximation is unbiased for its exact value — RFF
    inner products are unbiased for k (k(x, x) exactly), and a random ordering makes the
    linear and block statistics average to MMD²_u — so each mean lies within 4.5 standard
    errors of the exact value; FastMMD's spread is below the linear-time MMD's (Fig. 6c)."""
    from kmeviz.experiments import FIG6_SIGMAS, kernel_family_mmd

    assert len(FIG6_SIGMAS) == 16 and FIG6_SIGMAS[0] == pytest.approx(0.1)
    assert FIG6_SIGMAS[-1] == pytest.approx(100.0)
    assert np.allclose(np.diff(np.log10(FIG6_SIGMAS)), 0.2)
    df = kernel_family_mmd((0.5, 1.0, 4.0), n=60, n_draws=40, n_features=256, rng=0)
    assert len(df) == 3 * 6 and (df.draws == 40).all()
    se = df["std"] / np.sqrt(df["draws"])
    assert (np.abs(df["mean"] - df["exact"]) <= 4.5 * se + 1e-12).all(), df.to_string()
    at1 = df[df.sigma == 1.0].set_index("estimator")
    assert at1.loc["FastMMD-Fourier", "std"].max() < at1.loc["MMD-linear", "std"]


def test_a_runner_called_from_a_terminal_draws_a_progress_bar(monkeypatch):
    """No progress callback and stderr a terminal: tqdm's bar counts the trials there; not
    a terminal (a notebook, a pipe): nothing is printed."""
    import io
    import sys

    from kmeviz.experiments.runners import run_trials

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert run_trials(lambda k: k * k, range(7)) == [k * k for k in range(7)]
    assert "7/7" in terminal.getvalue()
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    run_trials(lambda k: k, range(3))
    assert pipe.getvalue() == ""


def test_fastmmd_fig5_fourier_and_fastfood_errors_agree_within_monte_carlo_error():
    """Zhao & Meng Fig. 5: the two methods' relative errors are "indistinguishable". With 60
    trials at L = 64 each mean error has a standard error of ~10 %; their difference must
    be below 3 combined standard errors (a seeded draw; a Fastfood whose frequencies were
    mis-scaled would be off by far more)."""
    from kmeviz.experiments.fastmmd_accuracy import fastmmd_error_vs_L

    df = fastmmd_error_vs_L((64,), n=300, n_trials=60, rng=5)
    assert set(df.columns) >= {"L", "method", "kind", "mean_error", "low", "high", "trials"}
    for kind, part in df.groupby("kind"):
        fourier, fastfood = (part[part.method == m].iloc[0]
                             for m in ("FastMMD-Fourier", "FastMMD-Fastfood"))
        se = np.hypot(fourier["std"], fastfood["std"]) / np.sqrt(60)
        assert abs(fourier.mean_error - fastfood.mean_error) < 3 * se, kind
        assert 0.0 < fourier.mean_error < 1.0  # L = 64 is well past the L = 1 error


def test_fastmmd_fig7_times_every_method_of_both_panels():
    from kmeviz.experiments.fastmmd_accuracy import fastmmd_efficiency

    df = fastmmd_efficiency(values={"a": (300,), "b": (4, 40)}, n_b=200, L_b=64, rng=0)
    assert set(df.method) == {"exact MMD", "MMD-linear", "B-test", "FastMMD-Fourier",
                              "FastMMD-Fastfood"}
    assert sorted(df.panel.unique()) == ["(a) d = 16, L = 128", "(b) n = 200, L = 64"]
    assert (df.runtime_s > 0).all() and set(df[df.panel.str.startswith("(b)")].d) == {4, 40}
