"""A researcher's own data as two samples: ``load_samples`` reads one file with a group
column, or two files with the same numeric columns, and says what it did.

Formats: CSV (``.csv``), TSV (``.tsv``, ``.tab``), numpy ``.npy`` (one 2-D array) and
``.npz`` (each array one group), and Parquet (``.parquet``) when pandas can read it, which
needs pyarrow or fastparquet: kmeviz does not install either (they are large), and says so
when one is missing. Uploads in the dashboard go through the same reader
(``read_table(data, name=...)`` on the uploaded bytes).

Choices, made once here:

- non-numeric columns are dropped and listed in the report (the group column aside); a
  column named in ``columns`` that is not numeric is refused;
- rows with a NaN or an infinite value in the chosen columns are dropped and counted;
- ``standardize`` centres and scales every column by the pooled mean and standard
  deviation, so both samples keep their relative position.
"""

from .files import FORMATS, MAX_BYTES, NPZ_GROUP, read_table
from .paired import (
    ConditionalSamples,
    conditional_from_frame,
    load_conditional,
    load_paired,
    paired_from_frame,
)
from .samples import (
    PAIR_GROUP,
    LoadReport,
    Samples,
    load_sample,
    load_samples,
    numeric_values,
    pair_frame,
    samples_from_frame,
    standardized,
)
from .timeorder import in_time_order

__all__ = ["FORMATS", "MAX_BYTES", "NPZ_GROUP", "PAIR_GROUP", "ConditionalSamples",
           "LoadReport", "Samples", "conditional_from_frame", "in_time_order",
           "load_conditional", "load_paired", "load_sample", "load_samples",
           "numeric_values", "pair_frame", "paired_from_frame", "read_table",
           "samples_from_frame", "standardized"]
