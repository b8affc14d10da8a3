"""Wild-bootstrap signs (Kalinke et al. Eq. 10) and the full and Nyström KSD bootstraps
that consume them (Eq. 9 and Eq. 11), in bounded memory: signs drawn block by block and
kept as int8, replicates taken in column blocks.

Implements Kalinke et al. Eq. 9–11 (the bootstraps of ``ksd_tests``).
"""

from __future__ import annotations

import numpy as np

from .._validation import check_choice, check_in_interval, check_rng
from ..kernels import SteinKernel, symmetric_quadratic_forms

WILD = ("markov", "rademacher")


#: the 8 signs 1 - 2·bit of each byte value, most significant bit first (``np.unpackbits``)
SIGNS_OF_BYTE = 1.0 - 2.0 * np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1)


class WildSigns:
    """Bootstrap signs w ∈ {±1}^(n × D), handed out block by block (O(block · D) memory).

    Eq. (10): w_1 uniform, then w_i = -w_{i-1} with ``flip_probability``, else w_{i-1}; or
    i.i.d. Rademacher signs. With flip probability ½ (the default, and ``ksd_test``'s) the
    chain *is* i.i.d. uniform (each step flips a fair coin independent of the past), so
    both schemes draw the signs of row block k = i // ``BLOCK_ROWS`` from a generator of its
    own seed (``SeedSequence(entropy, spawn_key=(k,))``): ``rows(start, stop)`` gives the
    same signs in any order and any process, which lets the chunks of a dask array take
    theirs where they live. Another flip probability makes a real chain, drawn in row
    order by ``take`` only.
    """

    BLOCK_ROWS = 4096
    #: blocks of random bytes kept: those within this many of the latest (single dict
    #: operations are atomic under the GIL, so the workers share them; a block dropped by
    #: a race is drawn again, equal)
    KEPT_BLOCKS = 4

    def __init__(self, n_resamples: int, rng, *, scheme: str = "markov",
                 flip_probability: float = 0.5):
        self.scheme = check_choice(scheme, "wild", WILD)
        self.flip_probability = check_in_interval(flip_probability, "flip_probability", 0.0,
                                                  1.0)
        self.n_resamples = n_resamples
        self.entropy = [int(e) for e in check_rng(rng).integers(0, 2**63, size=4)]
        self._next_row, self._parity, self._cached = 0, None, {}
        self._chain_rng = np.random.default_rng(np.random.SeedSequence(self.entropy))

    @property
    def independent(self) -> bool:
        """True when the signs are i.i.d. uniform (Rademacher, or a chain with p = ½)."""
        return self.scheme == "rademacher" or self.flip_probability == 0.5

    def __getstate__(self):  # shipped to dask workers without the cached block
        return {**self.__dict__, "_cached": {}}

    @staticmethod
    def _fair_bits(rng, rows: int, columns: int) -> np.ndarray:
        k = rows * columns
        raw = np.frombuffer(rng.bytes((k + 7) // 8), dtype=np.uint8)
        return np.unpackbits(raw, count=k).reshape(rows, columns).view(bool)

    def _block_bytes(self, k: int) -> np.ndarray:
        """The random bytes of row block k: bit j of the block (most significant bit of each
        byte first) is the sign bit of row j // D, chain j % D."""
        blocks = self._cached  # the few latest blocks: the engine's workers share them
        data = blocks.get(k)
        if data is None:
            seed = np.random.SeedSequence(self.entropy, spawn_key=(k,))
            size = (self.BLOCK_ROWS * self.n_resamples + 7) // 8
            data = np.frombuffer(np.random.default_rng(seed).bytes(size), np.uint8)
            for old in [key for key in list(blocks) if abs(key - k) >= self.KEPT_BLOCKS]:
                blocks.pop(old, None)
            blocks[k] = data
        return data

    def rows(self, start: int, stop: int) -> np.ndarray:
        """The signs of rows [start, stop) of every chain, shape (stop - start, D), as ±1.0:
        each random byte becomes its 8 signs in one table lookup, in the calling thread
        (thread-safe: the tile engine's workers take their own rows)."""
        if not self.independent:
            raise ValueError("rows(start, stop) needs i.i.d. signs (Rademacher, or flip "
                             "probability 1/2); a chain with flip probability "
                             f"{self.flip_probability} is drawn in row order by take()")
        D, size = self.n_resamples, self.BLOCK_ROWS
        pieces = []
        for k in range(start // size, max(start, stop - 1) // size + 1):
            lo, hi = max(start, k * size) - k * size, min(stop, (k + 1) * size) - k * size
            first, last = lo * D, hi * D  # bit range within the block
            signs = SIGNS_OF_BYTE[self._block_bytes(k)[first // 8 : (last + 7) // 8]]
            pieces.append(signs.reshape(-1)[first % 8 : first % 8 + last - first])
        flat = pieces[0] if len(pieces) == 1 else np.concatenate(pieces)
        return flat.reshape(stop - start, D)

    def take(self, rows: int) -> np.ndarray:
        """The next ``rows`` signs of every chain, shape (rows, D), as ±1.0."""
        start, self._next_row = self._next_row, self._next_row + rows
        if self.independent:
            return self.rows(start, start + rows)
        flips = self._chain_rng.random((rows, self.n_resamples)) < self.flip_probability
        if self._parity is None:
            flips[0] = self._fair_bits(self._chain_rng, 1, self.n_resamples)[0]
        else:
            flips[0] ^= self._parity
        parity = np.bitwise_xor.accumulate(flips, axis=0)
        self._parity = parity[-1].copy()
        return 1.0 - 2.0 * parity


def wild_signs(n: int, n_resamples: int, rng, *, scheme: str = "markov",
               flip_probability: float = 0.5) -> np.ndarray:
    """(n, D) signs of ``WildSigns`` in one block."""
    return WildSigns(n_resamples, rng, scheme=scheme,
                     flip_probability=flip_probability).take(n)


#: the most bytes of wild-bootstrap signs (as float64) one pass over the Stein Gram
#: holds: more replicates are taken in column blocks, a pass each (n = 5000, D = 5000
#: held 200 MB of signs in one float64 block; the signs are kept as int8, 25 MB)
SIGN_BLOCK_BYTES = 32 * 1024**2


def wild_sign_matrix(n: int, n_resamples: int, rng, *, scheme: str = "markov") -> np.ndarray:
    """The (n, D) i.i.d. signs of ``wild_signs`` (flip probability ½, as ``ksd_test``
    draws them) as int8, an eighth of their float64 size, drawn in row blocks: equal to
    ``wild_signs(n, D, rng, scheme=scheme)``."""
    signs = WildSigns(n_resamples, rng, scheme=scheme)
    out = np.empty((n, n_resamples), dtype=np.int8)
    rows = max(1, SIGN_BLOCK_BYTES // (8 * n_resamples))
    for start in range(0, n, rows):
        out[start:start + rows] = signs.take(min(rows, n - start))
    return out


def full_wild_bootstrap(stein: SteinKernel, prepared, W) -> tuple[float, np.ndarray]:
    """(V-statistic, wild bootstrap replicates wᵀ H w / n² for each column w of W), from the
    tiles of H on or above the diagonal (H is symmetric): half the flops of H W; the
    columns of W in blocks of at most ``SIGN_BLOCK_BYTES`` as float64, a pass each."""
    n, D = W.shape
    block = max(1, SIGN_BLOCK_BYTES // (8 * n))
    quad, statistic = np.empty(D), None
    for start in range(0, D, block):
        columns = np.asarray(W[:, start:start + block], dtype=np.float64)
        quad[start:start + block], row_sums, _ = symmetric_quadratic_forms(
            stein, prepared, columns)
        statistic = float(row_sums.sum()) / n**2 if statistic is None else statistic
    return statistic, quad / n**2


def projected_squares(factor: np.ndarray, projected: np.ndarray) -> np.ndarray:
    """||factor · p||² for each column p of ``projected`` (m, D), in column blocks of at
    most ``SIGN_BLOCK_BYTES`` (m = 2000, D = 5000 made two 80 MB temporaries at once)."""
    m, D = projected.shape
    block = max(1, SIGN_BLOCK_BYTES // (8 * max(m, factor.shape[0])))
    out = np.empty(D)
    for start in range(0, D, block):
        out[start:start + block] = np.sum((factor @ projected[:, start:start + block]) ** 2,
                                          axis=0)
    return out
