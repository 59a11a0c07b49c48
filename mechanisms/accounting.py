"""Claims of Gaussian-based mechanisms, from dp-accounting's RDP accountant (never by hand)."""

from __future__ import annotations

import dp_accounting
from dp_accounting import rdp

from dpfuzz.claims import RenyiDP


def renyi_claim(event: dp_accounting.DpEvent, alpha: float) -> RenyiDP:
    """(α, ε)-RDP of `event` under add/remove-one neighbours (RdpAccountant at order α)."""
    accountant = rdp.RdpAccountant(orders=[alpha], neighboring_relation=dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE)
    accountant.compose(event)
    return RenyiDP(alpha, float(accountant.rdp[0]))


def gaussian_steps(noise_multiplier: float, steps: int) -> dp_accounting.DpEvent:
    """`steps` Gaussian mechanisms of sensitivity 1 and noise σ = noise_multiplier."""
    return dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(noise_multiplier), steps)


def poisson_gaussian_steps(rate: float, noise_multiplier: float, steps: int) -> dp_accounting.DpEvent:
    """`steps` Poisson-subsampled (rate q) Gaussian mechanisms."""
    event = dp_accounting.PoissonSampledDpEvent(rate, dp_accounting.GaussianDpEvent(noise_multiplier))
    return dp_accounting.SelfComposedDpEvent(event, steps)
