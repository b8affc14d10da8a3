"""Two-sample testing: MMD² estimators (``mmd``), the circular discrepancy of FastMMD
(``circular``), the test with its nulls (``mmd_tests``) and the witness function
(``witness``)."""


from .circular import (
    CircularDiscrepancy,
    circular_discrepancy,
    circular_ensemble,
)
from .effect import EffectSize, mmd_effect_size
from .mmd import (
    mmd2,
    mmd2_block,
    mmd2_fastmmd,
    mmd2_linear,
    mmd2_nystrom,
)
from .mmd_tests import VALID_NULLS, mmd_test
from .nulls import gamma_null_params, simulate_spectral_null, spectral_eigenvalues, spectral_null
from .power import LearnedKernel, PowerCriterion, learn_kernel, power_criterion
from .spectra import SpectralNull
from .witness import mmd_witness

# isort: split
# the package registers its tests: the single-kernel ones (``mmd_tests``), then every
# other module's, in name order (MMDAgg, MMDAggInc, split, MMD-FUSE, cross-MMD, ...)
from ..registry import MMD_TESTS, import_every_module

import_every_module(__name__, __path__)

MMD_TESTS.document(mmd_test)  # the docstring's table: every test, once all are in

__all__ = [
    "CircularDiscrepancy",
    "EffectSize",
    "LearnedKernel",
    "PowerCriterion",
    "VALID_NULLS",
    "circular_discrepancy",
    "circular_ensemble",
    "gamma_null_params",
    "learn_kernel",
    "power_criterion",
    "mmd2",
    "mmd_effect_size",
    "mmd2_block",
    "mmd2_fastmmd",
    "mmd2_linear",
    "mmd2_nystrom",
    "mmd_test",
    "mmd_witness",
    "simulate_spectral_null",
    "spectral_eigenvalues",
    "spectral_null",
    "SpectralNull",
]
