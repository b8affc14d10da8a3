"""The API reference covers every public name, and every paper a docstring cites is in
the bibliography."""

import re
from pathlib import Path

import pytest

import kmeviz
import kmeviz.exercises
import kmeviz.experiments

API = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text()
#: not callables (a dict) or deprecated aliases kept for one release
UNDOCUMENTED = {"VALID_NULLS"}
PUBLIC = [n for n in kmeviz.__all__ if n not in UNDOCUMENTED]


@pytest.mark.parametrize("name", PUBLIC)
def test_public_name_is_in_the_api_reference(name):
    assert re.search(rf"^   {re.escape(name)}$", API, flags=re.M), f"{name} not in docs/api.md"


def test_every_work_a_docstring_cites_is_in_the_bibliography():
    """A docstring that cites a paper (author and year) names one that docs/bibliography.md
    lists; one that implements none says nothing about papers (issue 57: no
    boilerplate)."""
    from tests.test_course_words import BIBLIOGRAPHY, citations

    entries = re.findall(r"^- \*\*([^*]+)\((\d{4})\)\.\*\*", BIBLIOGRAPHY, flags=re.M)
    missing = {}
    for name in PUBLIC:
        for author, year in citations(getattr(kmeviz, name).__doc__ or ""):
            if not any(author in authors and year == y for authors, y in entries):
                missing.setdefault(f"{author} {year}", []).append(name)
    assert missing == {}, f"cited in docstrings, not in docs/bibliography.md: {missing}"


def test_runners_and_exercises_are_in_the_api_reference():
    for module in (kmeviz.experiments, kmeviz.exercises):
        names = [n for n in dir(module) if callable(getattr(module, n))
                 and getattr(getattr(module, n), "__module__", "").startswith(module.__name__)
                 and not n.startswith("_")]
        listed = [n for n in names if re.search(rf"^   {n}$", API, flags=re.M)]
        assert len(listed) >= len(names) // 2, (module.__name__, set(names) - set(listed))


def _numpydoc_sections(obj) -> set[str]:
    import inspect

    doc = inspect.getdoc(obj) or ""
    return {m.group(1) for m in re.finditer(r"^(Parameters|Returns|Yields)\n-{5,}$", doc,
                                            flags=re.M)}


def _takes_arguments(obj) -> bool:
    import inspect

    try:
        return any(p != "self" for p in inspect.signature(obj).parameters)
    except (TypeError, ValueError):  # an exception class
        return False


@pytest.mark.parametrize("name", PUBLIC)
def test_public_name_has_numpydoc_parameters_and_returns(name):
    """numpydoc: a callable that takes arguments documents them (Parameters); a function
    documents what it returns (Returns, or Yields for a context manager)."""
    import inspect

    obj = getattr(kmeviz, name)
    if not callable(obj) or (inspect.isclass(obj) and issubclass(obj, Exception)):
        return
    sections = _numpydoc_sections(obj)
    if _takes_arguments(obj):
        assert "Parameters" in sections, f"{name} has no numpydoc Parameters section"
    if not inspect.isclass(obj):
        assert sections & {"Returns", "Yields"}, f"{name} has no numpydoc Returns section"


def test_the_numpydoc_check_can_fail():
    def undocumented(x):
        """Does something."""

    assert _numpydoc_sections(undocumented) == set() and _takes_arguments(undocumented)
