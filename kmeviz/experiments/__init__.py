"""The papers' experiments as runners that return tidy ``pandas.DataFrame``s: the shared
repetition loop (``runners``), FastMMD (``fastmmd``), Nyström KME (``nystrom``), Nyström
KSD (``ksd``) and sparse CME (``cme``); FastMMD's Fig. 5 and 7 (``fastmmd_accuracy``)."""


from .cme import (
    sparsity_bands,
    sparsity_path,
)
from .conditional import epsilon_table, residual_ratio
from .fastmmd import (
    FIG6_SIGMAS,
    FIG8B_TESTS,
    fastmmd_type2_vs_L,
    kernel_family_mmd,
    null_sampler,
    size_table,
    type2_vs_epsilon,
)
from .fastmmd_accuracy import (
    fastmmd_efficiency,
    fastmmd_error_vs_L,
)
from .independence import independence_size_table, sinusoid_power_table
from .ksd import (
    COMPETITOR_METHODS,
    FIG1_METHODS,
    PAPER_METHODS,
    PAPER_METHODS_C1,
    PROBLEMS,
    draw_problem,
    ksd_power,
    ksd_runtime_vs_n,
    landmark_methods,
    nominal_level,
    power_and_runtime_vs_n,
)
from .nystrom import (
    nystrom_error_vs_m,
    nystrom_mmd_error_vs_m,
    paper_mixture,
)
from .power import kernel_choice_power_table, kernel_choice_test, power_problem
from .runners import (
    binomial_interval,
    rejection_rates,
)

__all__ = [
    "kernel_choice_power_table",
    "kernel_choice_test",
    "power_problem",
    "COMPETITOR_METHODS",
    "FIG1_METHODS",
    "FIG6_SIGMAS",
    "FIG8B_TESTS",
    "PAPER_METHODS",
    "PAPER_METHODS_C1",
    "PROBLEMS",
    "binomial_interval",
    "draw_problem",
    "fastmmd_efficiency",
    "fastmmd_error_vs_L",
    "fastmmd_type2_vs_L",
    "kernel_family_mmd",
    "ksd_power",
    "ksd_runtime_vs_n",
    "landmark_methods",
    "nominal_level",
    "null_sampler",
    "nystrom_error_vs_m",
    "nystrom_mmd_error_vs_m",
    "paper_mixture",
    "power_and_runtime_vs_n",
    "rejection_rates",
    "size_table",
    "sparsity_bands",
    "epsilon_table",
    "independence_size_table",
    "residual_ratio",
    "sinusoid_power_table",
    "sparsity_path",
    "type2_vs_epsilon",
]
