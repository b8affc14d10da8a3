"""The effect size of dependence (issue 56): the normalised HSIC R = HSIC_u(X, Y) /
√(HSIC_u(X, X) HSIC_u(Y, Y)) with its jackknife interval, and its conditional analogue on
KCI's residual Grams, in every independence and conditional table and their export."""

import itertools

import numpy as np
import pytest

import kmeviz as K
from kmeviz.independence.effect import _inner_and_left_out, normalised_hsic_from_grams, u_centred


def _hsic_u_by_definition(K_, L_):
    """HSIC_u as the U-statistic of Song et al. 2012 (Eq. 5's kernel h over ordered
    4-tuples of distinct rows): mean of k_ij l_ij + k_ij l_qr − 2 k_ij l_iq."""
    n, total, count = K_.shape[0], 0.0, 0
    for i, j, q, r in itertools.permutations(range(n), 4):
        total += K_[i, j] * L_[i, j] + K_[i, j] * L_[q, r] - 2 * K_[i, j] * L_[i, q]
        count += 1
    return total / count


def _grams(n, rng):
    x = rng.normal(size=(n, 1))
    y = np.sin(2 * x) + 0.4 * rng.normal(size=(n, 1))
    return K.GaussianKernel(0.8)(x, x), K.GaussianKernel(0.6)(y, y)


def test_the_u_centred_inner_product_is_hsic_u_by_its_definition():
    Kx, Ly = _grams(9, np.random.default_rng(0))
    n = 9
    expected = _hsic_u_by_definition(Kx, Ly)
    full, _ = _inner_and_left_out(Kx, Ly)
    assert full / (n * (n - 3)) == pytest.approx(expected, rel=1e-10, abs=1e-14)
    assert np.sum(u_centred(Kx) * u_centred(Ly)) / (n * (n - 3)) == pytest.approx(
        expected, rel=1e-10, abs=1e-14)


def test_every_leave_one_out_value_equals_recomputing_without_the_row():
    """The O(n²) jackknife against n explicit recomputations on n − 1 rows."""
    Kx, Ly = _grams(40, np.random.default_rng(1))
    _, left_out = _inner_and_left_out(Kx, Ly)
    for k in range(40):
        keep = np.delete(np.arange(40), k)
        explicit = np.sum(u_centred(Kx[np.ix_(keep, keep)]) * u_centred(Ly[np.ix_(keep, keep)]))
        assert left_out[k] == pytest.approx(explicit, rel=1e-10, abs=1e-12)


def test_the_effect_size_equals_the_explicit_ratio_of_u_centred_grams():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(120, 2))
    y = x[:, :1] ** 2 + rng.normal(size=(120, 1))
    kx, ky = K.GaussianKernel(1.3), K.GaussianKernel(0.9)
    A, B = u_centred(kx(x, x)), u_centred(ky(y, y))
    explicit = np.sum(A * B) / np.sqrt(np.sum(A * A) * np.sum(B * B))
    effect = K.dependence_effect_size(x, y, kernel_x=kx, kernel_y=ky)
    assert effect.estimate == pytest.approx(explicit, rel=1e-10)
    assert effect.low <= effect.value <= effect.high and effect.rows == effect.size == 120


def _gaussian_expectation(cov, A):
    """E exp(−½ vᵀAv) for v ~ N(0, cov): det(I + cov A)^(−1/2)."""
    return np.linalg.det(np.eye(len(cov)) + cov @ A) ** -0.5


def _population_hsic(rho, sx, sy, same=False):
    """HSIC of (X, Y) standard bivariate normal with correlation rho, Gaussian kernels of
    widths sx, sy: E k l' + E k E l − 2 E k(x,x') l(y,y''), each term a Gaussian
    integral over 2 or 3 independent pairs."""
    C = np.array([[1.0, rho], [rho, 1.0]])

    def quadratic(size, terms):
        A = np.zeros((size, size))
        for (a, b), width in terms:
            e = np.zeros(size)
            e[a], e[b] = 1.0, -1.0
            A += np.outer(e, e) / width**2
        return A

    two = np.kron(np.eye(2), C)  # (x, y, x', y')
    three = np.kron(np.eye(3), C)  # (x, y, x', y', x'', y'')
    joint = _gaussian_expectation(two, quadratic(4, [((0, 2), sx), ((1, 3), sy)]))
    kx = _gaussian_expectation(two, quadratic(4, [((0, 2), sx)]))
    ly = _gaussian_expectation(two, quadratic(4, [((1, 3), sy)]))
    cross = _gaussian_expectation(three, quadratic(6, [((0, 2), sx), ((1, 5), sy)]))
    return joint + kx * ly - 2 * cross


def test_the_interval_covers_the_population_value():
    """(X, Y) bivariate normal, ρ = 0.5, Gaussian kernels σ = 1: R's population value from
    Gaussian integrals (above; R(X, X) = 1 checks them). Over 200 draws of 150 rows the
    95 % jackknife interval covered it 0.93-0.97 in trial runs; asserted ≥ 0.90 (the
    issue's bar; a 99 % binomial interval around 0.95 at 200 draws is about ±0.04)."""
    assert _population_hsic(1.0, 1.0, 1.0) / _population_hsic(1.0, 1.0, 1.0) == 1.0
    hxy = _population_hsic(0.5, 1.0, 1.0)
    truth = hxy / np.sqrt(_population_hsic(1.0, 1.0, 1.0) ** 2)
    rng = np.random.default_rng(3)
    kernel = K.GaussianKernel(1.0)
    covered = 0
    for _ in range(200):
        xy = rng.multivariate_normal([0, 0], [[1, 0.5], [0.5, 1]], size=150)
        x, y = xy[:, :1], xy[:, 1:]
        _, low, high = normalised_hsic_from_grams(kernel(x, x), kernel(y, y))
        covered += low <= truth <= high
    assert covered / 200 >= 0.90, (covered, truth)


def test_on_independent_data_the_interval_holds_zero():
    """X ~ N(0, 1), Y ~ Exp(1) independent, 300 draws of 200 rows: the interval's lower
    end is ≤ 0 in every trial run (the estimate is centred at 0; its upper end may fall
    below 0 too, and is then clipped to 0). Asserted: 0 inside the reported interval in
    ≥ 95 % of draws."""
    rng = np.random.default_rng(4)
    inside = 0
    for _ in range(300):
        effect = K.dependence_effect_size(rng.normal(size=(200, 1)),
                                          rng.exponential(size=(200, 1)))
        inside += effect.low <= 0.0 <= effect.high
    assert inside / 300 >= 0.95, inside


def test_the_conditional_effect_holds_zero_under_conditional_independence():
    """X and Y both functions of Z plus noise: the residual effect's lower end is 0 in
    every one of 100 draws here (300 in a trial run); with X = Y it is near 1."""
    rng = np.random.default_rng(5)
    zero = 0
    for _ in range(100):
        z = rng.normal(size=(150, 1))
        x = np.sin(z) + 0.3 * rng.normal(size=z.shape)
        y = z**2 / 2 + 0.3 * rng.normal(size=z.shape)
        zero += K.conditional_effect_size(x, y, z).low == 0.0
    assert zero >= 95
    z = rng.normal(size=(150, 1))
    x = z + 0.5 * rng.normal(size=z.shape)
    assert K.conditional_effect_size(x, x, z).low > 0.9


def test_the_tables_and_their_export_carry_the_effect_size():
    rng = np.random.default_rng(6)
    z = rng.normal(size=(200, 1))
    x = z + 0.5 * rng.normal(size=z.shape)
    y = x**2 + 0.5 * rng.normal(size=z.shape)
    table = K.compare_independence(x, y, tests=["biased/gamma"], rng=0)
    effect = table.attrs["effect_size"]
    assert effect.low > 0 and table.attrs["seed"] == 0
    exported = K.export_table(table)
    assert exported["effect_normalised_hsic"].iloc[0] == effect.value
    again = K.compare_independence(x, y, tests=["biased/gamma"], rng=0).attrs["effect_size"]
    assert again == effect  # reproducible from the seed
    ci = K.compare_ci(x, y, z, tests=["kci/gamma"], rng=0)
    assert ci.attrs["effect_size"].low > 0  # y depends on x given z
    assert "effect_conditional_normalised_hsic" in K.export_table(ci).columns


@pytest.mark.parametrize("bad, message", [
    (dict(level=1.5), "level"),
    (dict(kernel_x="gauss"), "kernel_x"),
])
def test_bad_arguments_are_named(bad, message):
    x = np.arange(20.0).reshape(-1, 1)
    with pytest.raises((ValueError, TypeError), match=message):
        K.dependence_effect_size(x, np.sin(x), **bad)


def test_too_few_rows_are_refused_by_name():
    with pytest.raises(ValueError, match="X"):
        K.dependence_effect_size(np.arange(5.0), np.arange(5.0))
