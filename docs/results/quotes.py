"""The benchmark numbers that the README and the CHANGELOG quote, generated from the
stored runs (issue 57: numbers generated, not asserted as sentences).

Each quote sits between ``<!-- quote:NAME -->`` and ``<!-- /quote -->`` in its file and
is rewritten from ``docs/results/`` by::

    python docs/results/quotes.py            # rewrite every quote from the stored runs
    python docs/results/quotes.py --check    # exit 1 if a quote differs from its run

Store a new run (``python -m benchmarks.bench_class > ...``), run this script, commit.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"
BLOCK = re.compile(r"(<!-- quote:(?P<name>[\w-]+) -->)(?P<text>.*?)(<!-- /quote -->)", re.S)


def class_rows(stored: str, label: str) -> dict[int, list[str]]:
    """{sessions: the row's numbers as printed} of the newest run's ``label`` table of
    ``benchmarks_class.txt`` (sessions, failed, p50, p90, max, CPU, RSS, α median, α max,
    built twice)."""
    newest = stored.split("# ---- earlier runs")[0]
    table = newest.split(f"## {label}:")[1].split("##")[0]
    out = {}
    for line in table.splitlines():
        numbers = re.findall(r"\d+(?:\.\d+)?", line)
        if numbers and line.strip()[0].isdigit():
            out[int(numbers[0])] = numbers
    return out


def class_readme(stored: str) -> str:
    """The README's sentence on 100 students opening a page at once."""
    before, after = class_rows(stored, "before")[100], class_rows(stored, "after")[100]
    return (f"an open page's α step answered in {after[7]} s (median; {after[8]} s at most), "
            f"half the pages had their first plot within {after[2]} s and the last within "
            f"{after[4]} s, {after[9]} sessions were built twice, and the server's memory "
            f"peaked at {after[6]} MB; the code before (pages built on the loop, no seats) "
            f"took {before[7]} s for the α step, {before[2]} s and {before[4]} s for the "
            f"first plots, built {before[9]} sessions twice and peaked at {before[6]} MB")


def class_changelog(stored: str) -> str:
    """The CHANGELOG's before → after of the same run."""
    before, after = class_rows(stored, "before")[100], class_rows(stored, "after")[100]
    return (f"first plot p50/max {before[2]}/{before[4]} s → {after[2]}/{after[4]} s, an "
            f"open page's α step median/max {before[7]}/{before[8]} s → "
            f"{after[7]}/{after[8]} s, sessions built twice {before[9]} → {after[9]}, peak "
            f"memory {before[6]} → {after[6]} MB")


#: quote name -> (the stored run it reads, the function writing it from that run's text)
QUOTES = {"class-readme": ("benchmarks_class.txt", class_readme),
          "class-changelog": ("benchmarks_class.txt", class_changelog)}
#: the files that hold quotes
FILES = (ROOT / "README.md", ROOT / "CHANGELOG.md")


def rendered(text: str, results: Path = RESULTS) -> str:
    """``text`` with every quote block rewritten from the runs stored in ``results``; a
    ValueError for a block whose name is not in ``QUOTES``."""
    def fill(match):
        name = match["name"]
        if name not in QUOTES:
            raise ValueError(f"unknown quote {name!r}; the quotes are {', '.join(QUOTES)}")
        stored, write = QUOTES[name]
        return f"{match[1]}{write((results / stored).read_text())}{match[4]}"

    return BLOCK.sub(fill, text)


def stale(files=FILES, results: Path = RESULTS) -> list[str]:
    """The files whose quotes differ from their stored runs."""
    return [path.name for path in files if rendered(path.read_text(), results)
            != path.read_text()]


def main(argv: list[str]) -> int:
    if "--check" in argv:
        found = stale()
        print("quotes up to date" if not found else f"stale quotes in {', '.join(found)}; "
              "run python docs/results/quotes.py")
        return 1 if found else 0
    for path in FILES:
        path.write_text(rendered(path.read_text()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
