"""The course runs under nbval (``tests/nbval_course.py``), and nbval's run can fail: a
check cell whose assert fails, and a plot cell that stops producing its plot."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
SOURCES = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))

HEADER = "# %%\nimport holoviews as hv\nhv.extension('bokeh', logo=False)\n\n"


def run_course(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.nbval_course",
                           "--nbval-lax", "--nbval-current-env", "-q", "-p",
                           "no:cacheprovider", str(folder)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def write_course(folder: Path, body: str) -> None:
    (folder / "jupytext.toml").write_text('formats = "ipynb,py:percent"\n')
    (folder / "01_probe.py").write_text(HEADER + body)


def test_every_course_notebook_is_collected_by_nbval():
    run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                          str(NOTEBOOKS)], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    collected = {line.split("::")[1] for line in run.stdout.splitlines() if "::" in line}
    assert collected == {f"{s.stem}.ipynb" for s in SOURCES}


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_every_plot_is_checked_and_every_notebook_has_checks(source):
    nb = jupytext.read(source)
    tagged = {tag: [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
                    and tag in c.metadata.get("tags", [])] for tag in ("check", "plot")}
    assert tagged["check"], f"{source.name} has no cell tagged 'check'"
    assert all(any(c > p for c in tagged["check"]) for p in tagged["plot"])


def test_a_failing_check_fails_the_course(tmp_path):
    write_course(tmp_path, "# %%\nvalue = 0.5\n\n# %% tags=[\"check\"]\n"
                           "assert abs(value - 0.25) < 1e-6, value\n")
    run = run_course(tmp_path)
    assert run.returncode == 1, run.stdout[-2000:]
    assert "1 failed" in run.stdout and "AssertionError" in run.stdout


def test_a_plot_cell_without_its_plot_fails_the_course(tmp_path):
    write_course(tmp_path, "# %% tags=[\"plot\"]\nprint('Rendering process skipped')\n\n"
                           "# %% tags=[\"plot\"]\nhv.Curve([1, 2, 3])\n")
    run = run_course(tmp_path)
    assert run.returncode == 1, run.stdout[-2000:]
    assert "1 failed, 2 passed" in run.stdout
    assert "displayed no rendered HoloViews plot" in run.stdout
