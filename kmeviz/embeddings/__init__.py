"""Kernel mean embeddings: empirical and Nyström (``kme``), the baselines (``baselines``),
random features (``features``) and Gram spectra with the effective dimension
(``spectrum``)."""


from .baselines import (
    GreedyDeterminantKME,
    KernelHerding,
    RandomFeatureKME,
    UniformSubsampleKME,
    greedy_determinant_landmarks,
)
from .features import (
    FastfoodFeatures,
    RandomFourierFeatures,
    fwht,
)
from .kme import (
    EmpiricalKME,
    NystromKME,
    WeightedEmbedding,
    default_landmarks,
    draw_landmarks,
    landmarks_for_empirical_accuracy,
    pinv_psd,
    psd_inverse_factor,
    weighted_gram_sum,
)
from .spectrum import (
    effective_dimension,
    fit_decay,
    gram_spectrum,
)

__all__ = [
    "EmpiricalKME",
    "FastfoodFeatures",
    "GreedyDeterminantKME",
    "KernelHerding",
    "NystromKME",
    "RandomFeatureKME",
    "RandomFourierFeatures",
    "UniformSubsampleKME",
    "WeightedEmbedding",
    "default_landmarks",
    "draw_landmarks",
    "effective_dimension",
    "fit_decay",
    "fwht",
    "gram_spectrum",
    "greedy_determinant_landmarks",
    "landmarks_for_empirical_accuracy",
    "pinv_psd",
    "psd_inverse_factor",
    "weighted_gram_sum",
]
