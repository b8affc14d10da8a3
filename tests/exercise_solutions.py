"""The solutions of the notebooks' exercises (kept out of the notebooks), each with a
plausible wrong answer: the mistake a student is likely to make."""

import numpy as np

import kmeviz as K
from kmeviz import exercises as E
from kmeviz.experiments import binomial_interval


def _mmd_pair():
    return E.mmd_data()


def mmd2_solution():
    X, Y = _mmd_pair()
    return K.mmd2(X, Y, K.GaussianKernel(1.0))


def mmd2_wrong():  # the unbiased estimate instead of the biased one
    X, Y = _mmd_pair()
    return K.mmd2(X, Y, K.GaussianKernel(1.0), estimator="unbiased")


def narrow_floor_solution():  # the prediction from the formula: 1/m + 1/n
    X, Y = _mmd_pair()
    return 1 / len(X) + 1 / len(Y)


def witness_solution():
    X, Y = _mmd_pair()
    return K.mmd_witness(X, Y, K.GaussianKernel(1.0), np.zeros((1, 2)))[0]


def p_value_solution():
    X, Y = _mmd_pair()
    return K.mmd_test(X[:20], Y[:20], K.GaussianKernel(1.0), n_resamples=999, rng=0).p_value


def p_value_wrong():  # another seed: another set of permutations
    X, Y = _mmd_pair()
    return K.mmd_test(X[:20], Y[:20], K.GaussianKernel(1.0), n_resamples=999, rng=1).p_value


def weight_sum_solution():
    _, X, kernel = E.nystrom_data()
    return K.NystromKME(kernel, 50, rng=0).fit(X).weights_.sum()


def landmarks_solution():
    mixture, X, kernel = E.nystrom_data()
    return next(m for m in E.LANDMARK_COUNTS
                if mixture.error_of(K.NystromKME(kernel, m, rng=0).fit(X)) < 0.02)


def effective_dimension_solution():
    _, X, kernel = E.nystrom_data()
    return K.effective_dimension(K.gram_spectrum(X[:500], kernel), 1e-3)


def effective_dimension_wrong():  # the spectrum of K instead of K/n
    _, X, kernel = E.nystrom_data()
    return K.effective_dimension(np.clip(np.linalg.eigvalsh(kernel(X[:500])), 0, None), 1e-3)


def ksd2_solution():
    target, _, laplace = E.stein_data()
    return K.ksd2(laplace, target, K.IMQKernel())


def ksd2_wrong():  # the U-statistic
    target, _, laplace = E.stein_data()
    return K.ksd2(laplace, target, K.IMQKernel(), estimator="unbiased")


def conditional_mean_solution():
    X, Y = E.cme_data()
    cme = K.ConditionalMeanEmbedding(K.GaussianKernel(0.5), K.GaussianKernel(0.5),
                                     reg=1e-3).fit(X, Y)
    return cme.expectation(Y[:, 0], np.array([[1.0]]))[0]


#: checker name -> (solution, plausible wrong answer)
SOLUTIONS = {
    "check_mmd2": (mmd2_solution, mmd2_wrong),
    # the guess "a kernel that narrow sees no difference at all": 0
    "check_narrow_kernel_floor": (narrow_floor_solution, lambda: 0.0),
    "check_witness_at_origin": (witness_solution, lambda: -witness_solution()),  # μ̂_Y − μ̂_X
    "check_permutation_p_value": (p_value_solution, p_value_wrong),
    # the normal approximation 0.06 + 1.96 √(0.06 · 0.94 / 200) instead of Clopper–Pearson
    "check_size_interval_upper": (lambda: binomial_interval(12, 200, 0.95)[1],
                                  lambda: 0.06 + 1.96 * np.sqrt(0.06 * 0.94 / 200)),
    # the nominal level instead of the measured rate
    "check_gamma_size_small_n": (lambda: float(K.experiments.rejection_rates(
        K.experiments.null_sampler(30), {"gamma": {"kernel": K.GaussianKernel(0.2),
                                                    "null": "gamma"}},
        n_repeats=200, rng=4).rate.iloc[0]), lambda: 0.05),
    "check_weight_sum": (weight_sum_solution, lambda: 1.0),
    "check_landmarks_for_error": (landmarks_solution, lambda: 50),  # error 0.024 > 0.02
    "check_effective_dimension": (effective_dimension_solution, effective_dimension_wrong),
    # the count of eigenvalues above λ instead of the soft count N(λ)
    "check_halving_effective_dimension": (
        lambda: K.effective_dimension(0.5 ** np.arange(1, 13), 0.01), lambda: 6),
    "check_ksd2": (ksd2_solution, ksd2_wrong),
    # the p-value of the well-separated modes of section 7 instead of the close ones
    "check_close_modes_p_value": (
        lambda: K.ksd_test(E.close_modes_data()[1], E.close_modes_data()[0], K.IMQKernel(),
                           rng=0).p_value,
        lambda: 0.884231536926),
    "check_conditional_mean": (conditional_mean_solution, lambda: float(np.sin(1.0))),
    "check_sparsest_gamma": (lambda: 0.1, lambda: 0.001),
    "check_chunk_count": (lambda: 3, lambda: 2),
    "check_exact_on_dask": (lambda: "mmd2", lambda: "mmd2_nystrom"),
    # rows with a missing value anywhere (11) instead of in the columns used (1)
    "check_dropped_rows": (lambda: sum(E.penguin_samples().report.dropped_rows), lambda: 11),
    "check_narrow_kernel_decision": (lambda: "keep", lambda: "reject"),
    "check_small_sample_tests": (lambda: "biased/permutation", lambda: "both"),
    # the naive min-p rule is not a level-α test; its size is several times α
    "check_min_p_size": (lambda: "between 0.1 and 0.4", lambda: "about 0.05"),
    # the blob scale (σ ≈ 0.5) is what one expects; the 5 % rule starts at the grid's
    "check_smallest_collection_sigma": (
        lambda: float(K.mmdagg_kernels(*K.blobs_two_sample(500, epsilon=3.0, rng=5),
                                       family="gaussian").scales().min()), lambda: 0.5),
}


# --- exercises that ask for code: each solution returns the student's function ---------

def mmd2_from_grams(Kxx, Kyy, Kxy):
    return Kxx.mean() + Kyy.mean() - 2 * Kxy.mean()


def mmd2_from_grams_unbiased(Kxx, Kyy, Kxy):  # wrong: drops the diagonal
    m, n = len(Kxx), len(Kyy)
    return ((Kxx.sum() - np.trace(Kxx)) / (m * (m - 1)) + (Kyy.sum() - np.trace(Kyy))
            / (n * (n - 1)) - 2 * Kxy.mean())


def permutation_test(X, Y, statistic, n_resamples, rng):
    rng = np.random.default_rng(rng)
    Z, m = np.vstack([X, Y]), len(X)
    observed = statistic(X, Y)
    count = 0
    for _ in range(n_resamples):
        Zp = Z[rng.permutation(len(Z))]
        count += statistic(Zp[:m], Zp[m:]) >= observed
    return (1 + count) / (1 + n_resamples)


def permutation_test_strict(X, Y, statistic, n_resamples, rng):  # wrong: ties not counted
    rng = np.random.default_rng(rng)
    Z, m = np.vstack([X, Y]), len(X)
    observed = statistic(X, Y)
    count = sum(statistic(*np.split(Z[rng.permutation(len(Z))], [m])) > observed
                for _ in range(n_resamples))
    return (1 + count) / (1 + n_resamples)


def nystrom_weights(K_mm, K_mn):
    return np.linalg.pinv(K_mm) @ K_mn.mean(axis=1)


def nystrom_weights_sum(K_mm, K_mn):  # wrong: sums instead of averaging
    return np.linalg.pinv(K_mm) @ K_mn.sum(axis=1)


def effective_dimension(eigenvalues, lam):
    return np.sum(eigenvalues / (eigenvalues + lam))


def stein_kernel_gaussian(X, Y, score_X, score_Y, sigma):
    diff = X[:, None, :] - Y[None, :, :]
    sq = (diff**2).sum(-1)
    k = np.exp(-sq / (2 * sigma**2))
    cross = score_X @ score_Y.T
    grad_terms = ((score_X[:, None, :] * diff).sum(-1)
                  - (score_Y[None, :, :] * diff).sum(-1)) / sigma**2
    trace = X.shape[1] / sigma**2 - sq / sigma**4
    return k * (cross + grad_terms + trace)


def stein_kernel_gaussian_no_trace(X, Y, score_X, score_Y, sigma):  # wrong: no trace term
    diff = X[:, None, :] - Y[None, :, :]
    k = np.exp(-(diff**2).sum(-1) / (2 * sigma**2))
    grad_terms = ((score_X[:, None, :] * diff).sum(-1)
                  - (score_Y[None, :, :] * diff).sum(-1)) / sigma**2
    return k * (score_X @ score_Y.T + grad_terms)


def ksd2_unbiased(H):
    n = len(H)
    return (H.sum() - np.trace(H)) / (n * (n - 1))


def cme_weights(K, k_x, lam):
    return np.linalg.solve(K + len(K) * lam * np.eye(len(K)), k_x)


def cme_weights_no_n(K, k_x, lam):  # wrong: λ instead of nλ
    return np.linalg.solve(K + lam * np.eye(len(K)), k_x)


def linear_mmd2(X, Y, k):
    p = min(len(X), len(Y)) // 2
    x1, x2, y1, y2 = X[0:2 * p:2], X[1:2 * p:2], Y[0:2 * p:2], Y[1:2 * p:2]
    return np.mean(k(x1, x2) + k(y1, y2) - k(x1, y2) - k(x2, y1))


def linear_mmd2_overlapping(X, Y, k):  # wrong: overlapping pairs
    return np.mean(k(X[:-1], X[1:]) + k(Y[:-1], Y[1:]) - k(X[:-1], Y[1:]) - k(X[1:], Y[:-1]))


def block_mmd2(X, Y, kernel, block_size):
    blocks = range(0, min(len(X), len(Y)) - block_size + 1, block_size)
    return np.mean([K.mmd2(X[i:i + block_size], Y[i:i + block_size], kernel,
                           estimator="unbiased") for i in blocks])


def block_mmd2_biased(X, Y, kernel, block_size):  # wrong: biased blocks
    blocks = range(0, min(len(X), len(Y)) - block_size + 1, block_size)
    return np.mean([K.mmd2(X[i:i + block_size], Y[i:i + block_size], kernel)
                    for i in blocks])


def witness(X, Y, kernel, T):
    return kernel(T, X).mean(axis=1) - kernel(T, Y).mean(axis=1)


def median_heuristic(X, Y):
    Z = np.vstack([X, Y])
    distances = np.sqrt(((Z[:, None] - Z[None]) ** 2).sum(-1))
    return np.median(distances[np.triu_indices(len(Z), 1)])


def median_heuristic_with_zeros(X, Y):  # wrong: the diagonal's zeros included
    Z = np.vstack([X, Y])
    return np.median(np.sqrt(((Z[:, None] - Z[None]) ** 2).sum(-1)))


IMPLEMENTATIONS = {
    "check_mmd2_from_grams": (lambda: mmd2_from_grams, lambda: mmd2_from_grams_unbiased),
    "check_permutation_test_function": (lambda: permutation_test,
                                        lambda: permutation_test_strict),
    "check_nystrom_weights": (lambda: nystrom_weights, lambda: nystrom_weights_sum),
    # the count of eigenvalues above λ
    "check_effective_dimension_function": (lambda: effective_dimension,
                                           lambda: lambda s, lam: np.sum(s > lam)),
    "check_stein_kernel_gaussian": (lambda: stein_kernel_gaussian,
                                    lambda: stein_kernel_gaussian_no_trace),
    # the V-statistic (the diagonal kept)
    "check_ksd2_unbiased_from_stein_gram": (lambda: ksd2_unbiased, lambda: np.mean),
    "check_cme_weights": (lambda: cme_weights, lambda: cme_weights_no_n),
    "check_linear_mmd2": (lambda: linear_mmd2, lambda: linear_mmd2_overlapping),
    "check_block_mmd2": (lambda: block_mmd2, lambda: block_mmd2_biased),
    # μ̂_Y − μ̂_X
    "check_witness_function": (lambda: witness,
                               lambda: lambda X, Y, kernel, T: -witness(X, Y, kernel, T)),
    "check_median_heuristic_function": (lambda: median_heuristic,
                                        lambda: median_heuristic_with_zeros),
}
SOLUTIONS.update(IMPLEMENTATIONS)


def hsic_b(K, L):
    n = len(K)
    H = np.eye(n) - np.ones((n, n)) / n
    return np.trace(K @ H @ L @ H) / n**2


def hsic_b_uncentred(K, L):  # wrong: no centring
    return np.sum(K * L) / len(K) ** 2


SOLUTIONS.update({
    "check_hsic_b_from_grams": (lambda: hsic_b, lambda: hsic_b_uncentred),
    # r ≈ 0, so "independent": the mistake the exercise is about
    "check_rotated_sources_decision": (lambda: "reject", lambda: "keep"),
    # "the exact test is the most powerful": not at a bandwidth that misses the pattern
    "check_test_for_frequency_two": (lambda: "hsicagg", lambda: "biased/permutation"),
})


def cme_residual(Kz, column, epsilon):
    return column - Kz @ np.linalg.solve(Kz + epsilon * np.eye(len(Kz)), column)


def cme_fit(Kz, column, epsilon):  # wrong: the fit, not what it leaves
    return Kz @ np.linalg.solve(Kz + epsilon * np.eye(len(Kz)), column)


SOLUTIONS.update({
    "check_residual_operator": (lambda: cme_residual, lambda: cme_fit),
    # "X and Y are independent, so they stay so": the collider's trap
    "check_collider_decision": (lambda: "reject", lambda: "keep"),
    # "a larger ε is only smoother": it stops removing Z
    "check_large_epsilon_decision": (lambda: "reject", lambda: "keep"),
})


def power_criterion(Kxx, Kyy, Kxy):
    n = len(Kxx)
    H = Kxx + Kyy - Kxy - Kxy.T
    mmd2 = (H.sum() - np.trace(H)) / (n * (n - 1))
    variance = 4 * (np.sum(H.sum(axis=1) ** 2) / n**3 - (H.sum() / n**2) ** 2)
    return mmd2 / np.sqrt(variance + 1e-8)


def power_criterion_mmd_only(Kxx, Kyy, Kxy):  # wrong: the largest MMD², not Ĵ
    n = len(Kxx)
    H = Kxx + Kyy - Kxy - Kxy.T
    return (H.sum() - np.trace(H)) / (n * (n - 1))


def cross_mmd(Kx1x2, Kx1y2, Ky1x2, Ky1y2):
    gx = Kx1x2.mean(axis=1) - Kx1y2.mean(axis=1)
    gy = Ky1x2.mean(axis=1) - Ky1y2.mean(axis=1)
    return (gx.mean() - gy.mean()) / np.sqrt(gx.var() / gx.size + gy.var() / gy.size)


def cross_mmd_unstudentised(Kx1x2, Kx1y2, Ky1x2, Ky1y2):  # wrong: no studentising
    return (Kx1x2.mean() - Kx1y2.mean()) - (Ky1x2.mean() - Ky1y2.mean())


SOLUTIONS.update({
    "check_power_criterion": (lambda: power_criterion, lambda: power_criterion_mmd_only),
    "check_cross_mmd": (lambda: cross_mmd, lambda: cross_mmd_unstudentised),
    # "a learned kernel is always better": not when learning costs half the data
    "check_split_price": (lambda: "less", lambda: "more"),
})


def multiplier_process(eps, length):
    a = np.exp(-1.0 / length)
    W = eps.copy()
    for t in range(1, len(W)):
        W[t] = a * W[t - 1] + np.sqrt(1 - a * a) * eps[t]
    return W


def multiplier_process_unscaled(eps, length):  # wrong: the variance grows to 1/(1 − a²)
    a = np.exp(-1.0 / length)
    W = eps.copy()
    for t in range(1, len(W)):
        W[t] = a * W[t - 1] + eps[t]
    return W


SOLUTIONS.update({
    "check_multiplier_process": (lambda: multiplier_process,
                                 lambda: multiplier_process_unscaled),
    # "permutations are exact whatever the data": not when rows are not exchangeable
    "check_iid_size_as_phi_grows": (lambda: "1", lambda: "alpha"),
    "check_two_stretch_test": (lambda: "biased/dependent-wild-bootstrap",
                               lambda: "biased/permutation"),
})


def colliders(skeleton, separating, *, backwards=False):
    p = skeleton.shape[0]
    arrow = np.zeros((p, p), dtype=int)
    for k in range(p):
        neighbours = np.flatnonzero(skeleton[k])
        for a in range(len(neighbours)):
            for b in range(a + 1, len(neighbours)):
                i, j = sorted((neighbours[a], neighbours[b]))
                if not skeleton[i, j] and (k in separating[(i, j)]) == backwards:
                    arrow[i, k] = arrow[j, k] = 1
    return arrow


def colliders_inverted(skeleton, separating):  # wrong: k in the separating set
    return colliders(skeleton, separating, backwards=True)


SOLUTIONS.update({
    "check_colliders": (lambda: colliders, lambda: colliders_inverted),
    # "four orientations of two edges": only the collider is told apart
    "check_chain_class_size": (lambda: 3, lambda: 4),
})
