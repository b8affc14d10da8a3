"""Conditional independence: KCI (Zhang et al. 2011) on the conditional mean embedding's
residuals, its Nyström version, and RCIT/RCoT (Strobl et al. 2019)."""

from .api import ci_test
from .compare import compare_ci
from .kci import KernelTriple
from .tests import VALID_CONDITIONAL_NULLS

__all__ = ["KernelTriple", "VALID_CONDITIONAL_NULLS", "ci_test", "compare_ci"]
