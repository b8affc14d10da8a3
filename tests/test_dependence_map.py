"""The dependence map of a whole table (issue 56) and the categorical kernel it reads
labels with."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import kmeviz as K
from kmeviz.compare import holm
from kmeviz.independence.dependence_map import column_kernel
from kmeviz.kernels.categorical import CategoricalKernel, is_categorical


def _table(n=250, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    return pd.DataFrame({"a": a, "b": a**2 + 0.3 * rng.normal(size=n),
                         "c": rng.normal(size=n), "code": rng.integers(0, 3, n),
                         "sign": np.where(a > 0, "pos", "neg"),
                         "flag": rng.integers(0, 2, n).astype(bool)})


def test_each_pair_equals_its_single_pair_gamma_test_and_effect_size():
    """The shared pass against hsic_test(null="gamma") and dependence_effect_size on each
    pair with the same kernels: equal to round-off (1e-9 relative; measured 1e-13)."""
    frame = _table()
    pairs = K.dependence_map(frame, null="gamma")
    assert len(pairs) == 15
    for row in pairs.itertuples():
        kx, x = column_kernel(frame[row.x].to_numpy(), row.x)
        ky, y = column_kernel(frame[row.y].to_numpy(), row.y)
        single = K.hsic_test(x, y, kernel_x=kx, kernel_y=ky, null="gamma")
        assert row.hsic == pytest.approx(single.statistic, rel=1e-9)
        assert row.p_value == pytest.approx(single.p_value, rel=1e-6, abs=1e-12)
        effect = K.dependence_effect_size(x, y, kernel_x=kx, kernel_y=ky)
        assert row.effect == pytest.approx(effect.value, abs=1e-10)


def test_the_spectral_p_values_agree_with_the_single_pair_spectral_test():
    """The map's spectral p-value (four cumulants of the weighted χ² limit, Liu et al.
    2009) against hsic_test(null="spectral"), which simulates the same limit with B =
    4000 draws: within 0.03 (3.9 Monte Carlo standard errors at p = 0.5)."""
    frame = _table()
    pairs = K.dependence_map(frame)
    for row in pairs.itertuples():
        kx, x = column_kernel(frame[row.x].to_numpy(), row.x)
        ky, y = column_kernel(frame[row.y].to_numpy(), row.y)
        single = K.hsic_test(x, y, kernel_x=kx, kernel_y=ky, null="spectral",
                             n_resamples=4000, rng=0)
        assert row.hsic == pytest.approx(single.statistic, rel=1e-9)
        assert abs(row.p_value - single.p_value) <= 0.03, (row.x, row.y)


def test_the_spectral_null_holds_its_level_far_into_the_tail():
    """Independent normal columns (4 tables of 300 × 30, 1740 pairs): the share of
    p-values below 0.05 and 0.001. Asserted: [0.035, 0.065] and ≤ 0.003 (binomial spread
    of 1740 correlated pairs). At this size the Gamma null passes too; its excess in the
    far tail (2-3x its level below 10⁻³, Holm discoveries in most null tables) shows at
    1000 × 100, measured by ``python -m benchmarks.bench_dependence_map``."""
    rng = np.random.default_rng(11)
    p = np.concatenate([K.dependence_map(pd.DataFrame(rng.normal(size=(300, 30))))
                        ["p_value"].to_numpy() for _ in range(4)])
    assert 0.035 <= np.mean(p < 0.05) <= 0.065, np.mean(p < 0.05)
    assert np.mean(p < 0.001) <= 0.003, np.mean(p < 0.001)


def test_the_dependent_pairs_are_found_and_the_adjustments_are_exact():
    pairs = K.dependence_map(_table())
    found = {tuple(sorted(p)) for p in pairs.loc[pairs.reject_holm, ["x", "y"]].values}
    assert found == {("a", "b"), ("a", "sign")}
    np.testing.assert_array_equal(pairs["p_holm"], holm(pairs["p_value"].to_numpy()))
    # Benjamini-Hochberg by its definition: p_(k) m / k, made monotone from the top
    p = pairs["p_value"].to_numpy()
    order = np.argsort(p)
    m = p.size
    expected = np.empty(m)
    running = 1.0
    for rank in range(m, 0, -1):
        running = min(running, p[order[rank - 1]] * m / rank)
        expected[order[rank - 1]] = running
    np.testing.assert_allclose(pairs["p_bh"], expected, rtol=1e-12)


def test_independent_columns_hold_the_false_discovery_rate():
    """Ten independent columns (45 pairs), 40 tables: the share of tables with any BH
    discovery is at most about α (all nulls true: FDR = FWER ≤ α); asserted ≤ 4/40."""
    rng = np.random.default_rng(1)
    any_found = 0
    for _ in range(40):
        frame = pd.DataFrame(rng.normal(size=(120, 10))).add_prefix("v")
        any_found += bool(K.dependence_map(frame)["reject_bh"].any())
    assert any_found <= 4, any_found


def test_constant_and_missing_columns_are_said_and_bad_input_named():
    frame = _table().assign(const=1.0)
    frame.loc[3, "c"] = np.nan
    pairs = K.dependence_map(frame)
    assert "const" not in set(pairs.x) | set(pairs.y)
    assert "'const' is constant" in pairs.attrs["note"]
    assert "1 rows with a missing value" in pairs.attrs["note"]
    with pytest.raises(ValueError, match="not in the table"):
        K.dependence_map(frame, ["a", "nope"])
    with pytest.raises(ValueError, match="at least 2 columns"):
        K.dependence_map(frame, ["a"])
    with pytest.raises(ValueError, match="alpha"):
        K.dependence_map(frame, alpha=2)


def test_a_large_table_is_subsampled_with_a_note():
    frame = pd.DataFrame(np.random.default_rng(2).normal(size=(700, 3))).add_prefix("v")
    pairs = K.dependence_map(frame, max_rows=300, rng=0)
    assert pairs.attrs["n"] == 300 and "subsample of 300 of the 700" in pairs.attrs["note"]
    again = K.dependence_map(frame, max_rows=300, rng=0)
    pd.testing.assert_frame_equal(pairs, again)


def test_the_categorical_kernel_and_its_rule():
    codes = np.array([[0.0], [1.0], [0.0], [2.0]])
    np.testing.assert_array_equal(CategoricalKernel()(codes), codes == codes.T)
    rows = np.array([[0.0, 1.0], [0.0, 2.0], [0.0, 1.0]])
    assert CategoricalKernel()(rows)[0].tolist() == [1.0, 0.0, 1.0]
    assert is_categorical(["a", "b"]) and is_categorical([True, False])
    assert is_categorical([0, 1, 1, 0]) and is_categorical([1.0, 2.0, 3.0])
    assert not is_categorical(np.arange(11)) and not is_categorical([0.5, 1.0])


def test_hsic_with_a_delta_kernel_equals_its_closed_form_in_counts():
    """X with k levels, delta kernel on X and on Y: HSIC_b = Σ_ab (p̂_ab − p̂_a p̂_b)², the
    squared distance between the joint table of frequencies and its product of margins
    (K̃ and L̃ centred indicator Grams)."""
    rng = np.random.default_rng(3)
    x = rng.integers(0, 3, 200).astype(float).reshape(-1, 1)
    y = ((x[:, 0] + rng.integers(0, 2, 200)) % 4).reshape(-1, 1)
    joint = pd.crosstab(x[:, 0], y[:, 0], normalize=True).to_numpy()
    closed = np.sum((joint - np.outer(joint.sum(1), joint.sum(0))) ** 2)
    value = K.hsic(x, y, kernel_x=CategoricalKernel(), kernel_y=CategoricalKernel())
    assert value == pytest.approx(closed, rel=1e-12)


def test_mmd_with_a_delta_kernel_is_the_distance_of_level_frequencies():
    """MMD²_b = Σ_a (p̂_a − q̂_a)² for the delta kernel (the χ²-type form without weights)."""
    rng = np.random.default_rng(4)
    X = rng.integers(0, 4, 150).astype(float).reshape(-1, 1)
    Y = rng.integers(1, 5, 120).astype(float).reshape(-1, 1)
    levels = np.arange(5)
    p = np.array([np.mean(X == a) for a in levels])
    q = np.array([np.mean(Y == a) for a in levels])
    value = K.mmd2(X, Y, CategoricalKernel(), estimator="biased")
    assert value == pytest.approx(np.sum((p - q) ** 2), rel=1e-12)


def test_the_command_line_draws_the_map_of_a_bundled_table(tmp_path):
    out = tmp_path / "map.csv"
    done = subprocess.run([sys.executable, "-m", "kmeviz_apps", "compare", "--dataset",
                           "penguins", "--dependence-map", "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "species ~ flipper_length_mm" in done.stdout and "Benjamini-Hochberg" in done.stdout
    written = pd.read_csv(out)
    assert len(written) == 21 and {"effect", "p_bh", "p_holm"} <= set(written.columns)
    bad = subprocess.run([sys.executable, "-m", "kmeviz_apps", "compare", "--dataset",
                          "penguins", "--dependence-map", "--x", "species"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


def test_the_heatmap_colours_every_pair_both_ways_and_dots_the_discoveries():
    import holoviews as hv
    import holoviews.plotting.bokeh  # noqa: F401 - options need a loaded backend

    pairs = K.dependence_map(_table())
    from kmeviz import viz

    plot = viz.dependence_heatmap(pairs)
    heat, dots = plot.HeatMap.I, plot.Points.I
    assert len(heat.data) == 2 * len(pairs)
    assert len(dots.data) == 2 * int(pairs.reject_bh.sum())
    hv.renderer("bokeh").get_plot(plot)  # renders


def test_a_mostly_zero_binary_column_gets_the_delta_kernel_not_a_dead_end():
    """The median heuristic of a 0/1 column with 90 % zeros is 0: the default is now the
    delta kernel (it was a message asking for a bandwidth), and the test finds the
    dependence."""
    rng = np.random.default_rng(7)
    y = (rng.uniform(size=300) < 0.1).astype(float).reshape(-1, 1)
    x = y + 0.5 * rng.normal(size=y.shape)
    result = K.hsic_test(x, y, null="gamma")
    assert result.p_value < 1e-6 and "CategoricalKernel" in repr(result.kernel)


def test_the_penguins_species_question_from_the_command_line():
    done = subprocess.run([sys.executable, "-m", "kmeviz_apps", "compare", "--dataset",
                           "penguins", "--independence", "--x", "species", "--y",
                           "body_mass_g", "--tests", "biased/gamma"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "read as categorical" in done.stdout and "CategoricalKernel" in done.stdout
    assert "reject" in done.stdout


@pytest.mark.parametrize("options, words", [
    (["--kernel-y", "laplace", "--bandwidth-y", "0.5"], "LaplaceKernel(bandwidth=0.5)"),
    (["--kernel-x", "gaussian", "--bandwidth-x", "2"], "GaussianKernel(bandwidth=2.0)"),
    (["--bandwidth-y", "-1"], "--bandwidth-y must be > 0"),
    (["--kernel-x", "categorical", "--bandwidth-x", "1"], "has no bandwidth"),
])
def test_the_command_line_sets_each_groups_kernel(options, words):
    done = subprocess.run([sys.executable, "-m", "kmeviz_apps", "compare", "--dataset",
                           "penguins", "--independence", "--x", "species", "--y",
                           "body_mass_g", "--tests", "biased/gamma", *options],
                          capture_output=True, text=True, timeout=120)
    assert words in done.stdout + done.stderr, done.stdout + done.stderr
    if "must" in words or "no bandwidth" in words:
        assert done.returncode == 2 and done.stderr.count("\n") == 1
    else:
        assert done.returncode == 0


def test_kernel_options_belong_to_the_independence_question():
    done = subprocess.run([sys.executable, "-m", "kmeviz_apps", "compare", "--dataset",
                           "penguins", "--kernel-x", "laplace"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "choose the kernels of --independence" in done.stderr
