"""Time-series nulls against slow obvious implementations written from the papers, the
serial-dependence check's error rates, and its warning on every Python route.

Tolerances: the fast paths reorder sums (BLAS, FFT), so equal quantities agree to a few
ulps of their size; 1e-10 relative (or absolute on O(1) values) leaves a wide margin.
"""

import warnings

import numpy as np
import pytest
from scipy import signal

import kmeviz as K
from kmeviz.timeseries import nulls
from kmeviz.timeseries.serial import LEVEL, ljung_box, serial_dependence

#: the registered time-series independence tests
SERIES_HSIC = {"biased/dependent-wild-bootstrap", "biased/shift", "max-lag/shift",
               "biased/block-permutation", "max-lag/block-permutation"}


def ar1(n, phi, rng, d=1, burn=200):
    """A stationary AR(1) series x_t = φ x_{t−1} + e_t (burn-in dropped)."""
    e = rng.normal(size=(n + burn, d))
    return signal.lfilter([1.0], [1.0, -phi], e, axis=0)[burn:]


def slow_process(eps, length):
    """W_1 = ε_1, W_t = e^{−1/ℓ} W_{t−1} + √(1 − e^{−2/ℓ}) ε_t, one step at a time."""
    a = np.exp(-1.0 / length)
    W = np.empty_like(eps)
    W[0] = eps[0]
    for t in range(1, eps.shape[0]):
        W[t] = a * W[t - 1] + np.sqrt(1 - a * a) * eps[t]
    return W


def slow_centred(K):
    n = K.shape[0]
    H = np.eye(n) - 1.0 / n
    return H @ K @ H


def gram(kernel, Z):
    return np.array([[float(kernel(a[None], b[None])[0, 0]) for b in Z] for a in Z])


def test_multiplier_process_is_the_recursion():
    rng = np.random.default_rng(0)
    fast = nulls.multiplier_process(50, 4, 3.0, rng)
    eps = np.random.default_rng(0).standard_normal((50, 4))
    np.testing.assert_allclose(fast, slow_process(eps, 3.0), rtol=1e-12, atol=1e-12)
    # its autocovariance is e^{-|k|/ℓ}: the lag-1 correlation over many paths
    W = nulls.multiplier_process(400, 2000, 5.0, np.random.default_rng(1))
    lag1 = np.mean(W[1:] * W[:-1]) / np.mean(W * W)
    assert abs(lag1 - np.exp(-1 / 5.0)) < 0.01  # 800 000 products: s.e. < 0.002


def test_hsic_dependent_wild_bootstrap_equals_explicit_sums():
    rng = np.random.default_rng(2)
    X, Y = ar1(30, 0.6, rng), ar1(30, 0.6, rng, d=2)
    kx, ky = K.GaussianKernel(1.3), K.GaussianKernel(0.8)
    res = K.hsic_test(X, Y, kernel_x=kx, kernel_y=ky, null="dependent-wild-bootstrap",
                      wild_length=4.0, n_resamples=6, rng=7)
    Kc, Lc = slow_centred(gram(kx, X)), slow_centred(gram(ky, Y))
    n = 30
    stat = sum(Kc[i, j] * Lc[i, j] for i in range(n) for j in range(n)) / n**2
    W = slow_process(np.random.default_rng(7).standard_normal((n, 6)), 4.0)
    reps = [sum(W[i, b] * W[j, b] * Kc[i, j] * Lc[i, j] for i in range(n) for j in range(n))
            / n**2 for b in range(6)]
    assert res.statistic == pytest.approx(stat, rel=1e-10)
    np.testing.assert_allclose(res.null_samples, reps, rtol=1e-10)
    assert res.null_params["wild_length"] == 4.0


def test_hsic_wild_bootstrap_at_zero_length_is_the_iid_one():
    """ℓ → 0: W_t = ε_t, the i.i.d. (Gaussian-multiplier) wild bootstrap of HSIC_b."""
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(25, 1)), rng.normal(size=(25, 1))
    kx = ky = K.GaussianKernel(1.0)
    res = K.hsic_test(X, Y, kernel_x=kx, kernel_y=ky, null="dependent-wild-bootstrap",
                      wild_length=1e-6, n_resamples=5, rng=11)
    eps = np.random.default_rng(11).standard_normal((25, 5))
    Hm = slow_centred(gram(kx, X)) * slow_centred(gram(ky, Y))
    iid = [eps[:, b] @ Hm @ eps[:, b] / 25**2 for b in range(5)]
    np.testing.assert_allclose(res.null_samples, iid, rtol=1e-10)


def test_mmd_dependent_wild_bootstrap_equals_explicit_sums():
    rng = np.random.default_rng(4)
    X, Y = ar1(20, 0.5, rng), ar1(15, 0.5, rng)
    k = K.GaussianKernel(1.1)
    res = K.mmd_test(X, Y, k, null="dependent-wild-bootstrap", wild_length=2.5,
                     n_resamples=4, rng=5)
    g = np.random.default_rng(5)
    Wx = slow_process(g.standard_normal((20, 4)), 2.5)
    Wy = slow_process(g.standard_normal((15, 4)), 2.5)
    Kxx, Kyy, Kxy = gram(k, X), gram(k, Y), np.array(
        [[float(k(a[None], b[None])[0, 0]) for b in Y] for a in X])

    def value(wx, wy):  # with the joint Gram centred by the pooled mean: u − ū
        shift = (wx.sum() / 20 - wy.sum() / 15) / 35
        wx, wy = wx - 20 * shift, wy + 15 * shift
        return (sum(wx[i] * wx[j] * Kxx[i, j] for i in range(20) for j in range(20)) / 400
                + sum(wy[i] * wy[j] * Kyy[i, j] for i in range(15) for j in range(15)) / 225
                - 2 * sum(wx[i] * wy[j] * Kxy[i, j] for i in range(20) for j in range(15))
                / 300)

    assert res.statistic == pytest.approx(value(np.ones(20), np.ones(15)), rel=1e-10)
    np.testing.assert_allclose(res.null_samples,
                               [value(Wx[:, b], Wy[:, b]) for b in range(4)], rtol=1e-10)


def test_ksd_sign_chain_at_zero_length_is_the_markov_wild_bootstrap():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(40, 2))
    target = K.NormalTarget(np.zeros(2))
    ours = K.ksd_test(X, target, null="dependent-wild-bootstrap", wild_length=1e-9,
                      n_resamples=50, rng=3)
    iid = K.ksd_test(X, target, wild="markov", n_resamples=50, rng=3)
    assert ours.statistic == pytest.approx(iid.statistic, rel=1e-12)
    np.testing.assert_allclose(ours.null_samples, iid.null_samples, rtol=1e-10)


def test_ksd_sign_chain_flips_with_its_probability():
    from kmeviz.gof.wild import WildSigns

    signs = WildSigns(2000, 0, flip_probability=nulls.flip_probability(4.0)).take(300)
    lag1 = np.mean(signs[1:] * signs[:-1])
    assert abs(lag1 - np.exp(-1 / 4.0)) < 0.01  # 598 000 products: s.e. ≈ 0.001


def test_every_shift_equals_explicit_rolls():
    rng = np.random.default_rng(8)
    n = 23
    A, B = rng.normal(size=(n, n)), rng.normal(size=(n, n))
    Kc, Lc = A + A.T, B + B.T
    fast = nulls.shifted_statistics(Kc.copy(), Lc.copy(), block=5)
    for s in range(n):
        idx = (np.arange(n) + s) % n
        slow = sum(Kc[i, j] * Lc[idx[i], idx[j]] for i in range(n) for j in range(n)) / n**2
        assert fast[s] == pytest.approx(slow, rel=1e-10, abs=1e-12)


def test_shift_test_is_hsic_of_shifted_y_and_lag_search_its_maximum():
    rng = np.random.default_rng(9)
    n = 300
    X = ar1(n, 0.3, rng)
    Y = np.roll(X, 2, axis=0) ** 2 + 0.3 * rng.normal(size=(n, 1))  # Y_t = f(X_{t-2})
    kx = ky = K.GaussianKernel(1.0)
    res = K.hsic_test(X, Y, kernel_x=kx, kernel_y=ky, null="shift", min_shift=15)
    T = res.null_params["shifted"]
    for s in (0, 15, 60, 105):
        shifted = np.roll(Y, -s, axis=0)  # row i paired with y_{i+s}
        value = K.hsic(X, shifted, kernel_x=kx, kernel_y=ky)
        assert T[s] == pytest.approx(value, rel=1e-10)
    step = res.null_params["shift_step"]
    np.testing.assert_allclose(res.null_samples, T[15:n - 15 + 1:step], rtol=0)
    lagged = K.hsic_test(X, Y, kernel_x=kx, kernel_y=ky, estimator="max-lag", null="shift",
                         min_shift=15, max_lag=3)
    M = [max(T[(s + k) % n] for k in range(-3, 4)) for s in range(n)]
    assert lagged.statistic == pytest.approx(M[0], rel=1e-12)
    step = lagged.null_params["shift_step"]
    np.testing.assert_allclose(lagged.null_samples, M[18:n - 18 + 1:step], rtol=1e-12)
    assert lagged.null_params["lag"] == 2  # X_t pairs best with Y_{t+2} = f(X_t)
    assert lagged.reject and not res.reject


def test_block_permutation_replicates_equal_hsic_of_explicitly_permuted_lagged_y():
    """Each replicate recomputed from scratch: Y's rows reordered by the same circular block
    permutation (same seed), shifted by every lag k, HSIC_b from its own centred Grams
    (tr(K̃ L̃)/n²), the maximum over |k| ≤ K; to 1e-10 relative."""
    from kmeviz.timeseries import blocks

    rng = np.random.default_rng(12)
    n, K_lag, b, B = 60, 2, 7, 6
    X = ar1(n, 0.5, rng)
    Y = np.roll(X, 1, axis=0) ** 2 + 0.3 * rng.normal(size=(n, 1))
    kx, ky = K.GaussianKernel(0.8), K.GaussianKernel(1.3)
    Kc, Lx = slow_centred(gram(kx, X)), gram(ky, Y)

    def search(order):
        values = []
        for k in range(-K_lag, K_lag + 1):
            lagged = order[(np.arange(n) + k) % n]  # row i paired with y_{order(i + k)}
            values.append(np.trace(Kc @ slow_centred(Lx[np.ix_(lagged, lagged)])) / n**2)
        return max(values)

    res = K.hsic_test(X, Y, kernel_x=kx, kernel_y=ky, estimator="max-lag",
                      null="block-permutation", block_size=b, max_lag=K_lag,
                      n_resamples=B, rng=5)
    orders_rng = np.random.default_rng(5)
    orders = [blocks.block_order(n, b, orders_rng) for _ in range(B)]
    for order in orders:  # a block permutation: every row once, runs of b consecutive rows
        assert sorted(order) == list(range(n))
    assert res.statistic == pytest.approx(search(np.arange(n)), rel=1e-10)
    np.testing.assert_allclose(res.null_samples, [search(o) for o in orders], rtol=1e-10)
    plain = K.hsic_test(X, Y, kernel_x=kx, kernel_y=ky, null="block-permutation",
                        block_size=b, n_resamples=B, rng=5)
    assert plain.statistic == pytest.approx(K.hsic(X, Y, kernel_x=kx, kernel_y=ky), rel=1e-10)
    assert res.null_params == {"block_size": b, "max_lag": K_lag}


def test_too_few_blocks_or_shifts_are_said_in_the_result():
    """Where the stored calibration shows the block and shift nulls off their level (n =
    300, φ = 0.9: 7 blocks of 38 rows; a handful of nearly independent shifts), the
    result's note says so and names the test to use; with many blocks it says nothing."""
    from kmeviz.timeseries import blocks
    from kmeviz.timeseries.tests import FEW_SHIFTS

    rng = np.random.default_rng(21)
    X, Y = ar1(300, 0.9, rng), ar1(300, 0.9, rng)
    few = K.hsic_test(X, Y, null="block-permutation", n_resamples=50, rng=0)
    assert 300 // few.null_params["block_size"] < blocks.FEW_BLOCKS
    assert "dependent-wild-bootstrap" in few.fitted["note"]
    shifts = K.hsic_test(X, Y, estimator="max-lag", null="shift")
    assert shifts.null_samples.size + 1 < FEW_SHIFTS
    assert "p-value is at least" in shifts.fitted["note"]
    Xi, Yi = rng.normal(size=(300, 1)), rng.normal(size=(300, 1))
    many = K.hsic_test(Xi, Yi, null="block-permutation", n_resamples=50, rng=0)
    assert 300 // many.null_params["block_size"] >= blocks.FEW_BLOCKS
    assert "note" not in many.fitted


def test_time_series_bad_input_has_one_clear_message():
    rng = np.random.default_rng(10)
    X, Y = rng.normal(size=(40, 1)), rng.normal(size=(40, 1))
    with pytest.raises(ValueError, match="too few rows for the shift test"):
        K.hsic_test(X, Y, null="shift", min_shift=12)
    with pytest.raises(ValueError, match="wild_length"):
        K.hsic_test(X, Y, null="dependent-wild-bootstrap", wild_length=-1.0)
    with pytest.raises(ValueError, match="same number of rows|rows"):
        K.hsic_test(X, Y[:30], null="shift")
    with pytest.raises(ValueError, match="too few rows for the block permutation"):
        K.hsic_test(X, Y, null="block-permutation", block_size=11)
    with pytest.raises(ValueError, match="max_lag"):
        K.hsic_test(X, Y, estimator="max-lag", null="block-permutation", max_lag=10)


# -- the serial-dependence check ---------------------------------------------------------
def test_ljung_box_matches_its_formula():
    rng = np.random.default_rng(11)
    x = ar1(100, 0.4, rng)[:, 0]
    c = x - x.mean()
    rho = [np.sum(c[:-k] * c[k:]) / np.sum(c * c) for k in range(1, 6)]
    q = 100 * 102 * sum(r**2 / (100 - k) for k, r in enumerate(rho, 1))
    Q, p, lag1 = ljung_box(x)
    assert Q == pytest.approx(q, rel=1e-12)
    assert lag1 == pytest.approx(rho[0], rel=1e-12)
    from scipy import stats
    assert p == pytest.approx(stats.chi2.sf(q, 5), rel=1e-12)


def test_check_false_alarms_and_detection():
    """Bounded CI version of the stored measurement (docs/results/serial_check.txt):
    300 i.i.d. data sets (normal, heavy-tailed, discrete, 1–5 columns) and 100 AR(1)
    series with φ = 0.5, n = 300. At the Bonferroni level 1e-4 the expected number of
    false alarms is < 0.1; 3 (1 %) would be a failure of the rule."""
    rng = np.random.default_rng(12)
    alarms = 0
    for i in range(300):
        n, d = int(rng.integers(20, 600)), int(rng.integers(1, 6))
        kind = i % 3
        Z = (rng.normal(size=(n, d)) if kind == 0 else rng.standard_t(2, size=(n, d))
             if kind == 1 else rng.integers(0, 3, size=(n, d)).astype(float))
        alarms += serial_dependence({"X": Z}, family="gof").fired
    assert alarms <= 2
    detected = sum(serial_dependence({"X": ar1(300, 0.5, rng)}, family="gof").fired
                   for _ in range(100))
    assert detected >= 99


def test_shuffled_bundled_tables_raise_no_alarm():
    rng = np.random.default_rng(13)
    for name in ("penguins", "nyc-taxi"):
        frame = K.load_dataset(name).select_dtypes("number").dropna()
        values = frame.to_numpy(dtype=float)
        for _ in range(20):
            shuffled = values[rng.permutation(len(values))]
            assert not serial_dependence({"X": shuffled}, family="gof").fired


def test_independence_fires_only_when_both_are_serial():
    rng = np.random.default_rng(14)
    x, y = ar1(300, 0.8, rng), rng.normal(size=(300, 1))
    assert not serial_dependence({"X": x, "Y": y}, family="independence").fired
    assert serial_dependence({"X": x, "Y": ar1(300, 0.8, rng)}, family="independence").fired
    check = serial_dependence({"X": x, "Y": y}, family="two-sample")
    assert check.fired and check.samples["X"]["p_value"] < LEVEL


def test_every_python_route_warns_and_rows_iid_silences_it():
    rng = np.random.default_rng(15)
    x, y, z = ar1(200, 0.8, rng), ar1(200, 0.8, rng), ar1(200, 0.8, rng)
    target = K.NormalTarget(np.zeros(1))
    calls = [
        lambda **kw: K.mmd_test(x, y, n_resamples=50, rng=0, **kw),
        lambda **kw: K.ksd_test(x / x.std(), target, n_resamples=50, rng=0, **kw),
        lambda **kw: K.hsic_test(x, y, n_resamples=50, rng=0, **kw),
        lambda **kw: K.ci_test(x, y, z, rng=0, **kw),
        lambda **kw: K.dhsic_test(x, y, z, n_resamples=50, rng=0, **kw),
    ]
    for call in calls:
        with pytest.warns(K.SerialDependenceWarning, match="lag-1 autocorrelation"):
            res = call()
        assert "serially dependent" in res.fitted["note"]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            res = call(rows="iid")
        assert "serial_dependence" not in res.fitted
    tables = [
        lambda **kw: K.compare_tests(x, y, tests=["biased/permutation", "linear"], rng=0, **kw),
        lambda **kw: K.compare_gof(x / x.std(), target, tests=["full", "linear"], rng=0, **kw),
        lambda **kw: K.compare_independence(x, y, tests=["biased/gamma"], rng=0, **kw),
        lambda **kw: K.compare_ci(x, y, z, tests=["rcot"], rng=0, **kw),
    ]
    for table_of in tables:
        with pytest.warns(K.SerialDependenceWarning) as caught:
            table = table_of()
        assert len(caught) == 1  # once per table, not once per test
        assert table["note"].str.contains("p-value not trusted").all()
        assert "Serial dependence" in table.attrs["note"]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            quiet = table_of(rows="iid")
        assert not quiet["note"].str.contains("not trusted").any()
        assert quiet.attrs["serial_dependence"] is None


def test_time_series_tables_run_the_time_series_tests():
    rng = np.random.default_rng(16)
    x, y = ar1(300, 0.9, rng), ar1(300, 0.9, rng)
    table = K.compare_independence(x, y, rows="time series", rng=0)
    assert set(table["test"]) == SERIES_HSIC
    assert table["p_value"].notna().all() and not table["note"].str.contains("trusted").any()
    two = K.compare_tests(x, y, rows="time series", rng=0)
    assert list(two["test"]) == ["biased/dependent-wild-bootstrap"]
    gof = K.compare_gof(x / x.std(), K.NormalTarget(np.zeros(1)), rows="time series", rng=0)
    assert list(gof["test"]) == ["full/dependent-wild-bootstrap"]
    with pytest.raises(ValueError, match="no conditional-independence test for time series"):
        K.compare_ci(x, y, x, rows="time series")
    with pytest.raises(ValueError, match="rows must be one of"):
        K.compare_tests(x, y, rows="ordered")


def test_time_column_orders_rows_and_refuses_bad_times():
    import pandas as pd

    from kmeviz.loading import in_time_order
    frame = pd.DataFrame({"when": ["2020-01-03", "2020-01-01", "2020-01-02"],
                          "x": [3.0, 1.0, 2.0]})
    assert in_time_order(frame, "when")["x"].tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="repeats the time"):
        in_time_order(frame.assign(when=["2020", "2020", "2021"]), "when")
    with pytest.raises(ValueError, match="neither a number nor a date"):
        in_time_order(frame.assign(when=["a", "b", "c"]), "when")
    with pytest.raises(ValueError, match="missing value"):
        in_time_order(frame.assign(when=[1.0, None, 2.0]), "when")
    with pytest.raises(ValueError, match="not in the table"):
        in_time_order(frame, "time")


# -- the other routes: the command line and the dashboard ------------------------------
def ar_table(tmp_path, shuffle=True):
    """Two independent AR(1) series (φ = 0.9) with a date column, rows shuffled."""
    import pandas as pd

    rng = np.random.default_rng(17)
    frame = pd.DataFrame({"day": pd.date_range("2001-01-01", periods=300).astype(str),
                          "x": ar1(300, 0.9, rng)[:, 0], "y": ar1(300, 0.9, rng)[:, 0]})
    if shuffle:
        frame = frame.sample(frac=1.0, random_state=1)
    path = tmp_path / "series.csv"
    frame.to_csv(path, index=False)
    return path


def test_the_command_line_notes_serial_rows_and_runs_the_time_series_tests(tmp_path):
    import subprocess
    import sys

    def run(*flags):
        return subprocess.run([sys.executable, "-m", "kmeviz_apps", "compare",
                               str(ar_table(tmp_path)), "--independence", "--x", "x", "--y",
                               "y", "--tests", "biased/gamma", "biased/permutation", *flags],
                              capture_output=True, text=True, timeout=120)

    ordered = run("--time", "day")
    assert ordered.returncode == 0, ordered.stderr
    assert "p-value not trusted: serially dependent rows" in ordered.stdout
    assert "use the time-series tests (--time-series), or pass --iid" in ordered.stdout
    assert "Warning" not in ordered.stderr  # said once, in the table, in CLI words
    quiet = run("--time", "day", "--iid")
    assert quiet.returncode == 0 and "not trusted" not in quiet.stdout
    series = subprocess.run([sys.executable, "-m", "kmeviz_apps", "compare",
                             str(ar_table(tmp_path)), "--independence", "--x", "x", "--y",
                             "y", "--time", "day", "--time-series"],
                            capture_output=True, text=True, timeout=120)
    assert series.returncode == 0, series.stderr
    for name in SERIES_HSIC:
        assert name in series.stdout
    bad = run("--time", "x2")
    assert bad.returncode == 2 and "time column 'x2' is not in the table" in bad.stderr


def test_the_dashboard_notes_serial_rows_and_rows_iid_silences_it(tmp_path):
    pytest.importorskip("panel")
    from kmeviz_apps.data_explorer import DataExplorer

    class Drop:
        def __init__(self, files):
            self.new = files

    explorer = DataExplorer(question="independence")
    explorer._box.receive(Drop({"series.csv": ar_table(tmp_path).read_text()}))
    explorer.param.update(columns=["x"], columns_y=["y"])
    assert "day" in explorer.param.time_column.objects.values()

    def table():
        parts = []
        explorer._comparison_work()(parts.append)
        return parts[-1][1]

    shuffled = table()  # the file's (shuffled) order: nothing to see
    assert not shuffled["note"].str.contains("not trusted").any()
    explorer.time_column = "day"
    ordered = table()
    assert ordered["note"].str.contains("p-value not trusted").all()
    assert "Serial dependence" in ordered.attrs["note"]
    explorer.rows = "iid"
    assert not table()["note"].str.contains("not trusted").any()
    explorer.rows = "time series"
    assert set(table()["test"]) == SERIES_HSIC


def test_effective_count_of_independent_and_smoothed_sequences():
    rng = np.random.default_rng(18)
    white = rng.normal(size=2000)
    assert 1500 < nulls.effective_count(white) <= 2000
    smooth = np.convolve(white, np.ones(20) / 20, mode="valid")  # τ ≈ 20
    assert 50 < nulls.effective_count(smooth) < 200


# -- calibration: a bounded run here, the stored table's size under `pytest -m slow` -------
def test_dependent_wild_bootstraps_hold_their_level_bounded():
    """CI-sized: 100 draws each (the wild bootstraps at n = 300, φ = 0.9; the lag search against
    block permutations at n = 300, φ = 0.5, 16 blocks) (where the i.i.d. tests reject 77–89 %
    of the time, docs/results/timeseries_calibration.txt). A test of size 0.05 rejects
    more than 13 of 100 draws with probability 0.001 (binomial): more is a failure."""
    from functools import partial

    from kmeviz.experiments import timeseries as E
    from kmeviz.experiments.runners import rejection_rates

    wild = {"null": "dependent-wild-bootstrap"}
    problems = [(partial(E._pair, 300, 0.9), partial(E._hsic, wild)),
                (partial(E._pair, 300, 0.5),
                 partial(E._hsic, E.BLOCK_TESTS["max-lag/block-permutation"])),
                (partial(E._stretches, 300, 0.9), partial(E._mmd, wild)),
                (partial(E._chain, 300, 0.5), partial(E._ksd, wild))]
    for sampler, test in problems:
        table = rejection_rates(sampler, {"series": test}, n_repeats=100, rng=3)
        assert table["rejections"].iloc[0] <= 13, table
    iid = rejection_rates(partial(E._pair, 300, 0.9),
                          {"iid": partial(E._hsic, {"null": "gamma", "rows": "iid"})},
                          n_repeats=40, rng=3)
    assert iid["rate"].iloc[0] > 0.5  # the failure the check warns of


@pytest.mark.slow
def test_time_series_tests_hold_their_level():
    """The stored table's run (500 draws at n = 300, 200 at n = 1000): each dependent wild
    bootstrap's 95 % interval contains a size in [0.02, 0.08] and the shift tests are never
    liberal beyond it (their interval starts below 0.08)."""
    from kmeviz.experiments.timeseries import timeseries_size_table

    for n, repeats in ((300, 500), (1000, 200)):
        table = timeseries_size_table(ns=(n,), n_repeats=repeats, rng=0)
        series = table[~table["test"].str.contains("i.i.d.|check")]
        wild = series["test"].str.contains("wild")
        assert ((series.loc[wild, "ci_low"] <= 0.08)
                & (series.loc[wild, "ci_high"] >= 0.02)).all(), series
        assert (series.loc[~wild, "ci_low"] <= 0.08).all(), series


@pytest.mark.slow
def test_block_permutation_tests_hold_their_level():
    """docs/results/block_permutation_calibration.txt's size run: each block permutation
    test's 95 % interval contains a size in [0.02, 0.08] (φ = 0, 0.5, 0.9), except with 7
    blocks (n = 300, φ = 0.9), where it measured 0.096–0.102 and the result says so."""
    from kmeviz.experiments.timeseries import BLOCK_TESTS, timeseries_size_table

    for n, repeats, seed in ((300, 500, 0), (1000, 200, 1)):
        table = timeseries_size_table(ns=(n,), n_repeats=repeats, rng=seed,
                                      hsic_tests=BLOCK_TESTS, families=("independence",))
        blocks = table[table["test"].str.contains("block")]
        few = (blocks["n"] == 300) & (blocks["phi"] == 0.9)  # 7 blocks: the note's case
        many = blocks[~few]
        assert ((many["ci_low"] <= 0.08) & (many["ci_high"] >= 0.02)).all(), blocks
        assert (blocks.loc[few, "rate"] <= 0.13).all(), blocks


def test_the_two_stretch_exercise_is_what_the_solutions_page_says():
    """docs/course/solutions.md, 13 exercise 3: the permutation test rejects the two
    stretches of one series (H0 holds), the dependent wild bootstrap keeps."""
    from kmeviz.exercises import two_stretch_data

    X, Y = two_stretch_data()
    assert K.mmd_test(X, Y, rows="iid", rng=0).reject
    assert not K.mmd_test(X, Y, null="dependent-wild-bootstrap", rng=0).reject


def test_the_explorer_summary_says_when_its_time_series_null_has_too_few_blocks():
    """The time-series explorer's summary carries the test's own note (φ = 0.95 at n = 300:
    fewer than 12 blocks), and none where there is nothing to say (the wild bootstrap)."""
    pytest.importorskip("panel")
    from kmeviz_apps.timeseries_explorer import TimeSeriesExplorer

    blocked = TimeSeriesExplorer(null="block-permutation", phi=0.95, n_resamples=50)
    note = blocked._pair()[1].fitted["note"]
    assert note.startswith("only ") and " blocks of " in note
    assert f"Time-series null: {note}." in blocked.summary_view().object
    wild = TimeSeriesExplorer(null="dependent-wild-bootstrap", phi=0.95, n_resamples=50)
    assert "Time-series null:" not in wild.summary_view().object
