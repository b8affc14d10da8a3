"""``kmeviz compare FILE --independence --x .. --y ..``: exit 0 with the table of every
independence test, exit 2 with one line and no traceback on bad input."""

import numpy as np
import pandas as pd
import pytest

import kmeviz as K
from tests.test_compare_cli import kmeviz


def TABLE_TESTS(registry):  # the tests a comparison's table runs (i.i.d. rows)
    return K.compare.selected_tests(registry, "all")


@pytest.fixture
def paired(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, size=300)
    frame = pd.DataFrame({"site": "a", "id": [f"p{i}" for i in range(300)], "x": x,
                          "y": np.abs(x) + 0.1 * rng.normal(size=300),
                          "z": rng.normal(size=300)})
    frame.loc[5, "y"] = np.nan
    path = tmp_path / "paired.csv"
    frame.to_csv(path, index=False)
    return path


def test_a_good_file_prints_every_independence_test_and_writes_the_table(paired, tmp_path):
    out = tmp_path / "table.csv"
    done = kmeviz(paired, "--independence", "--x", "x", "--y", "y", "--out", out)
    assert done.returncode == 0, done.stderr
    assert "299 rows" in done.stdout and "biased/permutation" in done.stdout
    table = pd.read_csv(out)
    assert len(table) == len(TABLE_TESTS(K.INDEPENDENCE_TESTS))
    assert (table.p_value < 0.05).all(), table.to_string()  # y = |x| + noise: dependent
    independent = kmeviz(paired, "--independence", "--x", "x", "--y", "z",
                         "--tests", "biased/permutation")
    assert independent.returncode == 0 and "keep" in independent.stdout


@pytest.mark.parametrize("args, words", [
    (["--independence", "--x", "x"], "--independence needs --x COLUMNS and --y COLUMNS"),
    (["--independence", "--x", "x", "--y", "nope"], "no column 'nope'"),
    (["--independence", "--x", "x", "--y", "site"], "'site' is constant"),
    (["--independence", "--x", "x", "--y", "id"], "300 distinct labels"),
    (["--independence", "--x", "x", "--y", "x"], "share the column"),
    (["--x", "x", "--y", "y"], "--x, --y (and --z) choose the variables of --independence"),
    (["--independence", "--x", "x", "--y", "y", "--group", "site"], "do not apply"),
    (["--independence", "--x", "x", "--y", "y", "--z", "z"], "--z is the conditioning set"),
])
def test_bad_arguments_exit_2_with_one_line(paired, args, words):
    done = kmeviz(paired, *args)
    assert done.returncode == 2
    assert words in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_constant_variable_is_one_line(tmp_path):
    path = tmp_path / "constant.csv"
    pd.DataFrame({"x": np.arange(20.0), "y": 3.0}).to_csv(path, index=False)
    done = kmeviz(path, "--independence", "--x", "x", "--y", "y")
    assert done.returncode == 2 and "Y is constant" in done.stderr, done.stderr
