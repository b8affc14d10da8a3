"""The course's words (issue 43): every term a notebook puts in bold is in the glossary,
every author–year it cites is in the bibliography, and the README counts the notebooks
that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
GLOSSARY = (ROOT / "docs" / "glossary.md").read_text()
BIBLIOGRAPHY = (ROOT / "docs" / "bibliography.md").read_text()
#: bold that labels a step or a paragraph rather than naming a term
LABELS = {"Predict first", "What you need", "What you will learn", "Decision"}
#: the explorers' and pages' own names
APPS = {"Your data", "Nyström error vs m", "Effective dimension spectrum"}
VENUES = {"JMLR", "NeurIPS", "ICML", "ICLR", "AISTATS", "PMLR", "UAI"}


def markdown_lines(source: Path) -> list[str]:
    """The text of a jupytext source's markdown and comment lines."""
    return [line[2:] for line in source.read_text().splitlines() if line.startswith("# ")]


def bold_terms(source: Path) -> set[str]:
    terms = set()
    for line in markdown_lines(source):
        for term in re.findall(r"\*\*([^*]+)\*\*", line):
            term = term.strip()
            if (term in LABELS or term in APPS or term[0].isdigit()
                    or term.endswith((".", ":", "?", "explorer"))):
                continue
            terms.add(term)
    return terms


def glossary_names() -> list[str]:
    """Every name a glossary entry defines: its bold heading, split at commas, colons,
    brackets and "and"."""
    names = []
    for heading in re.findall(r"^\*\*([^*]+)\*\*", GLOSSARY, flags=re.M):
        for part in re.split(r"[,:;()]| and ", heading.lower().rstrip(".")):
            if part.strip():
                names.append(part.strip())
    return names


def in_glossary(term: str, names: list[str]) -> bool:
    term = term.lower()
    singular = term[:-1] if term.endswith("s") else term
    return any(singular in name or name in term for name in names)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_every_bold_term_is_in_the_glossary(source):
    names = glossary_names()
    missing = sorted(t for t in bold_terms(source) if not in_glossary(t, names))
    assert missing == [], f"bold in {source.name} but not in docs/glossary.md: {missing}"


def test_the_glossary_defines_what_the_review_found_missing():
    names = glossary_names()
    for term in ("circular discrepancy", "FastMMD", "B-test", "permutation null",
                 "conservative", "KSD", "MMDAgg", "KSDAgg"):
        assert in_glossary(term, names), term


CITATION = re.compile(r"\b([A-Z][\w\-]+)(?: et al\.?| & [A-Z][\w\-]+| and [A-Z][\w\-]+)?,? "
                      r"\(?((?:19|20)\d\d)\b")


def citations(text: str) -> set[tuple[str, str]]:
    return {(name, year) for name, year in CITATION.findall(text) if name not in VENUES}


@pytest.mark.parametrize("source", [*SOURCES, ROOT / "docs" / "course" / "solutions.md",
                                    ROOT / "docs" / "glossary.md"], ids=lambda p: p.stem)
def test_every_cited_author_year_is_in_the_bibliography(source):
    entries = re.findall(r"^- \*\*([^*]+)\((\d{4})\)\.\*\*", BIBLIOGRAPHY, flags=re.M)
    missing = sorted((name, year) for name, year in citations(source.read_text())
                     if not any(name in authors and year == y for authors, y in entries))
    assert missing == [], f"cited in {source.name}, not in docs/bibliography.md: {missing}"


def test_the_readme_counts_the_notebooks_that_exist():
    words = {6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten", 11: "eleven",
             12: "twelve"}
    readme = (ROOT / "README.md").read_text()
    assert f"Open the {words[len(SOURCES)]} teaching notebooks" in readme
    assert f"`01_*.py` … `{SOURCES[-1].name[:2]}_*.py`" in readme
