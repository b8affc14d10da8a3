"""The class benchmark's stored run (``docs/results/benchmarks_class.txt``, newest run
first) meets issue 45's goals, and the README's and CHANGELOG's quotes of it are
generated from it (``docs/results/quotes.py``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STORED = (ROOT / "docs" / "results" / "benchmarks_class.txt").read_text()


def load_quotes():
    """``docs/results/quotes.py``, the script that writes the quoted numbers."""
    spec = importlib.util.spec_from_file_location("quotes", ROOT / "docs" / "results" /
                                                  "quotes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


QUOTES = load_quotes()


def rows(label: str) -> dict[int, list[str]]:
    return QUOTES.class_rows(STORED, label)


def test_the_stored_run_meets_the_goals():
    after = rows("after")
    # sessions, failed, p50, p90, max, CPU, RSS, α median, α max, built twice
    assert float(after[100][4]) <= 60 and float(after[30][4]) <= 15
    assert all(float(row[8]) < 1.0 for row in after.values())
    assert all(row[1] == "0" and row[9] == "0" for row in after.values())


def test_the_readme_and_changelog_quotes_are_generated_from_the_stored_run(tmp_path):
    """The quoted numbers are written by ``docs/results/quotes.py`` from the stored run
    (issue 57): the files are up to date with it, and a run stored with other numbers
    rewrites them."""
    assert QUOTES.stale() == []
    row = ("     100       0    21.5 /  35.9 /  39.8          0.39            272       "
           "0.39 /  0.68")
    assert row in STORED  # the newest run's row of 100 sessions, after
    other = STORED.replace(row, row[:-12] + "9.87 /  9.99", 1)
    (tmp_path / "benchmarks_class.txt").write_text(other)
    page = tmp_path / "page.md"
    page.write_text("x <!-- quote:class-readme -->old<!-- /quote --> y")
    text = QUOTES.rendered(page.read_text(), tmp_path)
    assert text.startswith("x <!-- quote:class-readme -->") and text.endswith(" y")
    assert "old" not in text and QUOTES.stale([page], tmp_path) == [page.name]
    assert "α step answered in 9.87 s (median; 9.99 s at most)" in text
