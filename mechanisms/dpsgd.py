"""DP-SGD for logistic regression in numpy (Abadi et al. 2016), correct and with four bugs.

Full-batch steps: each step releases p_t = (1/B) Σ_i clip_C(∇ℓ_i(θ_t)) + N(0, (σC/B)² I) and
updates θ_{t+1} = θ_t − η p_t; B is a public normaliser (the largest dataset size), so under
add/remove one record moves the sum by at most C and every step is a Gaussian mechanism with
noise multiplier σ. T steps compose to exactly √T/σ-GDP (Dong, Roth & Su 2022, Cor. 3.3); the
claim states its (ε, δ) from dp-accounting's PLD accountant at δ = 10⁻⁵, or with
``guarantee="gdp"`` the √T/σ-GDP itself.

Bugs (`bug=`):
* ``"scale_before_clip"``: Σ_i clip_C(∇ℓ_i / B) + noise — the 1/B moves inside the clipping
  (paper 003 §5.3, after Xiang, Wang & Wang's reading of [38]): a record moves the sum by up to
  min(‖∇ℓ‖/B, C) instead of C/B: noise up to B times too small (for gradients of norm ≥ C·B).
* ``"no_clip"``: per-example gradients are not clipped: sensitivity ‖∇ℓ‖, unbounded by C.
* ``"wrong_batch"``: the noise is calibrated for a batch 4 times larger: σC/(4B) on the mean.
* ``"last_step_noiseless"``: the last step adds no noise.

Releases: ``"white_box"`` (every step's noisy gradient, T × d values) or ``"black_box"`` (the
final parameters). Records are feature vectors in [−1, 1]^2 labelled 1.

`dpsgd_one_run` is the one-run version (paper 003 §5.2, Figure 9; Nasr et al.'s Dirac gradient
canaries): logistic regression on scikit-learn's breast-cancer data (no download) with m extra
model coordinates, one per canary; an included canary contributes a gradient of norm C·B on its
own coordinate (the adversary chooses it), and the white-box score of canary i is its
coordinate's released gradient summed over the steps — a memoryless channel.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from dpfuzz.claims import ApproxDP, Claim, GaussianDP
from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.errors import InvalidArgument
from dpfuzz.mechanism import Mechanism
from dpfuzz.one_run import OneRunRelease

from ._checks import positive
from .entry import CatalogueEntry, Truth

BUGS = (None, "scale_before_clip", "no_clip", "wrong_batch", "last_step_noiseless")
DELTA = 1e-5
CLIP = 0.1
LEARNING_RATE = 1.0
DIM = 2
MAX_SIZE = 4
WRONG_BATCH_FACTOR = 4


def noisy_gradient(
    gradients: np.ndarray,
    sigma: float,
    clip: float,
    batch: float,
    rng: np.random.Generator,
    bug: str | None,
    last: bool,
) -> np.ndarray:
    """One step's released gradient from per-example gradients of shape (..., n, d)."""
    noise_scale = sigma * clip / batch
    if bug == "scale_before_clip":
        total = clip_rows(gradients / batch, clip).sum(axis=-2)
    else:
        total = (gradients if bug == "no_clip" else clip_rows(gradients, clip)).sum(axis=-2) / batch
    if bug == "wrong_batch":
        noise_scale /= WRONG_BATCH_FACTOR
    if bug == "last_step_noiseless" and last:
        return total
    return total + rng.normal(0.0, noise_scale, total.shape)


def clip_rows(vectors: np.ndarray, clip: float) -> np.ndarray:
    """CLP_C(u) = u · min(1, C/‖u‖₂) on the last axis."""
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors * np.minimum(1.0, clip / np.maximum(norms, 1e-300))


def logistic_gradients(theta: np.ndarray, features: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """∇ℓ_i = (sigmoid(θ·x_i) − y_i) x_i for every run: θ (S, d), x (n, d) → (S, n, d)."""
    margins = theta @ features.T  # (S, n)
    return ((1.0 / (1.0 + np.exp(-margins))) - labels)[..., None] * features[None, :, :]


def dpsgd(noise_multiplier: float, steps: int, release: str, bug: str | None) -> Mechanism:
    sigma = positive("noise_multiplier", noise_multiplier)
    if release not in ("white_box", "black_box"):
        raise InvalidArgument(f"release must be 'white_box' or 'black_box', got {release!r}.")

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        features = np.asarray(dataset, dtype=float).reshape(-1, DIM)
        labels = np.ones(len(features))
        theta = np.zeros((num_samples, DIM))
        released = []
        for step in range(steps):
            gradients = logistic_gradients(theta, features, labels)
            gradient = noisy_gradient(gradients, sigma, CLIP, MAX_SIZE, rng, bug, step == steps - 1)
            released.append(gradient)
            theta = theta - LEARNING_RATE * gradient
        return np.concatenate(released, axis=1) if release == "white_box" else theta

    return mechanism


@lru_cache(maxsize=256)
def accountant_epsilon(noise_multiplier: float, steps: int, delta: float = DELTA) -> float:
    """ε at δ of `steps` full-batch Gaussian steps, from dp-accounting's PLD accountant."""
    import dp_accounting

    accountant = dp_accounting.pld.PLDAccountant()
    accountant.compose(dp_accounting.GaussianDpEvent(noise_multiplier), steps)
    return float(accountant.get_epsilon(delta))


def noise_for_epsilon(epsilon: float, steps: int, delta: float = DELTA) -> float:
    """The noise multiplier whose `steps` full-batch steps are (ε, δ)-DP: σ = √T/μ with the μ-GDP
    that is (ε, δ)-DP."""
    return math.sqrt(steps) / GaussianDP.from_epsilon(epsilon, delta).mu


BUG_NOTES = {
    "scale_before_clip": (
        "a record moves the sum by min(‖∇ℓ‖/B, C), up to B times the C/B the noise is set for"
    ),
    "no_clip": "unclipped gradients (norm up to √2/2 at θ = 0) against noise set for C = 0.1",
    "wrong_batch": "noise set for a batch 4 times larger",
}


def dpsgd_claim(noise_multiplier: float, steps: int, release: str, guarantee: str) -> Claim:
    """The accountant's (ε, δ = 10⁻⁵), or (``guarantee="gdp"``) the exact √T/σ-GDP."""
    if guarantee == "gdp":
        return GaussianDP(math.sqrt(steps) / noise_multiplier)
    if guarantee != "approx":
        raise InvalidArgument(f"guarantee must be 'approx' or 'gdp', got {guarantee!r}.")
    return ApproxDP(accountant_epsilon(noise_multiplier, steps), DELTA)


def _truth(bug: str | None):
    def truth(noise_multiplier: float, steps: int, release: str, guarantee: str) -> Truth:
        if bug is None:
            return Truth(
                True,
                accountant_epsilon(noise_multiplier, steps),
                "Gaussian steps, dp-accounting PLD (exact: √T/σ-GDP)",
            )
        if bug == "last_step_noiseless":
            if release == "white_box":
                return Truth(False, math.inf, "the last released gradient is exact")
            return Truth(
                None,
                None,
                "final parameters after a noiseless, data-dependent step: not established",
            )
        if release == "black_box":  # post-processing of a violating release need not violate
            return Truth(
                None, None, BUG_NOTES[bug] + "; the final parameters alone: not established"
            )
        return Truth(False, None, BUG_NOTES[bug])

    return truth


def _entry(name: str, bug: str | None, description: str) -> CatalogueEntry:
    return CatalogueEntry(
        name=name,
        family="dpsgd",
        build=lambda noise_multiplier, steps, release, guarantee: dpsgd(
            noise_multiplier, steps, release, bug
        ),
        claim_type=ApproxDP,
        defaults={
            "noise_multiplier": 2.0,
            "steps": 3,
            "release": "white_box",
            "guarantee": "approx",
        },
        domain_spec=Domain(
            low=-1.0, high=1.0, dim=DIM, min_size=0, max_size=MAX_SIZE, relation="add_remove"
        ),
        truth_spec=_truth(bug),
        witness_spec=DatasetPair(np.zeros((0, DIM)), np.ones((1, DIM))),
        description=description,
        claim_spec=dpsgd_claim,
        tester="hockey_stick",
    )


DPSGD = _entry(
    "DPSGD", None, "full-batch DP-SGD, logistic regression, C = 0.1, σ = noise_multiplier"
)
DPSGDScaleBeforeClip = _entry(
    "DPSGDScaleBeforeClip",
    "scale_before_clip",
    "DP-SGD clipping ∇ℓ/B instead of ∇ℓ (paper 003 §5.3)",
)
DPSGDNoClip = _entry("DPSGDNoClip", "no_clip", "DP-SGD without per-example clipping")
DPSGDWrongBatch = _entry(
    "DPSGDWrongBatch", "wrong_batch", "DP-SGD with noise for a batch 4 times larger"
)
DPSGDLastStepNoiseless = _entry(
    "DPSGDLastStepNoiseless", "last_step_noiseless", "DP-SGD whose last step adds no noise"
)

ENTRIES = (DPSGD, DPSGDScaleBeforeClip, DPSGDNoClip, DPSGDWrongBatch, DPSGDLastStepNoiseless)


# -- one run with Dirac canaries -------------------------------------------------------------------
@lru_cache(maxsize=1)
def breast_cancer() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's breast-cancer data, standardised, rows scaled to norm ≤ 1."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    features = (data.data - data.data.mean(axis=0)) / data.data.std(axis=0)
    features /= np.linalg.norm(features, axis=1).max()
    return features, data.target.astype(float)


def dpsgd_one_run(
    noise_multiplier: float, steps: int, bug: str | None = None, learning_rate: float = 0.5
) -> OneRunRelease:
    """``run(included, rng) -> scores`` for `audit_one_run`: white-box DP-SGD with one Dirac
    canary coordinate per canary (module docstring). ``run.claim`` is the √T/σ-GDP the accountant
    gives the correct algorithm."""
    sigma = positive("noise_multiplier", noise_multiplier)
    if bug not in BUGS:
        raise InvalidArgument(f"bug must be one of {BUGS}, got {bug!r}.")
    features, labels = breast_cancer()

    def run(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        m = len(included)
        batch = len(features) + m  # public normaliser: every example and every canary
        theta = np.zeros((1, features.shape[1]))
        # canary i's gradient, C·B on its own coordinate: one "example" per coordinate, shape (m, 1,
        # 1)
        canaries = np.where(included, CLIP * batch, 0.0)[:, None, None]
        scores = np.zeros(m)
        for step in range(steps):
            last = step == steps - 1
            gradients = logistic_gradients(theta, features, labels)
            theta = theta - learning_rate * noisy_gradient(
                gradients, sigma, CLIP, batch, rng, bug, last
            )
            scores += noisy_gradient(canaries, sigma, CLIP, batch, rng, bug, last)[:, 0]
        return scores

    run.claim = GaussianDP(math.sqrt(steps) / sigma)  # type: ignore[attr-defined]
    return run
