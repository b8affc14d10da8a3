"""HoloViews builders: kmeviz result objects in, labelled hv elements out, by concept.

Imported by apps and notebooks only (the core never imports plotting). What to notice in
a plot is its caption, kept with the explorer that shows it (``kmeviz_apps._common.Plot``).
"""

from .conditional import (
    cme_data_plot,
    cme_embedding_map,
    coefficient_map,
    cv_curve,
    sparsity_path_plot,
)
from .conditional_independence import cme_fit_plot, residual_plot
from .data import TABLE_TITLES, comparison_table_text, plane_scatter, witness_map, witness_window
from .discovery import causal_graph_plot
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
from .independence import (
    dependence_heatmap,
    dependence_witness_plot,
    independence_power_plot,
    joint_sample_plot,
)
from .power import choice_power_plot, criterion_curve_plot, criterion_map_plot
from .series import (
    autocorrelation_plot,
    autocorrelations,
    series_plot,
    side_by_side_nulls,
)
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

__all__ = [
    "cme_fit_plot",
    "residual_plot",
    "choice_power_plot", "criterion_curve_plot", "criterion_map_plot",
    "COLOR_ACCENT", "COLOR_X", "COLOR_Y", "ESTIMATOR_COLORS", "LABEL_X", "LABEL_Y",
    "NOTEBOOK_WIDTH", "SIZINGS",
    "TABLE_TITLES", "circle_plot", "cme_data_plot", "comparison_table_text", "plane_scatter",
    "causal_graph_plot",
    "dependence_heatmap", "dependence_witness_plot", "independence_power_plot",
    "joint_sample_plot",
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
    "autocorrelation_plot", "autocorrelations", "series_plot", "side_by_side_nulls",
]
