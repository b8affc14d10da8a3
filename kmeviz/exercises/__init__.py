"""Exercises of the teaching notebooks, with checkers that say right or wrong and give a
hint, never the answer.

Each exercise has a data function (the notebook and the checker use the same draws) and a
``check_…`` function that recomputes the answer from those data, compares with a stated
tolerance and returns a ``Feedback`` (shown as one line in a notebook, truthy when right;
once right, it also says why). The solutions live in ``tests/exercise_solutions.py``, where
the tests run them through the checkers together with plausible wrong answers; the docs'
*Solutions* page explains them. One module per part of the course.
"""

from ._feedback import Feedback
from .conditional_independence import (
    LARGE_EPSILON,
    chain_data,
    check_collider_decision,
    check_large_epsilon_decision,
    check_residual_operator,
    collider_data,
    residual_data,
)
from .embeddings import (
    HALVING_SPECTRUM,
    LANDMARK_COUNTS,
    check_effective_dimension,
    check_halving_effective_dimension,
    check_landmarks_for_error,
    check_weight_sum,
    nystrom_data,
)
from .implement import (
    check_block_mmd2,
    check_cme_weights,
    check_effective_dimension_function,
    check_ksd2_unbiased_from_stein_gram,
    check_linear_mmd2,
    check_median_heuristic_function,
    check_mmd2_from_grams,
    check_nystrom_weights,
    check_permutation_test_function,
    check_stein_kernel_gaussian,
    check_witness_function,
)
from .independence import (
    POWER_TESTS,
    check_hsic_b_from_grams,
    check_rotated_sources_decision,
    check_test_for_frequency_two,
    independence_data,
    rotated_data,
)
from .mmd import (
    SMALL_SAMPLE,
    check_gamma_size_small_n,
    check_mmd2,
    check_narrow_kernel_floor,
    check_permutation_p_value,
    check_size_interval_upper,
    check_witness_at_origin,
    mmd_data,
)
from .own_data import (
    NB09_SIGMAS,
    check_dropped_rows,
    check_min_p_size,
    check_narrow_kernel_decision,
    check_small_sample_tests,
    check_smallest_collection_sigma,
    min_p_rejection_rate,
    penguin_samples,
    penguin_table,
)
from .stein_cme import (
    GAMMAS,
    check_chunk_count,
    check_close_modes_p_value,
    check_conditional_mean,
    check_exact_on_dask,
    check_ksd2,
    check_sparsest_gamma,
    close_modes_data,
    cme_data,
    stein_data,
)

__all__ = [
    "Feedback",
    "LARGE_EPSILON",
    "chain_data",
    "check_collider_decision",
    "check_large_epsilon_decision",
    "check_residual_operator",
    "collider_data",
    "residual_data",
    "POWER_TESTS",
    "check_test_for_frequency_two",
    "check_hsic_b_from_grams",
    "check_rotated_sources_decision",
    "independence_data",
    "rotated_data",
    "check_block_mmd2",
    "check_cme_weights",
    "check_effective_dimension_function",
    "check_ksd2_unbiased_from_stein_gram",
    "check_linear_mmd2",
    "check_median_heuristic_function",
    "check_mmd2_from_grams",
    "check_nystrom_weights",
    "check_permutation_test_function",
    "check_stein_kernel_gaussian",
    "check_witness_function",
    "mmd_data",
    "check_mmd2",
    "check_narrow_kernel_floor",
    "check_witness_at_origin",
    "check_permutation_p_value",
    "check_size_interval_upper",
    "SMALL_SAMPLE",
    "check_gamma_size_small_n",
    "nystrom_data",
    "LANDMARK_COUNTS",
    "check_weight_sum",
    "check_landmarks_for_error",
    "check_effective_dimension",
    "HALVING_SPECTRUM",
    "check_halving_effective_dimension",
    "stein_data",
    "check_ksd2",
    "close_modes_data",
    "check_close_modes_p_value",
    "cme_data",
    "GAMMAS",
    "check_conditional_mean",
    "check_sparsest_gamma",
    "check_chunk_count",
    "check_exact_on_dask",
    "penguin_table",
    "penguin_samples",
    "check_dropped_rows",
    "check_narrow_kernel_decision",
    "check_small_sample_tests",
    "NB09_SIGMAS",
    "min_p_rejection_rate",
    "check_min_p_size",
    "check_smallest_collection_sigma",
]
