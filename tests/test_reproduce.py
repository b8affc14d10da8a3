"""``kmeviz reproduce``: every figure's quick version writes a non-empty table and a PNG."""

import numpy as np
import pandas as pd
import pytest
from kmeviz_apps.cli import main
from kmeviz_apps.reproduce import reproduce

from kmeviz.experiments.figures import FIGURES, figure

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("name", list(FIGURES))
def test_quick_reproduction_writes_its_table_and_plot(name, tmp_path):
    done = reproduce(name, quick=True, out=tmp_path)
    table = pd.read_csv(done["csv"])
    spec = FIGURES[name]
    assert len(table) > 0
    assert {spec.x, spec.y, spec.series} <= set(table.columns)
    assert table[spec.y].notna().all()
    image = done["png"].read_bytes()
    assert image.startswith(PNG_MAGIC) and len(image) > 10_000  # a drawn figure, not a stub


def test_cli_lists_the_figures_and_names_them_on_a_typo(capsys, tmp_path):
    assert main(["reproduce", "list"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in FIGURES)
    assert main(["reproduce", "nksd-fig9", "--out", str(tmp_path)]) == 2
    assert "nksd-fig1b" in capsys.readouterr().out
    with pytest.raises(ValueError, match="the figures are"):
        figure("nope")


def test_fig8b_plot_sets_the_papers_runtimes_beside_ours():
    import holoviews as hv

    from kmeviz.viz.figures import figure_plot

    spec = FIGURES["fastmmd-fig8b"]
    table = pd.DataFrame({"epsilon": [1.2, 1.2], "test": ["Gamma", "Pearson"],
                          "type2_error": [0.5, 0.4], "type2_ci_low": [0.3, 0.2],
                          "type2_ci_high": [0.7, 0.6], "runtime_s": [0.1, 0.2],
                          "repeats": [10, 10]})
    plot = figure_plot(spec, table)
    runtimes = [p for p in plot if isinstance(p, hv.Table)][0].dframe().set_index("test")
    assert runtimes.loc["Gamma", "paper (s)"] == 0.73
    assert runtimes.loc["Pearson", "kmeviz, all 10 (s)"] == pytest.approx(2.0)
    assert runtimes.loc["Pearson", "kmeviz, one test (s)"] == pytest.approx(0.2)


def test_nystrom_fig1_marks_the_papers_order_of_m_and_the_empirical_error():
    """Each n of Chatalic et al.'s Fig. 1 has a vertical line at m = √n log √n and a
    horizontal one at the empirical error, and the RFF curve says that its error is
    measured in its own feature space (the paper: not comparable with H)."""
    import holoviews as hv

    from kmeviz.viz.figures import figure_plot

    table = pd.DataFrame({"n": [100] * 3, "estimator": ["empirical", "nystrom", "rff"],
                          "m": [100, 10, 10], "mean_error": [0.05, 0.2, 0.04],
                          "p05": [0.04, 0.1, 0.03], "p95": [0.06, 0.3, 0.05]})
    plot = figure_plot(FIGURES["nystrom-fig1"], table)
    vlines = [e.data for e in plot.traverse(lambda e: e, [hv.VLine])]
    hlines = [e.data for e in plot.traverse(lambda e: e, [hv.HLine])]
    assert vlines == [pytest.approx(10 * np.log(10))] and hlines == [pytest.approx(0.05)]
    labels = {e.label for e in plot.traverse(lambda e: e, [hv.Curve])}
    assert "RFF (own feature space, not comparable)" in labels


def test_cli_shows_a_progress_bar_while_a_figure_runs(capsys, tmp_path):
    """``kmeviz reproduce`` is never silent for minutes: a tqdm bar on stderr counts the
    runner's trials (here the 6 σ of the quick Fig. 6: 6/6 at the end)."""
    assert main(["reproduce", "fastmmd-fig6", "--quick", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "fastmmd-fig6" in captured.err and "6/6" in captured.err
    assert (tmp_path / "fastmmd-fig6.csv").exists()


def test_reproduce_never_writes_through_a_link_nor_over_a_file(tmp_path, capsys):
    """A symbolic link named NAME.csv keeps its target untouched; an existing file needs
    --overwrite; a file or an unwritable path as --out, and a negative --rng, are one line
    naming the flag, exit code 2, no traceback."""
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    out = tmp_path / "out"
    out.mkdir()
    (out / "cme-fig1.csv").symlink_to(target)
    args = ["reproduce", "cme-fig1", "--quick", "--out", str(out)]
    assert main(args) == 2 and target.read_text() == "keep me"
    assert main([*args, "--overwrite"]) == 2 and target.read_text() == "keep me"
    assert "symbolic link" in capsys.readouterr().err
    (out / "cme-fig1.csv").unlink()
    (out / "cme-fig1.csv").write_text("old")
    assert main(args) == 2 and "pass --overwrite" in capsys.readouterr().err
    assert main([*args, "--overwrite"]) == 0
    assert (out / "cme-fig1.csv").read_text() != "old"
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temporary left
    capsys.readouterr()
    assert main(["reproduce", "cme-fig1", "--quick", "--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--out" in err and "not a folder" in err
    with pytest.raises(SystemExit) as exit_info:
        main(["reproduce", "cme-fig1", "--rng", "-1"])
    assert exit_info.value.code == 2 and "argument --rng" in capsys.readouterr().err


def test_the_reproducing_page_shows_every_figure_with_its_stored_table_and_plot():
    """docs/reproducing.md has a section and a command for every figure of the registry (a
    new figure cannot go unlisted), and each section either shows a stored plot and table
    that exist or says that the full run has not been made yet."""
    from pathlib import Path

    docs = Path(__file__).resolve().parents[1] / "docs"
    page = (docs / "reproducing.md").read_text()
    for name, spec in FIGURES.items():
        assert f"### {spec.title}" in page and f"kmeviz reproduce {name}\n" in page, name
        section = page[page.index(f"kmeviz reproduce {name}\n"):]
        section = section[: section.find("\n### ")] if "\n### " in section else section
        if "The full run has not been made yet" in section:
            continue
        image = section[section.index("![") :].split("(", 1)[1].split(")", 1)[0]
        table = section[section.index("Table: [") :].split("(", 1)[1].split(")", 1)[0]
        assert (docs / image).is_file() and (docs / table).is_file(), name
        assert (docs / image).read_bytes().startswith(PNG_MAGIC), name


def test_reproduce_onto_a_folder_named_like_its_file_is_one_line(tmp_path, capsys):
    """NAME.csv a folder: with or without --overwrite one line, exit code 2, the folder
    kept (``--overwrite`` ended in a traceback from the rename)."""
    (tmp_path / "cme-fig1.csv").mkdir()
    (tmp_path / "cme-fig1.csv" / "inside.txt").write_text("keep me")
    args = ["reproduce", "cme-fig1", "--quick", "--out", str(tmp_path)]
    for extra in ([], ["--overwrite"]):
        assert main([*args, *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "is a folder" in err and "Traceback" not in err
    assert (tmp_path / "cme-fig1.csv" / "inside.txt").read_text() == "keep me"
