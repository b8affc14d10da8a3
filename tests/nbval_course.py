"""The course under nbval: ``pytest --nbval-lax`` runs every teaching notebook.

A folder with a ``jupytext.toml`` is a course: each of its ``NN_*.py`` jupytext sources is
written as an ``.ipynb`` into a temporary folder and handed to nbval, which executes every
cell in a fresh kernel (``--nbval-lax``: outputs are not compared, so plot bytes and
floats from another CPU never fail a run). Cells tagged ``check`` assert the numbers the
text quotes, with the tolerances they state; a failing assert fails its cell. On top of
nbval, a cell tagged ``plot`` fails unless it displayed a rendered HoloViews plot
(HoloViews turns a rendering error into printed text, which would otherwise pass), and a
cell that displays a plot must carry the tag. The executed notebook is saved to
``docs/_executed`` for the documentation, which then does not execute it again.

Loaded by the root ``conftest.py``; ``python -m pytest -p tests.nbval_course --nbval-lax
FOLDER`` runs any other course folder the same way.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import jupytext
import nbformat
import pytest
from nbval.plugin import IPyNbCell, IPyNbFile

ROOT = Path(__file__).resolve().parents[1]
PLOT_MIME = "application/vnd.holoviews_exec.v0+json"
EXECUTED = ROOT / "docs" / "_executed"


def course_sources(folder: Path) -> list[Path]:
    """The notebook sources of a course folder, in order."""
    return sorted(folder.glob("[0-9][0-9]_*.py"))


def shows_a_plot(outputs) -> bool:
    return any(PLOT_MIME in out.get("data", {}) for out in outputs or ())


def pytest_collect_file(file_path, parent):
    opt = parent.config.option
    if (opt.nbval or opt.nbval_lax) and file_path.name == "jupytext.toml":
        return Course.from_parent(parent, path=file_path)
    return None


class Course(pytest.File):
    """The notebooks of a course folder, each converted to an ``.ipynb`` for nbval."""

    def collect(self):
        out = Path(tempfile.mkdtemp(prefix="kmeviz-course-"))
        for source in course_sources(self.path.parent):
            notebook = out / f"{source.stem}.ipynb"
            nbformat.write(jupytext.read(source), notebook)
            yield CourseNotebook.from_parent(self, path=notebook, source=source)


class CourseNotebook(IPyNbFile):
    """nbval's notebook, whose cells also check their plots and whose run is saved."""

    def __init__(self, *args, source: Path, **kwargs):
        super().__init__(*args, **kwargs)
        self.source = source
        self.cells_run: list[CourseCell] = []

    def collect(self):
        first_code = True
        for item in super().collect():
            cell = CourseCell.from_parent(self, name=item.name, cell_num=item.cell_num,
                                          cell=item.cell, options=item.options)
            cell.may_show_banner = first_code  # hv.extension's banner, before any plot
            first_code = False
            self.cells_run.append(cell)
            yield cell

    def teardown(self):
        super().teardown()
        if all(cell.test_outputs is not None for cell in self.cells_run):
            self.save_run()

    def save_run(self) -> None:
        """The executed notebook for the docs (``docs/build.py`` reuses it)."""
        for cell in self.cells_run:
            cell.cell.outputs = [nbformat.from_dict(o) for o in cell.test_outputs]
        try:
            nbformat.validate(self.nb)
        except nbformat.ValidationError:
            return  # the docs will execute this notebook themselves
        if self.source.parent == ROOT / "notebooks":
            EXECUTED.mkdir(parents=True, exist_ok=True)
            nbformat.write(self.nb, EXECUTED / f"{self.source.stem}.ipynb")


class CourseCell(IPyNbCell):
    """An nbval cell that, once run, checks its plot."""

    may_show_banner = False

    def runtest(self):
        super().runtest()
        tags = self.cell.metadata.get("tags", [])
        if "plot" in tags and not shows_a_plot(self.test_outputs):
            self.raise_cell_error("A cell tagged 'plot' displayed no rendered HoloViews plot",
                                  _text_of(self.test_outputs))
        if shows_a_plot(self.test_outputs) and "plot" not in tags and not self.may_show_banner:
            self.raise_cell_error("A cell displayed a plot without the 'plot' tag",
                                  "tag it, and check what it shows in a later 'check' cell")


def _text_of(outputs) -> str:
    texts = [out.get("text") or out.get("data", {}).get("text/plain", "")
             for out in outputs or ()]
    return "\n".join(str(t) for t in texts)[-2000:] or "(no output)"
