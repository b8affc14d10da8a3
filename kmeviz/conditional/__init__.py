"""Conditional mean embeddings as regressors (Grünewälder et al. 2012): the CME and its
cross-validation (``cme``) and sparse CMEs (``sparse``)."""


from .cme import (
    ConditionalMeanEmbedding,
    cross_validate,
)
from .sparse import (
    SparseCMEResult,
    incomplete_cholesky,
    kl_norm2,
    low_rank_cme_coefficients,
    sparse_cme,
)

__all__ = [
    "ConditionalMeanEmbedding",
    "SparseCMEResult",
    "cross_validate",
    "incomplete_cholesky",
    "kl_norm2",
    "low_rank_cme_coefficients",
    "sparse_cme",
]
