"""The instructor guide (``docs/course/instructor.md``, issue 43) covers every notebook,
states measured run times, and points only at sections and exercises that exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GUIDE = (ROOT / "docs" / "course" / "instructor.md").read_text()
SOURCES = {p.name[:2]: p.read_text() for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.py")}


def sections(text: str) -> set[int]:
    return {int(n) for n in re.findall(r"^# ## (\d+)\.", text, flags=re.M)}


def exercise_count(text: str) -> int:
    """The notebook's exercise cells (most in its Exercises section, the predictions where
    the notebook asks them)."""
    return len(re.findall(r'^# %% tags=\["exercise"\]', text, flags=re.M))


def test_every_notebook_has_its_row_with_a_measured_run_time():
    for number in SOURCES:
        row = next((line for line in GUIDE.splitlines() if line.startswith(f"| {number} ")),
                   None)
        assert row is not None, number
        assert re.search(r"\| \d+ s \|", row), row[:80]
    assert "RUNTIME" not in GUIDE


def test_every_section_the_guide_names_exists():
    for number, first, last in re.findall(r"\b(0\d) §(\d+)(?:–§(\d+))?", GUIDE):
        for section in range(int(first), int(last or first) + 1):
            assert section in sections(SOURCES[number]), f"{number} §{section}"
    for number, refs in re.findall(r"^\| (0\d) [^|]*\|[^|]*\|[^|]*\|[^|]*\| ([^|]*)\|", GUIDE,
                                   flags=re.M):
        for section in re.findall(r"§(\d+)", refs):
            assert int(section) in sections(SOURCES[number]), f"{number} §{section}"


def test_the_exercises_it_assigns_are_the_notebooks():
    for number, last in re.findall(r"^\| (\d\d) [A-Z].*exercises 1–(\d)", GUIDE, flags=re.M):
        assert int(last) == exercise_count(SOURCES[number]), number


def test_the_semester_plan_schedules_every_notebook_and_its_problem_set():
    plan = GUIDE.split("## A semester plan")[1].split("\n## ")[0]
    weeks = re.findall(r"^\| (\d+) \| ([^|]*)\| ([^|]*)\| ([^|]*)\|$", plan, flags=re.M)
    assert 13 <= len(weeks) <= 14
    assert [int(w[0]) for w in weeks] == list(range(1, len(weeks) + 1))
    taught = {n for _, topics, _, _ in weeks for n in re.findall(r"\b(\d\d)\b", topics)}
    problems = {n for _, _, assign, _ in weeks
                for pair in re.findall(r"(\d\d)(?: and (\d\d))? problems", assign)
                for n in pair if n}
    assert taught == set(SOURCES) and set(SOURCES) <= problems, (taught, problems)
