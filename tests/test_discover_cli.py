"""``kmeviz discover`` (issue 58): the PC graph of a file, written as CSV, JSON or DOT;
exit 2 with one line and no traceback on bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import kmeviz as K


def discover(*args):
    return subprocess.run([sys.executable, "-m", "kmeviz_apps", "discover", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def collider(tmp_path):
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=400), rng.normal(size=400)
    frame = pd.DataFrame({"a": a, "b": b,
                          "c": np.tanh(a) + np.tanh(b) + 0.3 * rng.normal(size=400),
                          "site": np.where(rng.random(400) < 0.5, "n", "s")})
    frame.loc[5, "a"] = np.nan
    path = tmp_path / "collider.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("suffix", [".csv", ".json", ".dot"])
def test_the_graph_of_a_file_in_every_format(collider, tmp_path, suffix):
    out = tmp_path / f"graph{suffix}"
    done = discover(collider, "--out", out)
    assert done.returncode == 0, done.stderr
    assert "399 rows (1 with a missing value left out), 3 variables" in done.stdout
    assert "a --> c" in done.stdout and "b --> c" in done.stdout
    text = out.read_text()
    if suffix == ".json":
        graph = json.loads(text)
        assert {(e["source"], e["target"]) for e in graph["edges"]} == {("a", "c"), ("b", "c")}
    elif suffix == ".dot":
        assert '"a" -> "c";' in text
    else:
        assert pd.read_csv(out).kind.tolist() == ["-->", "-->"]
    python = K.pc(pd.read_csv(collider)[["a", "b", "c"]].dropna())
    assert python.edges().values.tolist() == [["a", "c", "-->"], ["b", "c", "-->"]]


def test_a_text_column_and_tiers(collider):
    done = discover(collider, "--columns", "a", "b", "c", "site", "--tiers", "a,b,site", "c")
    assert done.returncode == 0, done.stderr
    assert "4 variables" in done.stdout and "a --> c" in done.stdout


@pytest.mark.parametrize("args, words", [
    (["--columns", "a", "nope"], "not in the table"),
    (["--test", "bogus"], "invalid choice"),
    (["--alpha", "3"], "alpha"),
    (["--out", "graph.txt"], "give a file ending in .csv, .json, .dot"),
    (["--tiers", "a,zz"], "not among the variables"),
])
def test_bad_input_is_one_line(collider, args, words, tmp_path):
    args = [str(tmp_path / a) if a == "graph.txt" else a for a in args]
    done = discover(collider, *args)
    assert done.returncode == 2 and words in done.stderr, done.stderr
    last = done.stderr.strip().splitlines()[-1]  # argparse's usage may come before it
    assert "Traceback" not in done.stderr and words in last
