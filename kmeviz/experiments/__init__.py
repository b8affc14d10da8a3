"""The papers' experiments as runners that return tidy ``pandas.DataFrame``s: the shared
repetition loop (``runners``), FastMMD (``fastmmd``), Nyström KME (``nystrom``), Nyström
KSD (``ksd``) and sparse CME (``cme``)."""


from .cme import (
    sparsity_path,
)
from .fastmmd import (
    FIG6_SIGMAS,
    FIG8B_TESTS,
    fastmmd_type2_vs_L,
    kernel_family_mmd,
    null_sampler,
    size_table,
    type2_vs_epsilon,
)
from .ksd import (
    COMPETITOR_METHODS,
    FIG1_METHODS,
    PAPER_METHODS,
    PROBLEMS,
    draw_problem,
    ksd_power,
    ksd_runtime_vs_n,
    landmark_methods,
)
from .nystrom import (
    nystrom_error_vs_m,
    nystrom_mmd_error_vs_m,
    paper_mixture,
)
from .runners import (
    binomial_interval,
    rejection_rates,
)

__all__ = [
    "COMPETITOR_METHODS",
    "FIG1_METHODS",
    "FIG6_SIGMAS",
    "FIG8B_TESTS",
    "PAPER_METHODS",
    "PROBLEMS",
    "binomial_interval",
    "draw_problem",
    "fastmmd_type2_vs_L",
    "kernel_family_mmd",
    "ksd_power",
    "ksd_runtime_vs_n",
    "landmark_methods",
    "null_sampler",
    "nystrom_error_vs_m",
    "nystrom_mmd_error_vs_m",
    "paper_mixture",
    "rejection_rates",
    "size_table",
    "sparsity_path",
    "type2_vs_epsilon",
]
