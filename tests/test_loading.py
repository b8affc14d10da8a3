"""``load_samples``: every format, and one exact message for each kind of bad input."""

import re

import numpy as np
import pytest

import kmeviz as K
from kmeviz.loading import read_table, samples_from_frame

GOOD = "species,a,b,note\nx,1,2,p\nx,2,1,q\nx,1.5,1.5,r\ny,5,5,s\ny,6,5,t\ny,5.5,4,u\n"


def write(tmp_path, name, content):
    path = tmp_path / name
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    return path


def test_one_csv_with_a_group_column(tmp_path):
    X, Y, report = K.load_samples(write(tmp_path, "d.csv", GOOD), group="species",
                                  standardize=False)
    np.testing.assert_array_equal(X, [[1, 2], [2, 1], [1.5, 1.5]])
    np.testing.assert_array_equal(Y, [[5, 5], [6, 5], [5.5, 4]])
    assert report.columns == ("a", "b") and report.groups == ("x", "y")
    assert report.dropped_columns == ("note",) and report.dropped_rows == (0, 0)
    assert "dropped non-numeric columns: note" in str(report)


def test_two_files_tsv_npy_and_npz_give_the_same_samples(tmp_path):
    X, Y, _ = K.load_samples(write(tmp_path, "d.csv", GOOD), group="species", standardize=False)
    tsv = write(tmp_path, "d.tsv", GOOD.replace(",", "\t"))
    assert np.array_equal(K.load_samples(tsv, group="species", standardize=False).X, X)
    a = write(tmp_path, "x.csv", "a,b\n" + "\n".join(",".join(map(str, r)) for r in X))
    b = write(tmp_path, "y.csv", "a,b\n" + "\n".join(",".join(map(str, r)) for r in Y))
    X2, Y2, report = K.load_samples(a, b, standardize=False)
    assert np.array_equal(X2, X) and np.array_equal(Y2, Y) and report.groups == (
        "x.csv", "y.csv")
    np.save(tmp_path / "x.npy", X)
    np.save(tmp_path / "y.npy", Y)
    X3, Y3, _ = K.load_samples(tmp_path / "x.npy", tmp_path / "y.npy", standardize=False)
    assert np.array_equal(X3, X) and np.array_equal(Y3, Y)
    np.savez(tmp_path / "both.npz", first=X, second=Y)
    X4, Y4, report = K.load_samples(tmp_path / "both.npz", standardize=False)
    assert np.array_equal(X4, X) and np.array_equal(Y4, Y)
    assert report.groups == ("first", "second")


def test_standardize_uses_the_pooled_mean_and_deviation(tmp_path):
    X, Y, report = K.load_samples(write(tmp_path, "d.csv", GOOD), group="species",
                                  standardize=True)
    pooled = np.vstack([X, Y])
    np.testing.assert_allclose(pooled.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(pooled.std(axis=0), 1.0, rtol=1e-12)
    assert X[:, 0].mean() < 0 < Y[:, 0].mean() and report.standardized


def test_nan_and_inf_rows_are_dropped_and_counted(tmp_path):
    text = GOOD + "x,nan,1,v\ny,inf,1,w\ny,,2,z\n"
    X, Y, report = K.load_samples(write(tmp_path, "d.csv", text), group="species")
    assert (len(X), len(Y)) == (3, 3) and report.dropped_rows == (1, 2)


def test_more_than_two_groups_need_a_choice(tmp_path):
    path = write(tmp_path, "d.csv", GOOD + "z,1,1,a\nz,2,2,b\n")
    with pytest.raises(ValueError, match=re.escape(
            "group 'species' has 3 values ('x', 'y', 'z'); choose two with groups=(A, B)")):
        K.load_samples(path, group="species")
    X, Y, report = K.load_samples(path, group="species", groups=("z", "x"))
    assert report.groups == ("z", "x") and len(X) == 2 and len(Y) == 3
    with pytest.raises(ValueError, match=re.escape(
            "group 'species' has no value 'w'; its values are 'x', 'y', 'z'")):
        K.load_samples(path, group="species", groups=("x", "w"))


def test_integer_groups_are_matched_as_text(tmp_path):
    path = write(tmp_path, "d.csv", "g,a\n1,0.1\n1,0.2\n2,3\n2,4\n3,1\n")
    X, Y, _ = K.load_samples(path, group="g", groups=("1", "2"), standardize=False)
    assert X.ravel().tolist() == [0.1, 0.2] and Y.ravel().tolist() == [3, 4]


# -- each bad input, with its exact message ---------------------------------------------
BAD = [
    ("empty.csv", "", {}, "empty.csv is empty"),
    ("blank.csv", "\n\n  \n", {}, "blank.csv is empty"),
    ("binary.csv", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", {},
     "binary.csv is not a text table (it contains binary data); kmeviz reads .csv, .tsv, "
     ".tab, .npy, .npz, .parquet"),
    ("latin.csv", "g,a\n\xe9,1\n".encode("latin-1"), {},
     "latin.csv is not UTF-8 text; save it as UTF-8 CSV"),
    ("header.csv", "g,a,b\n", {"group": "g"}, "header.csv has no data rows"),
    ("d.xlsx", "g,a\n", {}, "d.xlsx: unknown format '.xlsx'; kmeviz reads .csv, .tsv, .tab, "
     ".npy, .npz, .parquet"),
    ("d.csv", GOOD, {}, "one file holds both samples only with a group column: give "
     "group=(--group: a column whose values split the rows), or a second file"),
    ("d.csv", GOOD, {"group": "kind"},
     "no column 'kind'; the columns are 'species', 'a', 'b', 'note'"),
    ("one.csv", "g,a\nx,1\nx,2\n", {"group": "g"},
     "group 'g' has 1 values ('x'); choose two with groups=(A, B)"),
    ("small.csv", "g,a\nx,1\nx,2\ny,3\n", {"group": "g"},
     "group 'y' has 1 row(s); a test needs at least 2 per sample"),
    ("nans.csv", "g,a\nx,1\nx,2\ny,3\ny,nan\n", {"group": "g"},
     "group 'y' has 1 row(s) after dropping 1 with NaN or inf; a test needs at least 2 "
     "per sample"),
    ("text.csv", "g,a,b\nx,p,q\nx,r,s\ny,t,u\ny,v,w\n", {"group": "g"},
     "no numeric columns to compare (the columns are 'a', 'b')"),
    ("d.csv", GOOD, {"group": "species", "columns": ["a", "note"]},
     "columns 'note' are not numeric"),
    ("d.csv", GOOD, {"group": "species", "columns": ["a", "c"]},
     "no column 'c'; the columns are 'a', 'b', 'note'"),
    ("ragged.csv", "g,a\nx,1\nx,2,3,4\ny,1\n", {"group": "g"},
     "ragged.csv could not be read as a table: Error tokenizing data. C error: Expected 2 "
     "fields in line 3, saw 4"),
    ("d.parquet", b"PAR1 not really parquet", {},
     "d.parquet: reading Parquet needs pyarrow or fastparquet, which kmeviz does not "
     "install (pip install pyarrow), or save the table as CSV"),
    ("bad.npy", b"\x93NUMPY garbage", {}, "bad.npy is not a numpy .npy file of numbers"),
]


@pytest.mark.parametrize("name, content, options, message", BAD,
                         ids=[f"{b[0]}-{b[3][:30]}" for b in BAD])
def test_bad_input_gets_one_clear_message(tmp_path, name, content, options, message):
    if name.endswith(".parquet"):
        pytest.importorskip("pandas")
        try:
            import pyarrow  # noqa: F401
            pytest.skip("pyarrow is installed: Parquet is read")
        except ImportError:
            pass
    with pytest.raises(ValueError) as info:
        K.load_samples(write(tmp_path, name, content), **options)
    assert str(info.value) == message


def test_files_whose_columns_differ(tmp_path):
    a = write(tmp_path, "a.csv", "p,q,r\n1,2,3\n4,5,6\n")
    b = write(tmp_path, "b.csv", "p,q,s\n1,2,3\n4,5,6\n")
    with pytest.raises(ValueError) as info:
        K.load_samples(a, b)
    assert str(info.value) == ("the two files' numeric columns differ: only in a.csv: "
                               "'r'; only in b.csv: 's'")


def test_a_file_over_the_size_limit(tmp_path):
    path = write(tmp_path, "big.csv", GOOD * 100)
    with pytest.raises(ValueError) as info:
        K.load_samples(path, group="species", max_bytes=1024)
    assert str(info.value) == "big.csv is 6.93 kB, over the limit of 1 kB"
    with pytest.raises(ValueError, match=r"^the upload is 2 MB, over the limit of 1 MB$"):
        read_table(b"a\n" + b"1\n" * 2**20, name=None, max_bytes=2**20)


def test_an_object_npy_is_refused_without_unpickling(tmp_path):
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}, None], dtype=object),
            allow_pickle=True)
    with pytest.raises(ValueError, match="^obj.npy is not a numpy .npy file of numbers$"):
        K.load_samples(tmp_path / "obj.npy", tmp_path / "obj.npy")


def test_uploaded_bytes_read_as_the_file_would():
    frame = read_table(GOOD.encode(), name="upload.csv")
    X, Y, report = samples_from_frame(frame, group="species", sources=("upload.csv",))
    assert X.shape == (3, 2) and report.sources == ("upload.csv",)


@pytest.mark.parametrize("name", ["penguins", "nyc-taxi"])
def test_the_bundled_real_data_sets(name):
    spec = K.distributions.real.REAL_DATASETS[name]
    X, Y, report = samples_from_frame(K.load_dataset(name), group=spec.group,
                                      groups=spec.groups)
    assert min(len(X), len(Y)) > 100 and X.shape[1] >= 2 and report.groups == spec.groups
    assert np.all(np.isfinite(X)) and np.all(np.isfinite(Y))
    with pytest.raises(ValueError, match="name must be one of 'penguins', 'nyc-taxi'"):
        K.load_dataset("iris")


def test_the_report_prints_in_a_few_lines(tmp_path):
    text = str(K.load_samples(write(tmp_path, "d.csv", GOOD + "x,nan,1,v\n"),
                              group="species", standardize=True).report)
    assert text.splitlines()[0] == "read d.csv" and len(text.splitlines()) == 5
