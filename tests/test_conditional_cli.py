"""``kmeviz compare FILE --conditional --x .. --y .. --z ..`` (issue 41): exit 0 with the
table of every conditional independence test, exit 2 with one line and no traceback on
bad input, and ``kmeviz.load_conditional`` on the same file."""

import numpy as np
import pandas as pd
import pytest

import kmeviz as K
from kmeviz.distributions.causal import causal_structure
from tests.test_compare_cli import kmeviz


def TABLE_TESTS(registry):  # the tests a comparison's table runs (i.i.d. rows)
    return K.compare.selected_tests(registry, "all")


@pytest.fixture
def structures(tmp_path):
    """A chain (x → z → y) and a collider (x → w ← v) in one file, with a text column and
    a row with a missing value."""
    x, y, z = causal_structure("chain", 300, link="sine", rng=1)
    a, b, w = causal_structure("collider", 300, link="sine", rng=2)
    frame = pd.DataFrame({"site": "a", "x": x[:, 0], "y": y[:, 0], "z": z[:, 0],
                          "a": a[:, 0], "b": b[:, 0], "w": w[:, 0]})
    frame.loc[7, "z"] = np.nan
    path = tmp_path / "structures.csv"
    frame.to_csv(path, index=False)
    return path


def test_a_chain_keeps_and_a_collider_rejects(structures, tmp_path):
    out = tmp_path / "table.csv"
    done = kmeviz(structures, "--conditional", "--x", "x", "--y", "y", "--z", "z",
                  "--out", out)
    assert done.returncode == 0, done.stderr
    assert "Z = Z (z): 299 rows" in done.stdout and "kci/gamma" in done.stdout
    table = pd.read_csv(out)
    assert len(table) == len(TABLE_TESTS(K.CONDITIONAL_TESTS))
    assert (table.p_value > 0.05).all(), table.to_string()
    collider = kmeviz(structures, "--conditional", "--x", "a", "--y", "b", "--z", "w",
                      "--tests", "kci/gamma", "rcot/spectral")
    assert collider.returncode == 0 and collider.stdout.count("reject") >= 2


def test_load_conditional_reads_three_groups(structures):
    X, Y, Z, report = K.load_conditional(structures, x="x", y=["y"], z=["z", "w"])
    assert X.shape == (299, 1) and Z.shape == (299, 2) and report.dropped_rows == (1, 1, 1)
    assert "Z = Z (z, w): 299 rows" in str(report) and "1 of Z" in str(report)


@pytest.mark.parametrize("args, words", [
    (["--conditional", "--x", "x", "--y", "y"], "--conditional needs --z COLUMNS"),
    (["--conditional", "--x", "x", "--z", "z"], "needs --x COLUMNS and --y COLUMNS"),
    (["--conditional", "--x", "x", "--y", "y", "--z", "nope"], "no column 'nope'"),
    (["--conditional", "--x", "x", "--y", "y", "--z", "site"], "'site' is constant"),
    (["--conditional", "--x", "x", "--y", "y", "--z", "x"], "x and z share the column"),
    (["--conditional", "--independence", "--x", "x", "--y", "y", "--z", "z"],
     "not both"),
    (["--z", "z"], "choose the variables of --independence and --conditional"),
])
def test_bad_arguments_exit_2_with_one_line(structures, args, words):
    done = kmeviz(structures, *args)
    assert done.returncode == 2
    assert words in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_constant_conditioning_column_is_one_line(tmp_path):
    path = tmp_path / "constant.csv"
    g = np.random.default_rng(0)
    pd.DataFrame({"x": g.normal(size=40), "y": g.normal(size=40), "z": 2.0}).to_csv(
        path, index=False)
    done = kmeviz(path, "--conditional", "--x", "x", "--y", "y", "--z", "z",
                  "--no-standardize")
    assert done.returncode == 2 and "Z is constant" in done.stderr, done.stderr
