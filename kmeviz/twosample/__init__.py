"""Two-sample testing: MMD² estimators (``mmd``), the circular discrepancy of FastMMD
(``circular``) and the test with its nulls (``test``)."""


from .circular import (
    CircularDiscrepancy,
    circular_discrepancy,
    circular_ensemble,
)
from .mmd import (
    mmd2,
    mmd2_block,
    mmd2_fastmmd,
    mmd2_linear,
    mmd2_nystrom,
    mmd_nystrom,
)
from .test import (
    VALID_NULLS,
    mmd_test,
)

__all__ = [
    "CircularDiscrepancy",
    "VALID_NULLS",
    "circular_discrepancy",
    "circular_ensemble",
    "mmd2",
    "mmd2_block",
    "mmd2_fastmmd",
    "mmd2_linear",
    "mmd2_nystrom",
    "mmd_nystrom",
    "mmd_test",
]
