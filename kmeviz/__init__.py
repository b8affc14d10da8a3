"""kmeviz: see and play with kernel mean embeddings.

The core (this package: numpy and scipy, pandas for the experiment tables) implements the
estimators and never imports plotting; ``kmeviz.viz`` draws them with HoloViews, and the
Panel apps with their server (``kmeviz_apps``) put widgets on top.
"""

from ._validation import NotFittedError
from .compare import compare_gof, compare_tests, export_table
from .conditional import ConditionalMeanEmbedding, incomplete_cholesky, sparse_cme
from .conditional_independence import (
    KernelTriple,
    ci_test,
    compare_ci,
    conditional_effect_size,
)
from .config import config_context, get_config, set_config
from .discovery import Knowledge, PCResult, d_separated, dag_to_cpdag, pc
from .distributions import (
    GaussBernoulliRBM,
    GaussianMixture,
    NormalTarget,
    Pendulum,
    StudentTTarget,
    blobs,
    blobs_two_sample,
    perturbed_uniform_two_sample,
    rings_two_sample,
    two_coordinates_two_sample,
    uniform_boxes_two_sample,
)
from .distributions.real import load_dataset
from .embeddings import (
    EmpiricalKME,
    FastfoodFeatures,
    GreedyDeterminantKME,
    KernelHerding,
    NystromKME,
    RandomFeatureKME,
    RandomFourierFeatures,
    UniformSubsampleKME,
    effective_dimension,
    fit_decay,
    fwht,
    gram_spectrum,
)
from .gof import ksd2, ksd2_nystrom, ksd_test, stein_witness
from .independence import (
    KernelPair,
    benjamini_hochberg,
    compare_independence,
    dependence_effect_size,
    dependence_map,
    dhsic_test,
    hsic,
    hsic_test,
    hsic_witness,
    hsicagg_kernels,
)
from .kernels import (
    CauchyKernel,
    GaussianKernel,
    IMQKernel,
    Kernel,
    LaplaceKernel,
    PrecomputedKernel,
    RadialKernel,
    ShiftInvariantKernel,
    SteinKernel,
    median_heuristic,
)
from .kernels.choices import kernel_by_name, register_kernel
from .kernels.collection import (
    KernelCollection,
    bandwidth_weights,
    ksdagg_kernels,
    mmdagg_kernels,
    mmdagginc_kernels,
    mmdfuse_kernels,
)
from .kernels.defaults import l1_imq_kernel
from .kernels.learned import ARDGaussianKernel, FeatureKernel
from .loading import LoadReport, load_conditional, load_paired, load_samples
from .needs import KernelCapability, Needs
from .registry import (
    CONDITIONAL_TESTS,
    GOF_TESTS,
    INDEPENDENCE_TESTS,
    JOINT_INDEPENDENCE_TESTS,
    MMD_TESTS,
)
from .results import TestResult
from .timeseries import SerialCheck, SerialDependenceWarning, serial_dependence
from .timeseries import tests as _time_series_tests  # noqa: F401 (registers them)
from .twosample import (
    VALID_NULLS,
    CircularDiscrepancy,
    LearnedKernel,
    PowerCriterion,
    circular_discrepancy,
    circular_ensemble,
    learn_kernel,
    mmd2,
    mmd2_block,
    mmd2_fastmmd,
    mmd2_linear,
    mmd2_nystrom,
    mmd_effect_size,
    mmd_test,
    mmd_witness,
    power_criterion,
)

#: The one version source (pyproject.toml, docs/conf.py and CITATION.cff read it).
__version__ = "0.3.0"

__all__ = [
    "Knowledge",
    "PCResult",
    "d_separated",
    "dag_to_cpdag",
    "pc",
    "SerialCheck",
    "SerialDependenceWarning",
    "serial_dependence",
    "NotFittedError",
    "config_context",
    "get_config",
    "set_config",
    "CircularDiscrepancy",
    "ConditionalMeanEmbedding",
    "Pendulum",
    "incomplete_cholesky",
    "sparse_cme",
    "EmpiricalKME",
    "GaussianMixture",
    "GreedyDeterminantKME",
    "KernelHerding",
    "NystromKME",
    "RandomFeatureKME",
    "UniformSubsampleKME",
    "effective_dimension",
    "fit_decay",
    "gram_spectrum",
    "mmd2_nystrom",
    "TestResult",
    "VALID_NULLS",
    "MMD_TESTS",
    "KernelCapability",
    "kernel_by_name",
    "register_kernel",
    "Needs",
    "GOF_TESTS",
    "mmd_test",
    "mmd_witness",
    "compare_tests",
    "export_table",
    "mmd_effect_size",
    "compare_gof",
    "load_samples",
    "load_dataset",
    "LoadReport",
    "PrecomputedKernel",
    "KernelCollection",
    "mmdagg_kernels",
    "mmdagginc_kernels",
    "mmdfuse_kernels",
    "ARDGaussianKernel",
    "FeatureKernel",
    "LearnedKernel",
    "PowerCriterion",
    "learn_kernel",
    "power_criterion",
    "ksdagg_kernels",
    "bandwidth_weights",
    "FastfoodFeatures",
    "CauchyKernel",
    "GaussianKernel",
    "IMQKernel",
    "Kernel",
    "LaplaceKernel",
    "RadialKernel",
    "RandomFourierFeatures",
    "ShiftInvariantKernel",
    "blobs",
    "blobs_two_sample",
    "two_coordinates_two_sample",
    "perturbed_uniform_two_sample",
    "circular_discrepancy",
    "circular_ensemble",
    "fwht",
    "median_heuristic",
    "l1_imq_kernel",
    "mmd2",
    "mmd2_block",
    "mmd2_fastmmd",
    "mmd2_linear",
    "rings_two_sample",
    "uniform_boxes_two_sample",
    "GaussBernoulliRBM",
    "NormalTarget",
    "StudentTTarget",
    "SteinKernel",
    "ksd2",
    "ksd2_nystrom",
    "ksd_test",
    "stein_witness",
    "CONDITIONAL_TESTS",
    "INDEPENDENCE_TESTS",
    "KernelTriple",
    "ci_test",
    "compare_ci",
    "conditional_effect_size",
    "JOINT_INDEPENDENCE_TESTS",
    "KernelPair",
    "compare_independence",
    "dhsic_test",
    "hsic",
    "hsic_test",
    "hsic_witness",
    "dependence_effect_size",
    "dependence_map",
    "benjamini_hochberg",
    "hsicagg_kernels",
    "load_conditional",
    "load_paired",
]

#: Names removed in 0.3 (deprecated in 0.2) -> what to use: ``kmeviz.<old>`` says so.
REMOVED = {"mmd_nystrom": "kmeviz.mmd2_nystrom (it returns MMD², like every mmd2_*)",
           "GaussianMixtureTarget": "kmeviz.GaussianMixture(means, variances, weights)",
           "NystromStein": "kmeviz.gof.nystrom_stein(X, target, kernel, ...)"}


def __getattr__(name: str):
    """A removed name's AttributeError names its replacement (PEP 562; no import hook)."""
    if name in REMOVED:
        raise AttributeError(f"kmeviz.{name} was removed in kmeviz 0.3 (deprecated in "
                             f"0.2); use {REMOVED[name]}")
    raise AttributeError(f"module 'kmeviz' has no attribute {name!r}")
