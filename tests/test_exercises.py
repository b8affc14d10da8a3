"""Every exercise checker accepts its stored solution, rejects a plausible wrong answer and
None, and never shows the answer; every notebook ends with 2-4 exercises."""

import re
from pathlib import Path

import pytest

from kmeviz import exercises

from .exercise_solutions import SOLUTIONS

CHECKERS = sorted(name for name in dir(exercises) if name.startswith("check_"))
CHOICES = {*exercises.LANDMARK_COUNTS, *exercises.GAMMAS, 3.0}
NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9][0-9]_*.py"))


def test_every_checker_has_a_solution():
    assert CHECKERS and set(CHECKERS) == set(SOLUTIONS)


@pytest.mark.parametrize("name", CHECKERS)
def test_solution_passes_and_a_plausible_wrong_answer_fails(name):
    check = getattr(exercises, name)
    solution, wrong = SOLUTIONS[name]
    right_answer, wrong_answer = solution(), wrong()
    good, bad = check(right_answer), check(wrong_answer)
    assert good and good.right, good
    assert not bad and "Not yet" in repr(bad), bad
    assert not check(None)
    # a hint never contains a numeric answer (to 3 significant digits); a multiple-choice
    # question lists its options, so there only the verdict tells
    if callable(right_answer):  # an implementation: the hint names a mistake, holds no code
        assert "def " not in bad.message and "np." not in bad.message
    elif not isinstance(right_answer, str) and float(right_answer) not in CHOICES:
        shown = f"{float(right_answer):.3g}"
        assert shown not in bad.message and shown not in check(None).message


def test_a_wrong_type_is_told_not_raised():
    assert "one number" in exercises.check_mmd2("0.1x").message
    assert "one of" in exercises.check_exact_on_dask("sideways").message


@pytest.mark.parametrize("source", NOTEBOOKS, ids=lambda p: p.stem)
def test_each_notebook_has_two_to_four_checked_exercises(source):
    """Each exercise is a cell tagged ``exercise`` that ends with its checker: most in the
    Exercises section, a prediction where the notebook asks it (before the text that
    answers it); after the last one, only markdown (the problem set)."""
    import jupytext

    cells = jupytext.read(source).cells
    assert any(c.cell_type == "markdown" and "## Exercises" in c.source for c in cells)
    exercises_ = [c for c in cells if "exercise" in c.metadata.get("tags", [])]
    used = {re.findall(r"^(check_\w+)\(answer\)", c.source, flags=re.M)[-1]
            for c in exercises_}
    assert 2 <= len(exercises_) == len(used) <= 4 and used <= set(CHECKERS), used
    for cell in cells:  # every checked answer is in an exercise cell
        if re.search(r"^check_\w+\(answer\)", cell.source, flags=re.M):
            assert "exercise" in cell.metadata.get("tags", []), cell.source
    last = max(i for i, c in enumerate(cells) if c in exercises_)
    assert all(c.cell_type == "markdown" for c in cells[last + 1:])


def test_every_checker_is_used_in_a_notebook():
    used = set()
    for source in NOTEBOOKS:
        used |= set(re.findall(r"^(check_\w+)\(answer\)", source.read_text(), flags=re.M))
    assert used == set(CHECKERS)


def test_the_numbers_a_right_answer_explains_with_are_true():
    """The 'why' of the landmark exercise quotes the empirical error (0.017) and the error
    at m = 50 (0.024); of the halving spectrum, the 0.44 of the eigenvalue under λ."""
    import kmeviz as K

    mixture, X, kernel = exercises.nystrom_data()
    assert round(mixture.error_of(K.EmpiricalKME(kernel).fit(X)), 3) == 0.017
    assert round(mixture.error_of(K.NystromKME(kernel, 50, rng=0).fit(X)), 3) == 0.024
    assert round(0.5**7 / (0.5**7 + 0.01), 2) == 0.44
    message = exercises.check_landmarks_for_error(100).message
    assert "0.017" in message and "0.024" in message


def test_the_collider_exercise_quotes_its_marginal_p_value():
    """The 'why' of the collider exercise quotes the marginal test's p-value (0.64)."""
    import kmeviz as K

    X, Y, _ = exercises.collider_data()
    assert round(K.ci_test(X, Y).p_value, 2) == 0.64
    assert "p = 0.64" in exercises.check_collider_decision("reject").message
