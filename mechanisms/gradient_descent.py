"""Differentially private gradient descent on a 1-D model (loss ½(θ − x)², gradient θ − x).

Each mechanism releases its whole trajectory (θ_1, …, θ_T). The claim is the RDP of T Gaussian
mechanisms of sensitivity 1 and noise multiplier σ (dp-accounting's RDP accountant), which is
right when each step adds N(0, (σG)²) to a sum of per-example gradients clipped to G.

* ScaledGD(s) adds N(0, (sσG)²) instead (Kong et al., DP-Auditorium, §6.3). Starting far from the
  data, every
  record's gradient is clipped to −G at every step, so a record shifts each step by exactly G:
  the true RDP is Tα/(2(sσ)²) — tight — and the claim holds iff s ≥ 1.
* MicrobatchGD clips the *sum of a micro-batch* of two records (records sorted, then paired)
  to G but accounts sensitivity G. One added record can flip a clipped micro-batch from +G to
  −G: sensitivity 2G, true RDP up to 4× the claim.
* AverageThenClipGD clips the *average* gradient to G and adds noise σG/n, calibrated for the
  average of per-example-clipped gradients (Xiang, Wang & Wang, "Privacy audit as bits
  transmission", §5.3: a flawed DP-SGD). The clipped average moves by up to 2G, not G/n, and the
  noise scale reveals n.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dpfuzz.claims import RenyiDP
from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.mechanism import Mechanism

from ._checks import positive
from .accounting import gaussian_steps, renyi_claim
from .entry import CatalogueEntry, Truth

CLIP = 1.0


def _claim(sigma: float, steps: int, alpha: float, **_) -> RenyiDP:
    return renyi_claim(gaussian_steps(positive("sigma", sigma), steps), alpha)


def gradient_descent(
    update: Callable[[np.ndarray, np.ndarray, np.random.Generator], np.ndarray],
    theta0: float,
    lr: float,
    steps: int,
) -> Mechanism:
    """Trajectory sampler: θ ← θ − lr · update(θ, dataset, rng) for each sample in bulk."""

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        records = np.sort(np.asarray(dataset, dtype=float))
        theta = np.full(num_samples, theta0)
        trajectory = np.empty((num_samples, steps))
        for step in range(steps):
            theta = theta - lr * update(theta, records, rng)
            trajectory[:, step] = theta
        return trajectory

    return mechanism


def scaled_gd(sigma: float, steps: int, alpha: float, s: float) -> Mechanism:
    noise = positive("s", s) * positive("sigma", sigma) * CLIP

    def update(theta, records, rng):
        gradients = np.clip(theta[:, None] - records[None, :], -CLIP, CLIP).sum(axis=1)
        return gradients + rng.normal(0.0, noise, len(theta))

    return gradient_descent(update, theta0=-5.0, lr=0.1, steps=steps)


def microbatch_gd(sigma: float, steps: int, alpha: float) -> Mechanism:
    noise = positive("sigma", sigma) * CLIP

    def update(theta, records, rng):
        gradients = theta[:, None] - records[None, :]
        if records.size % 2:
            gradients = np.concatenate([gradients, np.zeros((len(theta), 1))], axis=1)
        batches = gradients.reshape(len(theta), -1, 2).sum(axis=2)
        return np.clip(batches, -CLIP, CLIP).sum(axis=1) + rng.normal(0.0, noise, len(theta))

    return gradient_descent(update, theta0=0.0, lr=0.05, steps=steps)


def average_then_clip_gd(sigma: float, steps: int, alpha: float) -> Mechanism:
    sigma = positive("sigma", sigma)

    def update(theta, records, rng):
        n = len(records)
        average = np.clip((theta[:, None] - records[None, :]).mean(axis=1), -CLIP, CLIP)
        return average + rng.normal(0.0, sigma * CLIP / n, len(theta))

    return gradient_descent(update, theta0=0.0, lr=0.05, steps=steps)


_DEFAULTS = {"sigma": 2.0, "steps": 4, "alpha": 2.0}
_WIDE = Domain(low=-3.0, high=3.0, min_size=1, max_size=4)
# One record whose gradient is +G, then a second that turns the (micro-batch or average)
# gradient to −G: a change of 2G per step.
_FLIP = DatasetPair(np.array([-1.0]), np.array([-1.0, 3.0]))


def _scaled_truth(sigma: float, steps: int, alpha: float, s: float) -> Truth:
    true = steps * alpha / (2 * (s * sigma) ** 2)
    return Truth(s >= 1, true, "every record clipped at every step: tight")


ScaledGD = CatalogueEntry(
    name="ScaledGD",
    family="gradient_descent",
    build=scaled_gd,
    claim_type=RenyiDP,
    defaults={**_DEFAULTS, "s": 0.5},
    claim_spec=_claim,
    domain_spec=Domain(low=0.0, high=1.0, min_size=0, max_size=5),
    truth_spec=_scaled_truth,
    witness_spec=DatasetPair(np.array([]), np.array([0.5])),
    description="T DP-GD steps with noise N(0, (sσG)²) but the claim of noise σG",
)

MicrobatchGD = CatalogueEntry(
    name="MicrobatchGD",
    family="gradient_descent",
    build=microbatch_gd,
    claim_type=RenyiDP,
    defaults=dict(_DEFAULTS),
    claim_spec=_claim,
    domain_spec=_WIDE,
    truth_spec=lambda sigma, steps, alpha: Truth(
        False, 4 * steps * alpha / (2 * sigma**2), "sensitivity 2G"
    ),
    witness_spec=_FLIP,
    description="micro-batches of two clipped to G, accounted as sensitivity G",
)

AverageThenClipGD = CatalogueEntry(
    name="AverageThenClipGD",
    family="gradient_descent",
    build=average_then_clip_gd,
    claim_type=RenyiDP,
    defaults=dict(_DEFAULTS),
    claim_spec=_claim,
    domain_spec=_WIDE,
    truth_spec=Truth(False, None, "clipped average moves by 2G; noise σG/n reveals n"),
    witness_spec=_FLIP,
    description="average gradient clipped to G, noise N(0, (σG/n)²)",
)

ENTRIES = (ScaledGD, MicrobatchGD, AverageThenClipGD)
