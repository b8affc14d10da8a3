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
             12: "twelve", 13: "thirteen", 14: "fourteen", 15: "fifteen", 16: "sixteen"}
    readme = (ROOT / "README.md").read_text()
    assert f"Open the {words[len(SOURCES)]} teaching notebooks" in readme
    assert f"`01_*.py` … `{SOURCES[-1].name[:2]}_*.py`" in readme


#: One notation (docs/glossary.md, "Notation"): the uses a reader could mix up, each with
#: the symbol the course writes instead
MIXED_NOTATION = {
    r"λ[_ᵢ₀-₉]|\\lambda_|[pqw]_λ|[pqw]_\\lambda": "λ is only the regulariser: eigenvalues "
                                                  "are νᵢ, an aggregated test's kernels j",
    r"σ[ᵢ₀-₉]|σ_[ilk0-9]|\\sigma_[ilk]": "σ is only a bandwidth: eigenvalues are νᵢ",
    r"(?<![\w\\])N\([^()]*,": "N(λ) is the effective dimension: a normal law is 𝒩(μ, Σ)",
    r"1/m²|1/m \+ 1/n|\bm \+ n\b|\bm = n = |\\frac1m\b.*\\frac1n|\\frac2\{mn\}|\bN = m \+ n":
        "m counts landmarks: two samples have n_X and n_Y points",
}
COURSE_TEXTS = [*SOURCES, ROOT / "docs" / "course" / "solutions.md",
                ROOT / "docs" / "course" / "instructor.md", ROOT / "docs" / "glossary.md",
                *sorted((ROOT / "kmeviz" / "exercises").glob("*.py"))]


def prose(path: Path) -> str:
    """What a reader of ``path`` reads: a notebook's markdown and comments, an exercise
    module's strings, a page without its notation table (which names the symbols)."""
    text = path.read_text()
    if path.parent.name == "notebooks":
        return "\n".join(markdown_lines(path))
    if path.suffix == ".py":
        return "\n".join(re.findall(r'"([^"\n]*)"', text))
    return "\n".join(line for line in text.splitlines() if not line.startswith("|"))


@pytest.mark.parametrize("path", COURSE_TEXTS, ids=lambda p: p.stem)
def test_each_symbol_has_one_meaning(path):
    found = [f"{match.group(0)!r} ({why})" for pattern, why in MIXED_NOTATION.items()
             for match in re.finditer(pattern, prose(path))]
    assert found == [], f"{path.name}: {found}"


def test_the_notation_table_names_each_symbol_once():
    table = [line.split("|")[1].strip() for line in GLOSSARY.splitlines()
             if line.startswith("| ") and not line.startswith("| symbol")]
    for symbol in ("n", "m", "k", "σ", "λ", "N(λ)", "νᵢ", "L"):
        assert table.count(symbol) == 1, symbol


@pytest.mark.parametrize("old", ["where λ_l are the eigenvalues", "p-value p_λ", "Σ σᵢ/(σᵢ + λ)",
                                 r"\hat\sigma_i", "ω ~ N(0, σ⁻² I)", "1/m + 1/n whatever",
                                 "with N = m + n", r"\frac2{mn}"])
def test_the_notation_check_flags_what_the_course_wrote_before(old):
    assert any(re.search(pattern, old) for pattern in MIXED_NOTATION), old
