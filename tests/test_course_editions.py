"""The course's two editions and its grading loop (issue 60, point 2): the student edition
has no solution cell and no link to the Solutions page, and each of its exercise cells
runs to its checker, which says "not yet"; the instructor edition is the course as it
is; the student docs site has neither the Solutions page nor the instructor guide; and
the instructor guide's grading loop runs, as written, on a folder of student notebooks."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import jupytext
import nbformat
import pytest
from kmeviz_apps.course_cli import (
    EXERCISE_TAG,
    SOLUTION_TAG,
    edition,
    main,
    notebook_sources,
    write_edition,
)

from kmeviz.exercises import Feedback

ROOT = Path(__file__).resolve().parents[1]
SOURCES = notebook_sources()
GUIDE = (ROOT / "docs" / "course" / "instructor.md").read_text()


def tags(cell) -> list[str]:
    return cell.metadata.get("tags", [])


@pytest.fixture(scope="module")
def student(tmp_path_factory):
    out = tmp_path_factory.mktemp("student")
    assert main(["course", "student", str(out)]) == 0
    return {path.stem: nbformat.read(path, as_version=4) for path in sorted(out.iterdir())}


def test_every_notebook_has_a_problem_set_whose_solutions_only_the_instructor_sees(student):
    assert len(student) == len(SOURCES) >= 14
    for source in SOURCES:
        instructor = edition(source, student=False)
        solutions = [c for c in instructor.cells if SOLUTION_TAG in tags(c)]
        assert solutions and all("### Solutions" in c.source for c in solutions), source
        assert any("## Problems" in c.source for c in instructor.cells)
        handed_out = student[source.stem]
        assert not [c for c in handed_out.cells if SOLUTION_TAG in tags(c)]
        assert not any("solutions.md" in c.source or "### Solutions" in c.source
                       for c in handed_out.cells)
        assert any("## Problems" in c.source for c in handed_out.cells)
        # nothing else is removed: the instructor's cells less the solutions, in order
        kept = [c.source for c in instructor.cells if SOLUTION_TAG not in tags(c)]
        assert len(kept) == len(handed_out.cells)


def test_the_instructor_edition_is_the_course_as_it_is(tmp_path):
    write_edition(tmp_path, student=False)
    for source in SOURCES:
        written = nbformat.read(tmp_path / f"{source.stem}.ipynb", as_version=4)
        assert [c.source for c in written.cells] == [c.source
                                                     for c in jupytext.read(source).cells]


def last_expression_value(code: str, namespace: dict):
    """Run a cell as Jupyter does and return the value of its last expression."""
    import ast

    tree = ast.parse(code)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, "<cell>", "exec"), namespace)  # noqa: S102 - the course's own cells
    if last is not None:
        return eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)  # noqa: S307
    return None


def test_each_exercise_of_the_student_edition_runs_to_its_checker_which_says_not_yet(
        student):
    for name, notebook in student.items():
        code = [c for c in notebook.cells if c.cell_type == "code"]
        namespace: dict = {}
        with contextlib.redirect_stdout(io.StringIO()):
            imports = code[0].source.replace('hv.extension("bokeh", logo=False, inline=True)',
                                             "")
            last_expression_value(imports, namespace)
            exercises = [c for c in code if EXERCISE_TAG in tags(c)]
            assert 2 <= len(exercises) <= 4, name
            for cell in exercises:
                verdict = last_expression_value(cell.source, namespace)
                assert isinstance(verdict, Feedback) and not verdict, (name, cell.source)
                assert "Not yet" in repr(verdict)


def test_the_student_site_has_no_solutions_page_nor_instructor_guide(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_build", ROOT / "docs" / "build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    build.student_sources(tmp_path)
    course = tmp_path / "course"
    assert not (course / "solutions.md").exists() and not (course / "instructor.md").exists()
    index = (course / "index.md").read_text()
    assert "solutions" not in index and "instructor" not in index
    assert "14_causal_graphs" in index and (tmp_path / "glossary.md").exists()
    assert not any("solutions.md" in p.read_text() or "instructor.md" in p.read_text()
                   for p in tmp_path.rglob("*.md") if p.name != "changelog.md")


def answered(notebook, checker: str, body: str):
    """``notebook`` with the implementation exercise of ``checker`` answered by ``body``."""
    notebook = nbformat.from_dict(notebook)
    cell = next(c for c in notebook.cells
                if EXERCISE_TAG in tags(c) and f"{checker}(answer)" in c.source)
    cell.source = cell.source.replace("    return None  # your code", body)
    return notebook


def test_the_guides_grading_loop_runs_on_a_folder_of_student_notebooks(student, tmp_path):
    """Two students hand in notebook 08: one answers the witness exercise right; the
    other hands it in untouched. The guide's Python block grades both."""
    folder = tmp_path / "submissions"
    folder.mkdir()
    own_data = student["08_your_own_data"]
    witness = ("    return (kernel(T, X).mean(axis=1) - kernel(T, Y).mean(axis=1))")
    nbformat.write(answered(own_data, "check_witness_function", witness),
                   folder / "alice_08.ipynb")
    nbformat.write(own_data, folder / "bob_08.ipynb")
    block = re.search(r"```python\n(.*?)```", GUIDE.split("## Grading with the checkers")[1],
                      flags=re.S).group(1)
    namespace: dict = {}
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(block, namespace)  # noqa: S102 - the guide's code, as a lecturer runs it
    finally:
        os.chdir(cwd)
    table, points = namespace["table"], namespace["points"]
    assert set(table.notebook) == {"alice_08.ipynb", "bob_08.ipynb"}
    assert len(table) == 2 * 4  # notebook 08's four exercises, each graded
    alice = table[table.notebook == "alice_08.ipynb"].set_index("checker")
    assert alice.loc["check_witness_function", "verdict"] == "right"
    assert points["alice_08.ipynb"] == 1 and points["bob_08.ipynb"] == 0
    assert set(table.verdict) == {"right", "not yet"}
