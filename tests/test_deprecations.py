"""The deprecation shims (``kmeviz/_deprecated.py``): every old name, argument and module
path still works until kmeviz 0.3, warns once at the caller's line, and nothing of kmeviz's
own uses them."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import kmeviz as K
from kmeviz import _deprecated
from kmeviz.experiments import fastmmd_type2_vs_L, ksd_power
from kmeviz.gof.ksd import NystromStein, nystrom_stein

ROOT = Path(__file__).resolve().parents[1]
TARGET = K.NormalTarget(np.zeros(2))
GAUSS = K.GaussianKernel(1.0)


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    return rng.normal(size=(60, 2)), rng.normal(0.5, 1.0, size=(50, 2))


@pytest.mark.parametrize("old, new", [
    (lambda X, Y: K.mmd_test(X, Y, K.GaussianKernel(1.0), n_permutations=19, rng=0),
     lambda X, Y: K.mmd_test(X, Y, K.GaussianKernel(1.0), n_resamples=19, rng=0)),
    (lambda X, Y: K.ksd_test(X, TARGET, K.IMQKernel(), n_bootstrap=19, rng=0),
     lambda X, Y: K.ksd_test(X, TARGET, K.IMQKernel(), n_resamples=19, rng=0)),
    (lambda X, Y: K.ksd2(X, TARGET, K.IMQKernel(), estimator="u"),
     lambda X, Y: K.ksd2(X, TARGET, K.IMQKernel(), estimator="unbiased")),
    (lambda X, Y: K.mmd_nystrom(X, Y, K.GaussianKernel(1.0), n_landmarks=20, rng=0) ** 2,
     lambda X, Y: K.mmd2_nystrom(X, Y, K.GaussianKernel(1.0), n_landmarks=20, rng=0)),
    (lambda X, Y: K.mmd_test(X, Y, K.GaussianKernel(1.0), n_resamples=9, rng=0).method,
     lambda X, Y: K.mmd_test(X, Y, K.GaussianKernel(1.0), n_resamples=9, rng=0).estimator),
    (lambda X, Y: K.mmd_test(X, Y, K.GaussianKernel(1.0), estimator="fastmmd-fastfood",
                             n_resamples=9, rng=0),
     lambda X, Y: K.mmd_test(X, Y, K.GaussianKernel(1.0), estimator="fastmmd",
                             features="fastfood", n_resamples=9, rng=0)),
    (lambda X, Y: K.mmd_test(X, Y, K.GaussianKernel(1.0), estimator="nystrom",
                             n_landmarks=20, n_resamples=9, rng=0),
     lambda X, Y: K.mmd_test(X, Y, K.GaussianKernel(1.0), estimator="pooled-nystrom",
                             n_landmarks=20, n_resamples=9, rng=0)),
    (lambda X, Y: K.mmd2_fastmmd(X, Y, K.GaussianKernel(1.0), method="fastfood", rng=0),
     lambda X, Y: K.mmd2_fastmmd(X, Y, K.GaussianKernel(1.0), features="fastfood", rng=0)),
    (lambda X, Y: K.ksd_test(X, TARGET, K.IMQKernel(), method="linear"),
     lambda X, Y: K.ksd_test(X, TARGET, K.IMQKernel(), estimator="linear")),
    (lambda X, Y: K.GaussianMixtureTarget([[0.0, 0.0], [1.0, 1.0]], [0.5, 2.0], [1, 3]).score(X),
     lambda X, Y: K.GaussianMixture([[0.0, 0.0], [1.0, 1.0]], [0.25, 4.0], [0.25, 0.75]).score(X)),
    (lambda X, Y: ksd_power("null", [2], n=30, n_repeats=1, n_bootstrap=9, rng=0).rate,
     lambda X, Y: ksd_power("null", [2], n=30, n_repeats=1, n_resamples=9, rng=0).rate),
    (lambda X, Y: K.KernelHerding(K.GaussianKernel(1.0), n_points=4).fit(X).points_,
     lambda X, Y: K.KernelHerding(K.GaussianKernel(1.0), n_landmarks=4).fit(X).points_),
    (lambda X, Y: NystromStein(X, TARGET, K.IMQKernel(), n_landmarks=9, rng=0).statistic,
     lambda X, Y: nystrom_stein(X, TARGET, K.IMQKernel(), n_landmarks=9, rng=0).squared_norm()),
    (lambda X, Y: fastmmd_type2_vs_L(Ls=(2,), n=20, n_trials=2, n_resamples=9, rng=0).rejections,
     lambda X, Y: fastmmd_type2_vs_L(Ls=(2,), n=20, n_repeats=2, n_resamples=9, rng=0).rejections),
    (lambda X, Y: K.Pendulum().transitions(5, 3)[1],
     lambda X, Y: K.Pendulum().transitions(5, rng=3)[1]),
])
def test_old_names_still_work_and_warn_once(old, new, data, monkeypatch):
    monkeypatch.setattr(_deprecated, "_WARNED", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first, second = old(*data), old(*data)
        expected = new(*data)
    deprecations = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    assert len(deprecations) == 1, [str(w.message) for w in deprecations]
    assert deprecations[0].filename == __file__  # it points at the caller's line
    for value in (first, second):
        if isinstance(value, K.TestResult):
            assert value.p_value == expected.p_value and value.statistic == expected.statistic
        elif isinstance(value, str):
            assert value == expected
        else:
            np.testing.assert_allclose(value, expected, rtol=1e-12)


def test_old_and_new_name_together_is_an_error(data):
    X, Y = data
    with pytest.raises(TypeError, match="n_resamples"):
        K.mmd_test(X, Y, K.GaussianKernel(1.0), n_resamples=9, n_permutations=9)


def test_old_module_paths_still_import_and_warn_once():
    """``kmeviz.bootstrap`` and the other pre-layout modules resolve to their new homes."""
    code = ("import warnings; warnings.simplefilter('always'); "
            "import kmeviz.bootstrap as old, kmeviz.stein, kmeviz.gof_experiments; "
            "from kmeviz.conditional import sparsity_path; "
            "import kmeviz.twosample.test as new; print(old is new, old.mmd_test is new.mmd_test)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert run.stdout.split() == ["True", "True"]
    warned = [line for line in run.stderr.splitlines() if "DeprecationWarning" in line]
    assert len(warned) == 4 and all(line.startswith("<string>:1:") for line in warned), warned

def test_moved_estimator_arguments_warn():
    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.warns(DeprecationWarning, match="n_points"):
        old = K.KernelHerding(GAUSS, n_points=6, rng=0)
    np.testing.assert_array_equal(old.fit(X).points_,
                                  K.KernelHerding(GAUSS, 6, rng=0).fit(X).points_)
    with pytest.warns(DeprecationWarning, match="by position"):
        old = K.Pendulum().transitions(5, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = K.Pendulum().transitions(5, rng=3)
    np.testing.assert_array_equal(old[0], new[0])


def test_runner_repeat_counts_have_one_name():
    from kmeviz.experiments import nystrom_error_vs_m

    with pytest.warns(DeprecationWarning, match="n_trials"):
        old = fastmmd_type2_vs_L(Ls=(2,), n=20, n_trials=2, n_resamples=19, rng=0)
    new = fastmmd_type2_vs_L(Ls=(2,), n=20, n_repeats=2, n_resamples=19, rng=0)
    assert old["rejections"].tolist() == new["rejections"].tolist()
    with pytest.warns(DeprecationWarning, match="n_trials"):
        nystrom_error_vs_m(ns=(50,), ms=(5,), d=2, n_trials=1, rng=0)


def _sources():
    for folder in ("kmeviz", "apps", "notebooks", "tests", "benchmarks", "docs"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name not in ("_deprecated.py", "test_deprecations.py"):
                yield path


def test_nothing_of_kmeviz_uses_a_deprecated_name_or_module():
    """The deprecated names and module paths appear only in the shim module and its tests
    (the old keyword arguments are checked at run time: pyproject's filterwarnings makes
    kmeviz's own DeprecationWarnings errors everywhere else in the suite)."""
    names = {name for table in _deprecated.REMOVED_NAMES.values() for name in table}
    moved = {name for table in _deprecated.MOVED_NAMES.values() for name in table}
    pattern = re.compile(r"\b(" + "|".join(sorted(names)) + r")\b|\b("
                         + "|".join(re.escape(m) for m in _deprecated.OLD_MODULES) + r")\b"
                         + r"|kmeviz\.conditional(\.| import .*\b)(" + "|".join(moved) + r")\b")
    found = [f"{path.relative_to(ROOT)}:{i}: {line.strip()}"
             for path in _sources()
             for i, line in enumerate(path.read_text().splitlines(), 1)
             if pattern.search(line)]
    assert not found, found


def test_the_suite_turns_kmevizs_own_deprecation_warnings_into_errors():
    """A deprecated call outside pytest.warns fails the test that makes it."""
    code = ("import warnings, pytest\n"
            "def test_old():\n"
            "    import kmeviz as K, numpy as np\n"
            "    X = np.ones((4, 1)) * np.arange(4)[:, None]\n"
            "    K.mmd_test(X, X + 1, K.GaussianKernel(1.0), n_permutations=9)\n")
    path = ROOT / "tests" / "_probe_deprecation_test.py"
    path.write_text(code)
    try:
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              "-o", "addopts=", str(path)],
                             capture_output=True, text=True, cwd=ROOT)
    finally:
        path.unlink()
    assert run.returncode == 1 and "DeprecationWarning" in run.stdout, run.stdout[-2000:]
