"""A report of the house rules that are advice, not errors (issue 57): modules over 400
lines, explorers with fewer than three plots, functions over 80 lines. CI prints it and
never fails on it; a reviewer reads it.

    python -m tests.lint_report            # the report, exit 0
    python -m tests.lint_report --strict   # exit 1 when it lists anything
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the house style's sizes (ARCHITECTURE.md: small modules, small functions, views)
MODULE_LINES, FUNCTION_LINES, PLOTS = 400, 80, 3


def long_modules() -> dict[str, int]:
    """{module path: lines} of the modules of kmeviz and apps at or over ``MODULE_LINES``."""
    paths = [*ROOT.glob("kmeviz/**/*.py"), *ROOT.glob("apps/*.py")]
    return {str(p.relative_to(ROOT)): n for p in sorted(paths)
            if (n := len(p.read_text().splitlines())) >= MODULE_LINES}


def long_functions() -> dict[str, int]:
    """{path:function: lines} of the functions over ``FUNCTION_LINES`` lines."""
    found = {}
    for path in sorted([*ROOT.glob("kmeviz/**/*.py"), *ROOT.glob("apps/*.py")]):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = node.body[1:] if ast.get_docstring(node) else node.body
                lines = (body[-1].end_lineno - body[0].lineno + 1) if body else 0
                if lines > FUNCTION_LINES:
                    found[f"{path.relative_to(ROOT)}:{node.name}"] = lines
    return found


def explorers_with_few_plots() -> dict[str, int]:
    """{slug: plots} of the explorers with fewer than ``PLOTS`` plots."""
    from kmeviz_apps import EXPLORERS, explorer_class

    return {slug: len(explorer_class(slug).PLOTS) for slug in EXPLORERS
            if len(explorer_class(slug).PLOTS) < PLOTS}


def report() -> list[str]:
    """The report's lines, one per finding (empty when there is none)."""
    sections = ((f"modules of {MODULE_LINES} lines or more", long_modules()),
                (f"functions over {FUNCTION_LINES} lines (without docstring)",
                 long_functions()),
                (f"explorers with fewer than {PLOTS} plots", explorers_with_few_plots()))
    lines = []
    for title, found in sections:
        if found:
            lines.append(f"{title}:")
            lines += [f"  {name}: {value}" for name, value in found.items()]
    return lines


def main(argv: list[str]) -> int:
    lines = report()
    print("\n".join(lines) if lines else "lint report: nothing to report")
    return 1 if lines and "--strict" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
