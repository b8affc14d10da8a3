"""Statements a lecturer found wrong or imprecise in notebooks 04 and 10-12 (issue 60) do
not return: each phrase below was in the course and is false or unsupported as written.
The corrected sentences quote numbers that their notebooks' check cells assert."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: (phrase, why it must not return)
RETIRED = [
    ("On the blob grid of section 1", "notebook 12's section 1 compares 𝒩(0, 1) with t₃"),
    ("uses 6 Fourier features for X and for Y", "the authors' RCoT uses 5 (num_f2 = 5)"),
    ("HSICAgg keeps a little power", "7/40 against 5/40 is no difference"),
    ("which is √(log · N)/m once λ(m) is put in", "the two logarithms differ"),
    ("HSICAggInc's choice", "kmeviz's HSICAgg runs a wild bootstrap on the full Grams"),
    ("a modest gain, but in the direction the asymptotics predict",
     "8 discordant draws, McNemar p ≈ 0.29"),
    ("is 𝒩(0, 1) under H0: the test compares", "cross-MMD is normal asymptotically"),
    ("standard normal under H0, so no permutations", "asymptotically only"),
    ("the residuals shrink to a small share of Y and the power falls",
     "that test is invalid: its rate is not a power"),
    ("Heavy tails (a chain of squares", "X² − 1 is skewed with exponential tails"),
    ("the sum of its squared entries in any basis)", "any orthonormal basis"),
    ("because n·HSIC_b is already close to its limit", "not measured"),
    ("**Ĵ = MMD²/σ_H1**", "the population ratio is J; Ĵ is its estimate"),
    ("a Gaussian of width σ weighs the frequency ℓ by exp(−σ²ℓ²/2), about 0.001",
     "HSIC weighs the product of both kernels' weights"),
]

TEXTS = [*sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py")),
         ROOT / "docs" / "glossary.md", ROOT / "docs" / "course" / "solutions.md",
         ROOT / "kmeviz" / "independence" / "aggregated.py"]


def prose(path: Path) -> str:
    """The file's text with comment markers dropped and line breaks as spaces."""
    lines = [re.sub(r"^#\s?", "", line) for line in path.read_text().splitlines()]
    return re.sub(r"\s+", " ", " ".join(lines))


@pytest.mark.parametrize("phrase, why", RETIRED, ids=[p for p, _ in RETIRED])
def test_a_corrected_statement_does_not_return(phrase, why):
    found = [p.name for p in TEXTS if phrase in prose(p)]
    assert not found, f"{phrase!r} is back in {found}: {why}"
