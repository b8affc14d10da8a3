"""Stacking a table read piece by piece without holding it twice.

``pandas.concat`` of the pieces holds every piece and the result at once: a 20 MB CSV of
9 999 one-digit columns (an 80 MB frame) took the reader to 210 MB above its start where
one ``read_csv`` call took 114 MB. ``PieceStack`` copies each piece's columns of the
table's main numeric dtype into one array sized by the rows the line count allows, and
frees the piece; the other columns (a group column, text) are few and concatenated by
pandas. A piece whose dtypes differ from the first one's (a NaN turning an integer column
to float) sends the stack back to ``pandas.concat``, which gives the same frame.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

#: More columns outside the main numeric dtype than this: the pieces are concatenated by
#: pandas (inserting each into the frame would cost more than the copy it saves).
MAX_OTHER_COLUMNS = 64


class PieceStack:
    """Collects the pieces of one table (``add``) and returns it (``frame``), equal to
    ``pandas.concat(pieces, ignore_index=True)``.

    Parameters
    ----------
    rows_at_most : int
        An upper bound of the table's rows (its line count), the stacked array's size.
    """

    def __init__(self, rows_at_most: int):
        self.rows_at_most = int(rows_at_most)
        self.read = 0
        self.block = None  # rows_at_most x k array of the main dtype's columns
        self.positions = None  # their positions among the columns
        self.others = []  # per piece, the other columns
        self.dtypes = None
        self.pieces = []  # pandas.concat's pieces once the stack gave up

    def add(self, piece: pd.DataFrame) -> None:
        """Adds the next piece of rows."""
        if self.pieces or (self.dtypes is None and not self._plan(piece)):
            self.pieces.append(piece)
            return
        if (not piece.dtypes.equals(self.dtypes)
                or self.read + len(piece) > self.rows_at_most):
            self.pieces = [self.frame(), piece]
            return
        numeric = piece.iloc[:, self.positions]
        self.block[self.read:self.read + len(piece)] = numeric.to_numpy()
        self.others.append(piece.drop(columns=numeric.columns))
        self.read += len(piece)

    def frame(self) -> pd.DataFrame:
        """The table of every piece added."""
        if self.pieces:
            return pd.concat(self.pieces, ignore_index=True)
        columns = self.dtypes.index
        frame = pd.DataFrame(self.block[:self.read], columns=columns[self.positions],
                             copy=False)
        if self.others:
            rest = pd.concat(self.others, ignore_index=True)
            for name in columns:  # in the file's order
                if name in rest.columns:
                    frame.insert(columns.get_loc(name), name, rest[name])
        return frame

    def _plan(self, piece: pd.DataFrame) -> bool:
        """Chooses the main numeric dtype from the first piece; False if none pays."""
        counts = Counter(dtype for dtype in piece.dtypes
                         if isinstance(dtype, np.dtype) and dtype.kind in "iuf")
        if not counts or not piece.columns.is_unique:
            return False
        main = counts.most_common(1)[0][0]
        self.positions = np.flatnonzero([dtype == main for dtype in piece.dtypes])
        if len(piece.columns) - len(self.positions) > MAX_OTHER_COLUMNS:
            return False
        self.dtypes = piece.dtypes
        self.block = np.empty((self.rows_at_most, len(self.positions)), dtype=main)
        return True
