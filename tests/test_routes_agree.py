"""One real-data CSV through Python, the command line and the "Your data" explorer gives
the same kernel, bandwidth, statistics and p-values (issue 44: the routes once differed
in their standardisation default, σ = 451.6 against 6.38)."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import kmeviz as K

pytest.importorskip("panel")
from kmeviz_apps.data_explorer import DataExplorer  # noqa: E402


class Drop:
    def __init__(self, files):
        self.new = files


@pytest.fixture(scope="module")
def penguins_csv(tmp_path_factory):
    """The Palmer penguins as a researcher saves them (a real data set, CC0), with its
    text columns and missing values."""
    path = tmp_path_factory.mktemp("real") / "penguins.csv"
    K.load_dataset("penguins").to_csv(path, index=False)
    return path


def test_python_cli_and_dashboard_agree(penguins_csv, tmp_path):
    groups = ("Adelie", "Gentoo")
    X, Y, report = K.load_samples(penguins_csv, group="species", groups=groups)
    python = K.compare_tests(X, Y, rng=0)

    out = tmp_path / "cli.csv"
    done = subprocess.run([sys.executable, "-m", "kmeviz_apps", "compare", str(penguins_csv),
                           "--group", "species", "--groups", *groups, "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    cli = pd.read_csv(out)

    explorer = DataExplorer()
    explorer._box.receive(Drop({"penguins.csv": penguins_csv.read_text()}))
    explorer.param.update(group="species")
    explorer.param.update(group_x=groups[0], group_y=groups[1])
    dashboard = explorer.comparison  # not served: the comparison job ran at once

    sigma = python.attrs["kernel"].bandwidth
    assert report.standardized and explorer.standardize  # one default everywhere
    assert dashboard.attrs["kernel"].bandwidth == pytest.approx(sigma, rel=1e-12)
    np.testing.assert_allclose(cli["bandwidth"], sigma, rtol=1e-12)
    assert (cli["kernel"] == repr(python.attrs["kernel"])).all()
    assert (cli["alpha"] == 0.05).all() and (cli["seed"] == 0).all()
    for table in (cli, dashboard):
        assert list(table["test"]) == list(python["test"])
        # the same statistics (floating-point order aside) and the same seeded p-values
        np.testing.assert_allclose(table["statistic"], python["statistic"], rtol=1e-9)
        np.testing.assert_allclose(table["p_value"], python["p_value"], rtol=1e-9)
        np.testing.assert_allclose(table["p_holm"], python["p_holm"], rtol=1e-9)
    effect = python.attrs["effect_size"]
    assert dashboard.attrs["effect_size"].mmd == pytest.approx(effect.mmd, rel=1e-9)
    assert cli["effect_mmd"].iloc[0] == pytest.approx(effect.mmd, rel=1e-9)
