"""``kmeviz course student DIR``, ``kmeviz course instructor DIR`` and ``kmeviz course
grade DIR [--out grades.csv]``: the course's two editions and the grading loop.

The editions are the notebooks of ``notebooks/`` written as ``.ipynb``: the instructor
edition as they are, the student edition without the cells tagged ``solution`` (the
worked problem sets), removed by nbconvert's own ``TagRemovePreprocessor``, and with the
links to the Solutions page replaced by a sentence (that page is not in the student
site). Grading runs each notebook of a folder with nbclient and reads the verdict that
the checker of each cell tagged ``exercise`` printed.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

SOLUTION_TAG = "solution"
EXERCISE_TAG = "exercise"
NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
SOLUTIONS_LINK = re.compile(r"on\s+the\s+course's\s+\[Solutions page\]\([^)]*solutions\.md\)")
STUDENT_NOTE = "in the solutions your lecturer shares after the deadline"
ANY_SOLUTIONS_LINK = re.compile(r"\[([^\]]*)\]\([^)]*solutions\.md[^)]*\)")
CHECKER = re.compile(r"^(check_\w+)\(answer\)", flags=re.M)


def notebook_sources(folder: Path = NOTEBOOKS) -> list[Path]:
    """The course's notebook sources (``NN_name.py``), in order."""
    sources = sorted(Path(folder).glob("[0-9][0-9]_*.py"))
    if not sources:
        raise FileNotFoundError(f"no notebooks NN_*.py in {folder}: run this command in a "
                                "clone of kmeviz, or pass --notebooks")
    return sources


def student_text(markdown: str) -> str:
    """A markdown cell of the student edition: the Solutions page is not in it."""
    return ANY_SOLUTIONS_LINK.sub(r"\1 (your lecturer shares it)",
                                  SOLUTIONS_LINK.sub(STUDENT_NOTE, markdown))


def edition(source: Path, *, student: bool):
    """The notebook of ``source`` (a jupytext ``.py`` or an ``.ipynb``) in one edition."""
    import jupytext
    from nbconvert.preprocessors import TagRemovePreprocessor

    notebook = jupytext.read(source)
    if not student:
        return notebook
    remover = TagRemovePreprocessor(remove_cell_tags={SOLUTION_TAG}, enabled=True)
    notebook, _ = remover.preprocess(notebook, {})
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            cell.source = student_text(cell.source)
    return notebook


def write_edition(out: Path, *, student: bool, folder: Path = NOTEBOOKS) -> list[Path]:
    """Every notebook of the course in one edition, as ``out/NN_name.ipynb``."""
    import nbformat

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for source in notebook_sources(folder):
        target = out / f"{source.stem}.ipynb"
        nbformat.write(edition(source, student=student), target)
        written.append(target)
    return written


def _verdict(cell) -> tuple[str, str]:
    """(verdict, message) that the checker of an executed exercise cell showed."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return "error", f"{output.get('ename')}: {output.get('evalue')}"[:300]
        text = output.get("data", {}).get("text/plain", "")
        for mark, verdict in (("✓ Right", "right"), ("✗ Not yet", "not yet")):
            if text.startswith(mark):
                return verdict, text.split(": ", 1)[-1]
    return "no answer", "the cell showed no checker's verdict"


def grade_notebook(path: Path, *, timeout: int = 900) -> list[dict]:
    """One row per exercise of a student's notebook (``.ipynb`` or ``.py``), run whole
    with nbclient in its own folder: notebook, checker, verdict, message."""
    import jupytext
    from nbclient import NotebookClient

    notebook = jupytext.read(path)
    NotebookClient(notebook, timeout=timeout, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(Path(path).parent)}}).execute()
    rows = []
    for cell in notebook.cells:
        if EXERCISE_TAG in cell.metadata.get("tags", []):
            checker = CHECKER.findall(cell.source)
            verdict, message = _verdict(cell)
            rows.append({"notebook": Path(path).name,
                         "checker": checker[-1] if checker else "?",
                         "verdict": verdict, "message": message})
    return rows


def grade(folder: Path, *, timeout: int = 900) -> list[dict]:
    """Every notebook of ``folder`` graded (``grade_notebook``), in name order."""
    paths = sorted(p for p in Path(folder).iterdir() if p.suffix in (".ipynb", ".py"))
    if not paths:
        raise FileNotFoundError(f"no .ipynb or .py notebook in {folder}")
    return [row for path in paths for row in grade_notebook(path, timeout=timeout)]


def add_parser(commands) -> None:
    """The ``course`` subcommand of ``kmeviz``."""
    course = commands.add_parser("course", help="write the course's student or instructor "
                                 "edition, or grade a folder of student notebooks")
    actions = course.add_subparsers(dest="action", required=True)
    for name, what in (("student", "the notebooks without the solution cells"),
                       ("instructor", "the notebooks with the worked problem sets")):
        action = actions.add_parser(name, help=f"write {what} to DIR as .ipynb")
        action.add_argument("dir", type=Path)
        action.add_argument("--notebooks", type=Path, default=NOTEBOOKS,
                            help="the folder of the NN_*.py sources (default: the clone's)")
    grading = actions.add_parser("grade", help="run every notebook in DIR and tabulate "
                                 "its checkers' verdicts")
    grading.add_argument("dir", type=Path)
    grading.add_argument("--out", type=Path, help="also write the table as CSV")
    grading.add_argument("--timeout", type=int, default=900, help="seconds per cell")


def run(args) -> int:
    """Carry out ``kmeviz course …``; 0 on success, 2 with a one-line error."""
    try:
        if args.action != "grade":
            written = write_edition(args.dir, student=args.action == "student",
                                    folder=args.notebooks)
            print(f"wrote {len(written)} notebooks ({args.action} edition) to {args.dir}")
            return 0
        rows = grade(args.dir, timeout=args.timeout)
        for row in rows:
            mark = {"right": "✓", "not yet": "✗"}.get(row["verdict"], "!")
            print(f"{row['notebook']:40s} {row['checker']:40s} {mark} "
                  f"{row['message'][:60]}")
        print(f"{sum(row['verdict'] == 'right' for row in rows)} of {len(rows)} exercises "
              "right")
        if args.out:
            with open(args.out, "w", newline="", encoding="utf-8") as handle:
                writer = csv.DictWriter(handle, fieldnames=["notebook", "checker", "verdict",
                                                            "message"])
                writer.writeheader()
                writer.writerows(rows)
    except OSError as exc:  # a missing folder, no notebook in it, an unwritable --out
        print(f"kmeviz course: error: {exc}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m kmeviz_apps.course_cli …`` (the same as ``kmeviz course …``)."""
    parser = argparse.ArgumentParser(prog="kmeviz")
    add_parser(parser.add_subparsers(dest="command", required=True))
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
