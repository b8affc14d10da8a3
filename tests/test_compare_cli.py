"""``kmeviz compare`` as a user runs it: exit 0 with the table, exit 2 with one line and no
traceback on bad input."""

import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import kmeviz as K
from tests.test_loading import GOOD


def TABLE_TESTS(registry):  # the tests a comparison's table runs (i.i.d. rows)
    return K.compare.selected_tests(registry, "all")


def kmeviz(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "kmeviz_apps", "compare", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.fixture
def two_groups(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(120, 3)), columns=["a", "b", "c"])
    frame["arm"] = np.repeat(["treated", "control"], 60)
    frame.loc[frame.arm == "treated", "a"] += 1.0
    path = tmp_path / "trial.csv"
    frame.to_csv(path, index=False)
    return path


def test_a_good_file_prints_the_table_and_writes_it(two_groups, tmp_path):
    out = tmp_path / "table.csv"
    done = kmeviz(two_groups, "--group", "arm", "--groups", "treated", "control",
                  "--standardize", "--out", out)
    assert done.returncode == 0, done.stderr
    assert "X = treated: 60 rows; Y = control: 60 rows; 3 columns: a, b, c" in done.stdout
    assert "biased/permutation" in done.stdout and "GaussianKernel(bandwidth=" in done.stdout
    table = pd.read_csv(out)
    assert len(table) == len(TABLE_TESTS(K.MMD_TESTS)) and table.p_value.notna().all()
    assert table.set_index("test").loc["biased/permutation", "reject"]
    assert "Traceback" not in done.stderr


def test_two_files_selected_tests_and_a_bundled_data_set(two_groups, tmp_path):
    frame = pd.read_csv(two_groups)
    for arm in ("treated", "control"):
        frame[frame.arm == arm].drop(columns="arm").to_csv(tmp_path / f"{arm}.csv",
                                                           index=False)
    done = kmeviz(tmp_path / "treated.csv", tmp_path / "control.csv", "--tests", "linear",
                  "fastmmd/permutation")
    assert done.returncode == 0, done.stderr
    assert "linear/normal" in done.stdout and "biased/permutation" not in done.stdout
    done = kmeviz("--dataset", "penguins", "--groups", "Adelie", "Chinstrap", "--tests",
                  "unbiased/pearson")
    assert done.returncode == 0 and "[1] not run: needs samples of equal size" in done.stdout


def test_goodness_of_fit_against_a_named_target(two_groups):
    done = kmeviz(two_groups, "--gof", "normal", "--columns", "b", "c", "--tests", "full",
                  "linear")
    assert done.returncode == 0, done.stderr
    assert "full/wild-bootstrap" in done.stdout and "X: 120 rows; 2 columns: b, c" in \
        done.stdout


@pytest.mark.parametrize("files, args, message", [
    ({"empty.csv": ""}, ["empty.csv", "--group", "g"], "empty.csv is empty"),
    ({"bin.csv": b"\x00\x01\x02binary"}, ["bin.csv", "--group", "g"],
     "bin.csv is not a text table (it contains binary data)"),
    ({"d.csv": GOOD}, ["d.csv"], "one file holds both samples only with a group column"),
    ({"d.csv": GOOD}, ["d.csv", "--group", "kind"], "no column 'kind'"),
    ({"d.csv": GOOD + "z,1,1,a\nz,1,2,b\n"}, ["d.csv", "--group", "species"],
     "group 'species' has 3 values"),
    ({"a.csv": "p,q\n1,2\n3,4\n", "b.csv": "p,r\n1,2\n3,4\n"}, ["a.csv", "b.csv"],
     "the two files' numeric columns differ"),
    ({}, ["missing.csv", "--group", "g"], "No such file or directory: missing.csv"),
    ({"d.csv": GOOD}, ["d.csv", "--group", "species", "--tests", "bogus"],
     "tests must be 'all' or names from"),
    ({"d.csv": GOOD}, ["d.csv", "--group", "species", "--time-budget", "-1"],
     "--time-budget must be in (0, 86400] seconds, got -1.0"),
    ({"d.csv": GOOD * 50}, ["d.csv", "--group", "species", "--max-size-mb", "0.001"],
     "over the limit of"),
])
def test_bad_input_exits_2_with_one_line_and_no_traceback(tmp_path, files, args, message):
    for name, content in files.items():
        path = tmp_path / name
        (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    done = kmeviz(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kmeviz compare: error: ")
    assert message in lines[0]


def test_messages_and_rows_read_as_a_command_line_user_expects(tmp_path, two_groups):
    """Issue 44: CLI words, not Python's; aligned rows for long names; no "kernel: None";
    Holm p and the effect size; --out with the kernel, bandwidth, alpha and seed."""
    done = kmeviz(tmp_path / "nofile.csv")
    assert "No such file" in done.stderr
    frame = pd.read_csv(two_groups)
    frame.to_csv(tmp_path / "one.csv", index=False)
    done = kmeviz(tmp_path / "one.csv")
    assert done.returncode == 2 and "give --group COLUMN" in done.stderr
    assert "group=(" not in done.stderr
    three = pd.concat([frame, frame.assign(arm="other")])
    three.to_csv(tmp_path / "three.csv", index=False)
    done = kmeviz(tmp_path / "three.csv", "--group", "arm")
    assert "choose two with --groups A B" in done.stderr
    out = tmp_path / "t.csv"
    done = kmeviz(two_groups, "--group", "arm", "--out", out, "--time-budget", "30")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = lines.index(next(line for line in lines if line.startswith("test ")))
    table_lines = lines[start:start + 2 + len(TABLE_TESTS(K.MMD_TESTS))]
    # every row as long as the header (footnote marks aside): the columns line up, the
    # longest test name (pooled-nystrom/permutation, 26 characters) included
    lengths = {len(re.sub(r" \[\d+\]$", "", line)) for line in table_lines}
    assert len(lengths) == 1, table_lines
    assert "Holm p" in done.stdout and "effect size: MMD = " in done.stdout
    assert "kernel: None" not in done.stdout
    table = pd.read_csv(out)
    for column in ("kernel", "bandwidth", "alpha", "seed", "p_holm", "effect_mmd"):
        assert column in table
    done = kmeviz(two_groups, "--gof", "normal", "--tests", "full")
    assert "kernel: each test's default" in done.stdout


def test_a_column_with_a_few_junk_cells_is_named_with_them(tmp_path, two_groups):
    frame = pd.read_csv(two_groups)
    frame["dose"] = frame["b"].astype(str)
    frame.loc[4, "dose"] = "<0.5"
    frame["flat"] = 3.0
    frame.to_csv(tmp_path / "junk.csv", index=False)
    done = kmeviz(tmp_path / "junk.csv", "--group", "arm", "--tests", "linear")
    assert "column 'dose' was left out for 1 cell(s) that are not numbers (row 5: '<0.5')" \
        in done.stdout
    assert "1 constant column(s), no information for a test: flat" in done.stdout


def test_out_refuses_links_existing_files_and_folders_in_one_line(tmp_path, two_groups):
    """Issue 45, finding 8: --out never follows a symbolic link, never replaces a file
    without --overwrite, and a folder or a missing folder is one line (no traceback),
    all checked before the tests run."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    link = tmp_path / "link.csv"
    link.symlink_to(victim)
    args = [two_groups, "--group", "arm", "--tests", "linear"]
    for out, message in ((link, "is a symbolic link"), (tmp_path, "is a folder"),
                         (tmp_path / "nodir" / "x.csv", "does not exist")):
        done = kmeviz(*args, "--out", out)
        assert done.returncode == 2 and message in done.stderr, done.stderr
        assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1
    done = kmeviz(*args, "--out", link, "--overwrite")
    assert done.returncode == 2 and "symbolic link" in done.stderr
    assert victim.read_text() == "keep me"
    out = tmp_path / "t.csv"
    assert kmeviz(*args, "--out", out).returncode == 0
    done = kmeviz(*args, "--out", out)
    assert done.returncode == 2 and "exists: pass --overwrite" in done.stderr
    assert kmeviz(*args, "--out", out, "--overwrite").returncode == 0


def test_out_refuses_a_folder_reached_through_a_link_unless_overwrite(tmp_path, two_groups):
    """Issue 61, finding 6: a symlinked parent folder of --out was followed. It is refused
    in one line naming where the link leads; --overwrite accepts it."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "linked").symlink_to(elsewhere)
    args = [two_groups, "--group", "arm", "--tests", "linear"]
    done = kmeviz(*args, "--out", tmp_path / "linked" / "t.csv")
    assert done.returncode == 2 and "goes through a symbolic link" in done.stderr
    assert str(elsewhere) in done.stderr and done.stderr.count("\n") == 1
    assert not (elsewhere / "t.csv").exists()
    assert kmeviz(*args, "--out", tmp_path / "linked" / "t.csv", "--overwrite").returncode == 0
    assert (elsewhere / "t.csv").exists()


def test_a_tests_own_option_from_the_command_line(two_groups, tmp_path):
    """``--test-option NAME=VALUE`` reaches the tests that declare NAME (the split test's
    ``train_fraction``: its learned kernel is fitted on that share), ``--help`` lists the
    own options, and a name no test of the table takes is one line, exit 2."""
    out = tmp_path / "split.csv"
    done = kmeviz(two_groups, "--group", "arm", "--tests", "split", "unbiased",
                  "--test-option", "train_fraction=0.25", "--out", out)
    assert done.returncode == 0, done.stderr
    assert "split/permutation" in done.stdout and "Traceback" not in done.stderr
    help_text = kmeviz("--help").stdout
    assert "train_fraction=0.5: the share of each sample" in " ".join(help_text.split())
    for bad, words in (("train_fraction=1.5", "train_fraction must lie in the open interval"),
                       ("train_fraction=half", "train_fraction must be a float"),
                       ("fraction=0.3", "no test of this table takes 'fraction'"),
                       ("train_fraction", "--test-option takes NAME=VALUE")):
        done = kmeviz(two_groups, "--group", "arm", "--tests", "split",
                      "--test-option", bad)
        assert done.returncode == 2 and words in done.stderr, (bad, done.stderr)
        assert "Traceback" not in done.stderr
    done = kmeviz("--dataset", "penguins", "--dependence-map", "--test-option",
                  "train_fraction=0.3")  # the map runs no registered test: said, not ignored
    assert done.returncode == 2 and "--test-option do not apply" in done.stderr, done.stderr


def test_the_split_test_fits_its_kernel_on_the_share_asked():
    """The option changes what the test does: the held-out rows are (1 − fraction) of
    each sample, at two fractions."""
    X, Y = K.blobs_two_sample(100, epsilon=2.0, rng=1)
    for fraction, held_out in ((0.5, 50), (0.3, 70)):
        table = K.compare_tests(X, Y, tests=["split"], n_resamples=49, rng=0,
                                test_options={"train_fraction": fraction})
        result = table.attrs["results"]["split/permutation"]
        assert result.fitted["n_test"] == (held_out, held_out), result.fitted
