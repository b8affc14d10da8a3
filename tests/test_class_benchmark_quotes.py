"""The class benchmark's stored run (``docs/results/benchmarks_class.txt``, newest run
first) meets issue 45's goals, and the README and CHANGELOG quote its numbers, not
others."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STORED = (ROOT / "docs" / "results" / "benchmarks_class.txt").read_text()


def rows(label: str) -> dict[int, list[str]]:
    """{sessions: the row's numbers as printed} of the newest run's ``label`` table."""
    newest = STORED.split("# ---- earlier runs")[0]
    table = newest.split(f"## {label}:")[1].split("##")[0]
    out = {}
    for line in table.splitlines():
        numbers = re.findall(r"\d+(?:\.\d+)?", line)
        if numbers and line.strip()[0].isdigit():
            out[int(numbers[0])] = numbers
    return out


def test_the_stored_run_meets_the_goals():
    after = rows("after")
    # sessions, failed, p50, p90, max, CPU, RSS, α median, α max, built twice
    assert float(after[100][4]) <= 60 and float(after[30][4]) <= 15
    assert all(float(row[8]) < 1.0 for row in after.values())
    assert all(row[1] == "0" and row[9] == "0" for row in after.values())


def test_the_readme_and_changelog_quote_the_stored_run():
    before, after = rows("before")[100], rows("after")[100]
    readme = " ".join((ROOT / "README.md").read_text().split())
    changelog = " ".join((ROOT / "CHANGELOG.md").read_text().split())
    assert (f"α step answered in {after[7]} s (median; {after[8]} s at most), half the "
            f"pages had their first plot within {after[2]} s and the last within "
            f"{after[4]} s") in readme
    assert (f"took {before[7]} s for the α step, {before[2]} s and {before[4]} s for the "
            f"first plots, built {before[9]} sessions twice and peaked at {before[6]} MB"
            ) in readme
    assert (f"{before[2]}/{before[4]} s → {after[2]}/{after[4]} s, an open page's α step "
            f"median/max {before[7]}/{before[8]} s → {after[7]}/{after[8]} s") in changelog
