"""The implementation checkers refuse an answer that runs kmeviz's own implementation of
what it asks for, even when its output is right: the stored solution, wrapped so that
it also calls kmeviz's version, is refused; passed bare, a checker's private truth
(``kmeviz.exercises.power._criterion``) is refused."""

import numpy as np
import pytest

import kmeviz as K
from kmeviz import exercises
from kmeviz.conditional_independence.api import ci_test
from kmeviz.exercises.power import _criterion, _cross
from kmeviz.timeseries.nulls import multiplier_filter

from .exercise_solutions import SOLUTIONS

RNG = np.random.default_rng(0)
X, Y, Z = RNG.standard_normal((3, 30, 1))
G = K.GaussianKernel(1.0)
TARGET = exercises.stein_data()[0]

# each implementation checker, and a call of kmeviz's own implementation of its exercise
OWN_IMPLEMENTATION = {
    "check_mmd2_from_grams": lambda: K.mmd2(X, Y, G),
    "check_permutation_test_function": lambda: K.mmd_test(X, Y, G, n_resamples=19, rng=0),
    "check_nystrom_weights": lambda: K.NystromKME(G, landmarks=np.arange(5)).fit(X),
    "check_effective_dimension_function": lambda: K.effective_dimension(np.ones(3), 0.1),
    "check_stein_kernel_gaussian": lambda: K.SteinKernel(G, TARGET).gram(X, X),
    "check_ksd2_unbiased_from_stein_gram": lambda: K.ksd2(X, TARGET, G),
    "check_cme_weights": lambda: K.ConditionalMeanEmbedding(G, G, reg=0.1).fit(X, Y)
    .weights(X),
    "check_linear_mmd2": lambda: K.mmd2_linear(X, Y, G),
    "check_block_mmd2": lambda: K.mmd2_block(X, Y, G, block_size=10),
    "check_witness_function": lambda: K.mmd_witness(X, Y, G, X),
    "check_median_heuristic_function": lambda: K.median_heuristic(X, Y),
    "check_hsic_b_from_grams": lambda: K.hsic(X, Y),
    "check_residual_operator": lambda: ci_test(X, Y, Z),
    "check_colliders": lambda: K.pc(np.hstack([X, Y, Z])),
    "check_multiplier_process": lambda: multiplier_filter(RNG.standard_normal((10, 2)), 2.0),
    "check_power_criterion": lambda: _criterion(G(X), G(Y), G(X, Y)),
    "check_cross_mmd": lambda: _cross(G(X), G(X, Y), G(Y, X), G(Y)),
}


def test_every_implementation_checker_is_covered():
    implementations = {name for name, (solution, _) in SOLUTIONS.items()
                       if callable(solution())}
    assert implementations == set(OWN_IMPLEMENTATION)


@pytest.mark.parametrize("name", sorted(OWN_IMPLEMENTATION))
def test_a_right_answer_that_calls_kmevizs_own_is_refused(name):
    check = getattr(exercises, name)
    solution = SOLUTIONS[name][0]()
    assert check(solution)  # the honest answer passes

    def leaning_on_kmeviz(*args):
        OWN_IMPLEMENTATION[name]()
        return solution(*args)

    feedback = check(leaning_on_kmeviz)
    assert not feedback and "kmeviz's own" in feedback.message, feedback


@pytest.mark.parametrize("private", [_criterion, _cross])
def test_a_checkers_own_truth_passed_as_the_answer_is_refused(private):
    check = (exercises.check_power_criterion if private is _criterion
             else exercises.check_cross_mmd)
    feedback = check(private)
    assert not feedback and "kmeviz.exercises.power" in feedback.message, feedback


def test_the_profiler_in_place_before_a_check_is_restored():
    import sys

    def mine(frame, event, arg):
        return None

    sys.setprofile(mine)
    try:
        exercises.check_hsic_b_from_grams(SOLUTIONS["check_hsic_b_from_grams"][0]())
        assert sys.getprofile() is mine
    finally:
        sys.setprofile(None)
