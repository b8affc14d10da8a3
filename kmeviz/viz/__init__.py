"""HoloViews builders: kmeviz result objects in, labelled hv elements out, by concept.

Imported by apps and notebooks only (the core never imports plotting). Each builder has a
one-line caption in ``CAPTIONS`` saying what to notice.
"""

from . import conditional, data, embeddings, gof, twosample
from .conditional import (
    cme_data_plot,
    cme_embedding_map,
    coefficient_map,
    cv_curve,
    sparsity_path_plot,
)
from .data import TABLE_TITLES, comparison_table_text, plane_scatter, witness_map, witness_window
from .embeddings import (
    ESTIMATOR_COLORS,
    effective_dimension_plot,
    embedding_map,
    error_vs_m_plot,
    rules_bars,
    runtime_vs_m_plot,
    spectrum_plot,
)
from .gof import stein_target_plot, stein_witness_plot
from .theme import (
    COLOR_ACCENT,
    COLOR_X,
    COLOR_Y,
    LABEL_X,
    LABEL_Y,
    NOTEBOOK_WIDTH,
    SIZINGS,
    get_sizing,
    set_sizing,
    sizing,
)
from .twosample import (
    circle_plot,
    ensemble_plot,
    kernel_choice_plot,
    kernel_power_plot,
    null_histogram,
    null_layers,
    objective_plot,
    rejection_plot,
    runtime_bars,
    samples_plot,
    threshold_line,
)

CAPTIONS = {**twosample.CAPTIONS, **embeddings.CAPTIONS, **conditional.CAPTIONS,
            **gof.CAPTIONS, **data.CAPTIONS}
#: Short titles of the plots, for the tabs of a served explorer (one plot per tab).
TAB_TITLES = {
    "samples": "Samples and projection", "circle": "Circle", "objective": "Objective over y",
    "ensemble": "Ensemble over L",
    "null": "Null distribution", "runtime": "Runtime", "rejection": "Rejection rate",
    "kernel_choice": "MMDAgg's σ", "kernel_power": "Power per σ",
    "nystrom_error": "Error vs m", "nystrom_map": "Nyström embedding",
    "nystrom_runtime": "Fit time",
    "spectrum": "Gram spectrum", "effective_dimension": "Effective dimension",
    "rules": "Landmark rules",
    "cme_data": "Data", "cme_map": "Embedding map", "cme_cv": "Cross-validation",
    "cme_sparse": "Sparse CME",
    "stein_target": "Target and sample", "stein_witness": "Stein witness",
    "stein_null_full": "Full bootstrap", "stein_null_nystrom": "Nyström bootstrap",
    "data_samples": "Samples", "data_witness": "Witness", "data_null": "Null distribution",
}

__all__ = [
    "CAPTIONS", "COLOR_ACCENT", "COLOR_X", "COLOR_Y", "ESTIMATOR_COLORS", "LABEL_X", "LABEL_Y",
    "NOTEBOOK_WIDTH", "SIZINGS", "TAB_TITLES",
    "TABLE_TITLES", "circle_plot", "cme_data_plot", "comparison_table_text", "plane_scatter",
    "witness_map",
    "witness_window",
    "cme_embedding_map", "coefficient_map", "cv_curve",
    "effective_dimension_plot", "embedding_map", "ensemble_plot", "error_vs_m_plot", "get_sizing",
    "kernel_choice_plot", "kernel_power_plot", "null_histogram", "null_layers",
    "objective_plot", "rejection_plot", "rules_bars",
    "runtime_bars",
    "runtime_vs_m_plot", "samples_plot", "set_sizing", "sizing", "sparsity_path_plot",
    "spectrum_plot",
    "stein_target_plot", "stein_witness_plot", "threshold_line",
]
