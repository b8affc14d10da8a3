"""Whether a student's function ran kmeviz's own implementation of what it was asked to
write: the implementation checkers refuse an answer that calls it (directly, through an
alias or through a private helper), since matching kmeviz's output is then no evidence."""

from __future__ import annotations

import sys

ALWAYS_REFUSED = ("exercises",)  # the checkers' own truths, e.g. power._criterion


def _argument_codes(args) -> set:
    """The code objects of the callables handed to the student's function (a statistic,
    a paired kernel): calling those is what the exercise asks."""
    codes = set()
    for arg in args:
        function = getattr(arg, "__func__", arg)
        code = getattr(function, "__code__", None)
        if code is not None:
            codes.add(code)
            codes.update(const for const in code.co_consts if hasattr(const, "co_code"))
    return codes


def run_refusing_own_code(function, args, refused: tuple[str, ...]):
    """``(function(*args), the exception it raised or None, kmeviz names it ran)``: the
    names are those of the functions entered while it ran
    that are, or lie in, one of ``refused`` (names under ``kmeviz``: a subpackage, a
    module or a function such as ``"twosample.mmd.mmd2_block"``) or ``kmeviz.exercises``,
    apart from the callables passed to it in ``args``."""
    prefixes = tuple(f"kmeviz.{name}" for name in (*refused, *ALWAYS_REFUSED))
    allowed = _argument_codes(args)
    entered: list[str] = []

    def profile(frame, event, _arg):
        if event == "call" and frame.f_code not in allowed:
            name = f"{frame.f_globals.get('__name__', '')}.{frame.f_code.co_name}"
            if any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes):
                entered.append(name)

    out = error = None
    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        out = function(*args)
    except Exception as exc:  # noqa: BLE001 - the checker tells it in one line
        error = exc
    finally:
        sys.setprofile(previous)
    return out, error, entered
