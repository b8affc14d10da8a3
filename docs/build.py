"""Build the documentation site: ``python docs/build.py`` (after ``pip install -e ".[docs]"``);
``python docs/build.py --student`` builds the student edition in ``docs/_build/student``.

The course pages are the notebooks as executed once: the notebook tests save each executed
notebook in ``docs/_executed/``; a notebook without a saved run newer than its source is
executed here, once. Sphinx then builds ``docs/_build/html`` with warnings as errors and
the script prints the page count and the build time.

The student edition is built from a copy of the sources without the Solutions page, the
instructor guide and the notebooks' cells tagged ``solution`` (the worked problem sets),
removed as ``kmeviz course student`` removes them.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

DOCS = Path(__file__).resolve().parent
NOTEBOOKS = DOCS.parent / "notebooks"
EXECUTED = DOCS / "_executed"
COURSE = DOCS / "course"
OUT = DOCS / "_build" / "html"
STUDENT_OUT = DOCS / "_build" / "student"
INSTRUCTOR_ONLY = ("solutions", "instructor")  # course/<name>.md


def executed_notebook(source: Path) -> tuple[Path, bool]:
    """(the executed notebook of ``source``, whether it was executed now)."""
    saved = EXECUTED / f"{source.stem}.ipynb"
    if saved.exists() and saved.stat().st_mtime >= source.stat().st_mtime:
        return saved, False
    import jupytext
    import nbformat
    from nbclient import NotebookClient

    nb = jupytext.read(source)
    NotebookClient(nb, timeout=900, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    EXECUTED.mkdir(exist_ok=True)
    nbformat.write(nb, saved)
    return saved, True


#: MIME types read only by JupyterLab's pyviz extension; the static page uses the text/html
#: and application/javascript of the same outputs
LIVE_ONLY = ("application/vnd.holoviews_load.v0+json", "application/vnd.holoviews_exec.v0+json")


def rendered_links(markdown: str) -> str:
    """Links written for the notebooks' folder (``../docs/course/solutions.md``, which
    JupyterLab and GitHub open) retargeted to the rendered course's folder."""
    return markdown.replace("](../docs/course/", "](").replace("](../docs/", "](../")


def static_copy(notebook: Path, target: Path, *, student: bool = False) -> None:
    """``notebook`` written to ``target`` without the live-only MIME types, its links
    retargeted (``rendered_links``); for the student edition also without its solution
    cells and its links to the Solutions page."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    if student:
        from kmeviz_apps.course_cli import SOLUTION_TAG, student_text

        nb.cells = [cell for cell in nb.cells
                    if SOLUTION_TAG not in cell.metadata.get("tags", [])]
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = rendered_links(student_text(cell.source) if student
                                         else cell.source)
        for output in cell.get("outputs", []):
            for mime in LIVE_ONLY:
                output.get("data", {}).pop(mime, None)
    nbformat.write(nb, target)


def student_sources(root: Path) -> None:
    """The docs' sources copied to ``root`` (a sibling of ``docs``, so that
    ``../CHANGELOG.md`` still resolves) as the student edition: no instructor-only page,
    nor a link or a table-of-contents entry to one."""
    shutil.copytree(DOCS, root, dirs_exist_ok=True, ignore=shutil.ignore_patterns(
        "_build", "_executed", "generated", "jupyter_execute", "*.ipynb"))
    index = root / "course" / "index.md"
    lines = index.read_text().splitlines()
    lines = [line for line in lines if line.strip() not in INSTRUCTOR_ONLY]
    text = "\n".join(lines) + "\n"
    text = text.replace(" Lecturers:\nsee the [instructor guide](instructor.md).", "")
    index.write_text(text)
    for name in INSTRUCTOR_ONLY:
        (root / "course" / f"{name}.md").unlink()


def sphinx(source: Path, out: Path) -> int:
    """Sphinx's HTML build of ``source`` into ``out``, warnings as errors."""
    shutil.rmtree(source / "generated", ignore_errors=True)
    return subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-E",
                           "-b", "html", str(source), str(out)]).returncode


def main(argv: list[str] | None = None) -> int:
    student = "--student" in (sys.argv[1:] if argv is None else argv)
    t0 = time.perf_counter()
    executed = []
    for source in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py")):
        notebook, ran = executed_notebook(source)
        executed.append(notebook)
        print(f"{source.name}: {'executed now' if ran else 'saved run reused'}", flush=True)
    t1 = time.perf_counter()
    if student:
        import tempfile

        with tempfile.TemporaryDirectory(dir=DOCS.parent, prefix=".docs-student-") as tmp:
            root = Path(tmp)
            student_sources(root)
            for notebook in executed:
                static_copy(notebook, root / "course" / notebook.name, student=True)
            code, out = sphinx(root, STUDENT_OUT), STUDENT_OUT
    else:
        for notebook in executed:
            static_copy(notebook, COURSE / notebook.name)
        code, out = sphinx(DOCS, OUT), OUT
    if code:
        return code
    pages = len(list(out.rglob("*.html")))
    print(f"built {pages} pages ({'student' if student else 'instructor'} edition) in {out} "
          f"in {time.perf_counter() - t1:.1f} s (notebooks {t1 - t0:.1f} s), 0 warnings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
