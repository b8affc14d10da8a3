"""The teaching notebooks: executed from their jupytext sources and checked by value.

Each notebook is a ``py:percent`` source in ``notebooks/``. The test executes it in a fresh
kernel; cells tagged ``check`` assert the numbers the text quotes, with the tolerances they
state, so a wrong number fails and round-off from another CPU does not. Nothing is compared
byte for byte. Cells tagged ``plot`` must display a rendered HoloViews plot: HoloViews turns
a rendering error into printed text, which would otherwise pass unnoticed.
"""

from __future__ import annotations

import asyncio
import difflib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
SOURCES = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))
PLOT_MIME = "application/vnd.holoviews_exec.v0+json"
EXECUTED = NOTEBOOKS.parent / "docs" / "_executed"


def tagged(nb, tag: str) -> list[int]:
    """Indices of the code cells carrying ``tag``."""
    return [i for i, c in enumerate(nb.cells)
            if c.cell_type == "code" and tag in c.metadata.get("tags", [])]


def plot_cells_without_a_plot(nb) -> list[int]:
    """Indices of ``plot``-tagged cells of an executed notebook that displayed no plot."""
    return [i for i in tagged(nb, "plot")
            if not any(PLOT_MIME in out.get("data", {}) for out in nb.cells[i].outputs)]


def cells_with_a_plot(nb) -> list[int]:
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
            and any(PLOT_MIME in out.get("data", {}) for out in c.outputs)]


def test_there_are_notebooks_and_no_generated_ones_in_git():
    assert len(SOURCES) >= 6
    assert not (NOTEBOOKS / "_build.py").exists()


def needs_missing_dask(source: Path) -> bool:
    """A notebook of the dask extra, on a machine (or run) without dask."""
    if "from distributed import" not in source.read_text():
        return False
    try:
        import distributed  # noqa: F401
    except ImportError:
        return True
    return False


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_notebook_runs_and_its_checks_pass(source, tmp_path):
    if needs_missing_dask(source):
        pytest.skip("needs the dask extra (pip install 'kmeviz[dask]')")
    nb = jupytext.read(source)
    checks, plots = tagged(nb, "check"), tagged(nb, "plot")
    assert checks, f"{source.name} has no cell tagged 'check': nothing would be verified"
    # Every plot is followed (later in the notebook) by a check of what it shows.
    assert all(any(c > p for c in checks) for p in plots), "a plot cell is never checked"
    client = NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    try:
        client.execute()
    except CellExecutionError as exc:  # the failing cell and its error, without the HTML noise
        pytest.fail(f"{source.name}: {str(exc)[-3000:]}", pytrace=False)
    assert plot_cells_without_a_plot(nb) == [], "a plot cell displayed no rendered plot"
    # Extra HoloViews output beyond the extension banner belongs to a tagged cell.
    assert set(cells_with_a_plot(nb)) <= set(plots) | {first_code_cell(nb)}
    nbformat.validate(nb)
    # the documentation renders this run instead of executing the notebook again
    EXECUTED.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, EXECUTED / f"{source.stem}.ipynb")


def first_code_cell(nb) -> int:
    return next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")


def test_a_plot_cell_that_shows_no_plot_is_caught():
    """The plot check itself can fail: a tagged cell whose output is only text."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x", metadata={"tags": ["plot"]}),
                nbformat.v4.new_code_cell("y", metadata={"tags": ["plot"]})]
    nb.cells[0].outputs = [nbformat.v4.new_output(
        "execute_result", data={"text/plain": "Rendering process skipped: error"})]
    nb.cells[1].outputs = [nbformat.v4.new_output(
        "display_data", data={PLOT_MIME: {}, "text/html": "<div></div>"})]
    assert plot_cells_without_a_plot(nb) == [0]


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_source_is_what_jupyterlab_would_save(source):
    """Opening a source as a notebook and saving it back changes nothing, so a lecturer's
    save in JupyterLab only shows the lecturer's own edits in ``git diff``."""
    text = source.read_text()
    assert jupytext.writes(jupytext.reads(text, fmt="py:percent"), fmt="py:percent") == text


def assert_pair_agrees(source: Path, paired: Path) -> None:
    """The paired ``.ipynb`` has exactly the cells (type, tags, text) of the source."""
    def cells(nb):
        return [(c.cell_type, c.metadata.get("tags", []), c.source) for c in nb.cells]

    assert cells(jupytext.read(source)) == cells(jupytext.read(paired)), \
        f"{paired.name} and {source.name} disagree: run `jupytext --sync {source}`"


def test_local_paired_notebooks_agree_with_their_sources():
    """A paired ``.ipynb`` written next to a source by JupyterLab (kept out of git) that is
    *newer* than its source must agree with it: otherwise edits made in the ``.ipynb``
    outside jupytext never reach git. (An older pair is harmless: jupytext refreshes it
    from the source.) ``jupytext --sync`` mends a pair that has diverged."""
    pairs = [(s, s.with_suffix(".ipynb")) for s in SOURCES if s.with_suffix(".ipynb").exists()]
    if not pairs:
        pytest.skip("no local .ipynb pairs (JupyterLab creates them when a source is saved)")
    for source, paired in pairs:
        if paired.stat().st_mtime > source.stat().st_mtime:
            assert_pair_agrees(source, paired)


def test_an_edit_saved_in_jupyterlab_lands_in_the_source(tmp_path):
    """JupyterLab 4 opens and saves files through jupytext's asynchronous contents manager
    (what ``pip install jupytext`` enables in jupyter_server): do exactly that on a copy."""
    from jupytext import AsyncTextFileContentsManager

    for name in ("jupytext.toml", SOURCES[0].name):
        shutil.copy(NOTEBOOKS / name, tmp_path / name)
    manager = AsyncTextFileContentsManager(root_dir=str(tmp_path))

    async def open_edit_and_save():
        model = await manager.get(SOURCES[0].name, content=True, type="notebook")
        model["content"]["cells"][0]["source"] += "\n\nA sentence the lecturer added."
        await manager.save(model, SOURCES[0].name)

    asyncio.run(open_edit_and_save())

    saved = (tmp_path / SOURCES[0].name).read_text().splitlines()
    diff = [line for line in difflib.unified_diff(SOURCES[0].read_text().splitlines(), saved,
                                                  lineterm="", n=0)
            if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert diff == ["+#", "+# A sentence the lecturer added."]
    source = tmp_path / SOURCES[0].name
    assert_pair_agrees(source, source.with_suffix(".ipynb"))


OTHER_NUMERICS = {
    "inputs perturbed by 1e-15": {"KMEVIZ_PERTURB": "1e-15",
                                  "PYTHONPATH": str(Path(__file__).parent / "numerics")},
    "other BLAS and SIMD kernels": {"OPENBLAS_NUM_THREADS": "1",
                                    "OPENBLAS_CORETYPE": "Sandybridge",
                                    "NPY_DISABLE_CPU_FEATURES": "X86_V3"},
}


@pytest.mark.slow
@pytest.mark.parametrize("setting", OTHER_NUMERICS)
def test_notebook_checks_hold_under_other_numerics(setting):
    """The checks are portable: they pass when the last bits change as on another CPU
    (data perturbed through ``tests/numerics/sitecustomize.py``, or numpy without AVX2/FMA
    and OpenBLAS with other kernels on one thread)."""
    env = {**os.environ, **OTHER_NUMERICS[setting]}
    run = subprocess.run([sys.executable, "-m", "pytest", __file__, "-q", "-m", "not slow",
                          "-k", "runs_and_its_checks_pass", "-p", "no:cacheprovider"],
                         env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:]
