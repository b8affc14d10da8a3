"""Build the documentation site: ``python docs/build.py`` (after ``pip install -e ".[docs]"``).

The course pages are the notebooks as executed once: the notebook tests save each executed
notebook in ``docs/_executed/``; a notebook without a saved run newer than its source is
executed here, once. Sphinx then builds ``docs/_build/html`` with warnings as errors and
the script prints the page count and the build time.
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


def static_copy(notebook: Path, target: Path) -> None:
    """``notebook`` written to ``target`` without the live-only MIME types, its links
    retargeted (``rendered_links``)."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = rendered_links(cell.source)
        for output in cell.get("outputs", []):
            for mime in LIVE_ONLY:
                output.get("data", {}).pop(mime, None)
    nbformat.write(nb, target)


def main() -> int:
    t0 = time.perf_counter()
    for source in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py")):
        notebook, ran = executed_notebook(source)
        static_copy(notebook, COURSE / notebook.name)
        print(f"{source.name}: {'executed now' if ran else 'saved run reused'}", flush=True)
    t1 = time.perf_counter()
    shutil.rmtree(DOCS / "generated", ignore_errors=True)
    run = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-E",
                          "-b", "html", str(DOCS), str(OUT)])
    if run.returncode:
        return run.returncode
    pages = len(list(OUT.rglob("*.html")))
    print(f"built {pages} pages in {OUT} in {time.perf_counter() - t1:.1f} s "
          f"(notebooks {t1 - t0:.1f} s), 0 warnings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
