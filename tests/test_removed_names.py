"""kmeviz 0.3 removed the names deprecated in 0.2, as the CHANGELOG promised: ``import
kmeviz`` installs no import hook and rebinds nothing, an old name's error says what to use,
and an old keyword or module path is an ordinary Python error naming it."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import kmeviz as K


def test_import_kmeviz_installs_no_finder_and_wraps_nothing():
    code = ("import sys, json; "
            "import kmeviz, kmeviz.twosample.mmd_tests as t, kmeviz.gof.ksd_tests as g; "
            "ours = [type(f).__module__ for f in sys.meta_path if "
            "type(f).__module__.startswith('kmeviz')]; "
            "print(json.dumps([ours, hasattr(t.mmd_test, '__wrapped__'), "
            "hasattr(g.ksd_test, '__wrapped__'), kmeviz.mmd_test is t.mmd_test]))")
    ours, wrapped_mmd, wrapped_ksd, same = json.loads(subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert ours == []  # no finder of kmeviz's (a dependency may add its own)
    assert not wrapped_mmd and not wrapped_ksd and same  # no shim around the functions


@pytest.mark.parametrize(("old", "new"), [("mmd_nystrom", "mmd2_nystrom"),
                                          ("NystromStein", "gof.nystrom_stein"),
                                          ("GaussianMixtureTarget", "GaussianMixture")])
def test_a_removed_name_says_what_to_use(old, new):
    with pytest.raises(AttributeError, match=rf"kmeviz.{old} was removed in kmeviz 0.3.*"
                                             rf"use kmeviz.{new}"):
        getattr(K, old)
    assert callable(eval(f"K.{new}"))  # noqa: S307 - a name of this test's table
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        K.no_such_name  # noqa: B018


def test_old_keywords_and_module_paths_are_plain_errors_naming_them():
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(TypeError, match="n_permutations"):
        K.mmd_test(X, X + 1, K.GaussianKernel(1.0), n_permutations=19)
    with pytest.raises(TypeError, match="n_bootstrap"):
        K.ksd_test(X, K.NormalTarget(np.zeros(2)), n_bootstrap=19)
    with pytest.raises(ModuleNotFoundError, match="kmeviz.bootstrap"):
        __import__("kmeviz.bootstrap")
    assert K.__version__ == "0.3.0"
