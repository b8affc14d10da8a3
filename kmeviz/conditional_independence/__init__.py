"""Conditional independence: KCI (Zhang et al. 2011) on the conditional mean embedding's
residuals, its Nyström version, and RCIT/RCoT (Strobl et al. 2019)."""

from .api import ci_test
from .compare import compare_ci
from .effect import ConditionalEffect, conditional_effect_size
from .kci import KernelTriple
from .tests import VALID_CONDITIONAL_NULLS

__all__ = ["ConditionalEffect", "KernelTriple", "VALID_CONDITIONAL_NULLS", "ci_test",
           "compare_ci", "conditional_effect_size"]
