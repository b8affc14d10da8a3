"""The teaching notebooks as jupytext sources: what JupyterLab saves, pairs that agree.

Running them is nbval's job: ``pytest --nbval-lax`` (in the default options) executes each
source as a notebook, its ``check`` cells asserting the quoted values and its ``plot`` cells
their plots (``tests/nbval_course.py``, ``tests/test_course_nbval.py``).
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
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
SOURCES = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))


def test_there_are_notebooks_and_no_generated_ones_in_git():
    assert len(SOURCES) >= 6
    assert not (NOTEBOOKS / "_build.py").exists()


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_source_is_what_jupyterlab_would_save(source):
    """Opening a source as a notebook and saving it back changes nothing, so a lecturer's
    save in JupyterLab only shows the lecturer's own edits in ``git diff``."""
    text = source.read_text()
    assert jupytext.writes(jupytext.reads(text, fmt="py:percent"), fmt="py:percent") == text


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_no_source_holds_a_control_character(source):
    """Issue 43: ``\\big`` written as ``\big`` in a Python string became a backspace byte
    and the equation of 01 §6 did not render. Only newlines may be below U+0020."""
    text = source.read_text()
    bad = [(text.count("\n", 0, i) + 1, hex(ord(ch))) for i, ch in enumerate(text)
           if ord(ch) < 0x20 and ch != "\n" or 0x7F <= ord(ch) < 0xA0]
    assert bad == [], f"control characters (line, code): {bad[:10]}"


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
    run = subprocess.run([sys.executable, "-m", "pytest", str(NOTEBOOKS), "-q", "-m",
                          "not slow", "-p", "no:cacheprovider"],
                         env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:]
