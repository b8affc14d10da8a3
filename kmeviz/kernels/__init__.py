"""Kernels and the kernel protocol (``base``), the papers' kernels (``radial``) and the
Stein kernel (``stein``)."""

from .base import (
    DEFAULT_WORKING_MEMORY,
    Kernel,
    RadialKernel,
    ShiftInvariantKernel,
    check_kernel,
    joint_gram_sums,
)
from .engine import (
    gram_pass,
    prepared_rows,
    row_block_results,
    rows_within,
    symmetric_quadratic_forms,
    tile_side,
)
from .precomputed import PrecomputedKernel
from .radial import CauchyKernel, GaussianKernel, IMQKernel, LaplaceKernel, median_heuristic
from .stein import SteinKernel, SteinPrepared, checked_score

__all__ = [
    "CauchyKernel",
    "DEFAULT_WORKING_MEMORY",
    "GaussianKernel",
    "IMQKernel",
    "Kernel",
    "LaplaceKernel",
    "PrecomputedKernel",
    "RadialKernel",
    "ShiftInvariantKernel",
    "SteinKernel",
    "SteinPrepared",
    "check_kernel",
    "checked_score",
    "gram_pass",
    "joint_gram_sums",
    "median_heuristic",
    "prepared_rows",
    "row_block_results",
    "symmetric_quadratic_forms",
    "rows_within",
    "tile_side",
]

# isort: split
# every module of the package: a kernel module that registers itself in the menus
# (``choices.register_kernel``) needs no import line of its own
from ..registry import import_every_module  # noqa: E402

import_every_module(__name__, __path__)
