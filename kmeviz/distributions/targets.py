"""Target distributions for Stein discrepancies: known up to normalisation through the score.

A target is any object with ``score(X) -> (n, d)``, the gradient ∇ log p of its log
density; KSD never needs the normalising constant (Kalinke et al., Sec. 3). The targets
here can also be sampled (for calibration) and, except the RBM, evaluated (for plots).
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from .._validation import check_positive, check_positive_int, check_rng, check_samples


def _vector(value, name: str, dim: int | None = None) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(value, dtype=float))
    if arr.ndim != 1 or not np.all(np.isfinite(arr)) or (dim is not None and arr.size != dim):
        shape = f"of length {dim}" if dim is not None else "1-D"
        raise ValueError(f"{name} must be a finite {shape} vector, got shape {arr.shape}")
    return arr


def _matrix(value, name: str, shape) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if arr.shape != shape or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be a finite matrix of shape {shape}, got {arr.shape}")
    return arr


def _inputs(target, X) -> np.ndarray:
    X = check_samples(X, "X")
    if X.shape[1] != target.dim:
        raise ValueError(f"X has dimension {X.shape[1]}, the target {target.dim}")
    return X


class NormalTarget:
    """N(mean, cov): score(x) = -cov⁻¹ (x - mean).

    The target of Kalinke et al. Fig. 1b and 1c (Sec. 5).

    Parameters
    ----------
    mean : array (d,)
    cov : array (d, d), optional
        Default the identity.
    """

    def __init__(self, mean, cov=None):
        self.mean = _vector(mean, "mean")
        self.dim = self.mean.size
        cov = np.eye(self.dim) if cov is None else np.asarray(cov, dtype=float)
        if cov.ndim == 0:
            cov = float(cov) * np.eye(self.dim)
        self.cov = _matrix(cov, "cov", (self.dim, self.dim))
        try:
            self._chol = np.linalg.cholesky(self.cov)
        except np.linalg.LinAlgError:
            raise ValueError("cov must be symmetric positive definite") from None
        self._precision = np.linalg.inv(self.cov)

    def score(self, X) -> np.ndarray:
        return -(_inputs(self, X) - self.mean) @ self._precision

    def log_density(self, X) -> np.ndarray:
        return np.atleast_1d(stats.multivariate_normal(self.mean, self.cov).logpdf(
            _inputs(self, X)))

    def sample(self, n: int, *, rng=None) -> np.ndarray:
        n = check_positive_int(n, "n")
        return self.mean + check_rng(rng).standard_normal((n, self.dim)) @ self._chol.T


class StudentTTarget:
    """Multivariate Student-t with ``df`` degrees of freedom, location ``loc``, scale
    ``scale``·I: score(x) = -(ν + d) u / (scale (ν + ||u||²)), u = (x - loc) / scale.

    The Student-t of Kalinke et al. Sec. 5 (Fig. 1c as worded).

    Parameters
    ----------
    df : float
        ν > 0.
    loc : array (d,)
    scale : float
    """

    def __init__(self, df: float, loc, scale: float = 1.0):
        self.df = check_positive(df, "df")
        self.loc = _vector(loc, "loc")
        self.dim = self.loc.size
        self.scale = check_positive(scale, "scale")

    def score(self, X) -> np.ndarray:
        U = (_inputs(self, X) - self.loc) / self.scale
        return -(self.df + self.dim) * U / (
            self.scale * (self.df + np.einsum("ij,ij->i", U, U))[:, None])

    def log_density(self, X) -> np.ndarray:
        return np.atleast_1d(stats.multivariate_t(self.loc, self.scale**2 * np.eye(self.dim),
                                                  df=self.df).logpdf(_inputs(self, X)))

    def sample(self, n: int, *, rng=None) -> np.ndarray:
        n = check_positive_int(n, "n")
        rng = check_rng(rng)
        g = np.sqrt(rng.chisquare(self.df, size=(n, 1)) / self.df)
        return self.loc + self.scale * rng.standard_normal((n, self.dim)) / g


class GaussBernoulliRBM:
    """Gauss–Bernoulli RBM of Kalinke et al. Sec. 5:
    p(x) ∝ Σ_h exp(κ xᵀBh + bᵀx + cᵀh − ½||x||²), h ∈ {±1}^{d_h}, κ = ``coupling``.

    The default κ = ½ is the convention of Jitkrittum et al. (2017) and of the ``kgof``
    code the Nyström KSD authors ran, so a perturbation σ of B means what it means in
    their Fig. 1d. κ = 1 is the same family with B doubled. Summing out h gives the score
    b − x + κ B tanh(κ Bᵀx + c).

    Parameters
    ----------
    B : array (d, d_h)
    b : array (d,)
    c : array (d_h,)
    coupling : float
        κ.
    """

    def __init__(self, B, b, c, *, coupling: float = 0.5):
        self.B = np.atleast_2d(np.asarray(B, dtype=float))
        if not np.all(np.isfinite(self.B)):
            raise ValueError("B must be finite")
        self.coupling = float(coupling)
        if not np.isfinite(self.coupling) or self.coupling <= 0:
            raise ValueError(f"coupling must be > 0, got {coupling}")
        self.dim, self.hidden_dim = self.B.shape
        self.b = _vector(b, "b", self.dim)
        self.c = _vector(c, "c", self.hidden_dim)

    @classmethod
    def random(cls, dim: int = 50, hidden_dim: int = 40, *, rng=None) -> GaussBernoulliRBM:
        """B with i.i.d. ±1 entries, b and c standard normal (Liu et al. 2016's setting)."""
        rng = check_rng(rng)
        dim = check_positive_int(dim, "dim")
        hidden_dim = check_positive_int(hidden_dim, "hidden_dim")
        return cls(rng.choice([-1.0, 1.0], size=(dim, hidden_dim)), rng.standard_normal(dim),
                   rng.standard_normal(hidden_dim))

    def perturbed(self, sigma: float, *, rng=None) -> GaussBernoulliRBM:
        """The alternative of Sec. 5: B plus i.i.d. Gaussian noise of variance σ²."""
        sigma = float(sigma)
        if not np.isfinite(sigma) or sigma < 0:
            raise ValueError(f"sigma must be >= 0, got {sigma}")
        noise = check_rng(rng).standard_normal(self.B.shape)
        return GaussBernoulliRBM(self.B + sigma * noise, self.b, self.c, coupling=self.coupling)

    def score(self, X) -> np.ndarray:
        X = _inputs(self, X)
        B = self.coupling * self.B
        return self.b - X + np.tanh(X @ B + self.c) @ B.T

    def sample(self, n: int, *, rng=None, burn_in: int = 1000, thin: int = 1,
               n_chains: int | None = None) -> np.ndarray:
        """Block Gibbs sampling: h_j | x = ±1 with P(+1) = sigmoid(2(κBᵀx + c)_j), and
        x | h ~ N(κBh + b, I). ``n_chains`` parallel chains (default n, one draw each) run
        ``burn_in`` sweeps, then each keeps every ``thin``-th state."""
        n = check_positive_int(n, "n")
        burn_in = check_positive_int(burn_in, "burn_in", minimum=0)
        thin = check_positive_int(thin, "thin")
        chains = n if n_chains is None else min(check_positive_int(n_chains, "n_chains"), n)
        rng = check_rng(rng)
        B = self.coupling * self.B
        x = rng.standard_normal((chains, self.dim)) + self.b
        draws, kept = [], 0
        per_chain = -(-n // chains)
        for sweep in range(burn_in + per_chain * thin):
            p_plus = special.expit(2.0 * (x @ B + self.c))
            h = np.where(rng.random(p_plus.shape) < p_plus, 1.0, -1.0)
            x = h @ B.T + self.b + rng.standard_normal(x.shape)
            if sweep >= burn_in and (sweep - burn_in) % thin == thin - 1:
                draws.append(x)
                kept += chains
        return np.concatenate(draws)[:n]
