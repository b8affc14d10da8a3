"""The verdict of a checker and the helpers that compare an answer with the truth."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Feedback:
    """The verdict on an answer: ``right`` and a message (a hint when wrong)."""

    right: bool
    message: str

    def __bool__(self) -> bool:
        return self.right

    def __repr__(self) -> str:
        return f"{'✓ Right' if self.right else '✗ Not yet'}: {self.message}"

    def _repr_markdown_(self) -> str:
        return f"**{'✓ Right' if self.right else '✗ Not yet'}**: {self.message}"


def _number(answer, name: str):
    """The answer as a float, or a Feedback saying what was expected."""
    if answer is None:
        return Feedback(False, f"replace None with your {name}")
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return Feedback(False, f"the {name} is one number, got {type(answer).__name__}")
    return value if np.isfinite(value) else Feedback(False, f"the {name} must be finite")


def _close(answer, truth: float, name: str, hint: str, rtol: float = 1e-6,
           why: str = "") -> Feedback:
    """Right within ``rtol``; ``why``, when given, explains the answer once it is right."""
    value = _number(answer, name)
    if isinstance(value, Feedback):
        return value
    if abs(value - truth) <= rtol * abs(truth):
        return Feedback(True, f"that is the {name}" + (f": {why}" if why else ""))
    return Feedback(False, hint)


def _choice(answer, truth, options, name: str, hint: str, why: str = "") -> Feedback:
    """Right when ``answer == truth``; ``why``, when given, explains it once right."""
    if answer is None:
        return Feedback(False, f"replace None with one of {list(options)}")
    if answer not in options:
        return Feedback(False, f"the {name} is one of {list(options)}, got {answer!r}")
    if answer != truth:
        return Feedback(False, hint)
    return Feedback(True, f"that is the {name}" + (f": {why}" if why else ""))
