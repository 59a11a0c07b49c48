"""Claims of Gaussian-based mechanisms, from dp-accounting's RDP accountant (never by hand).

dp-accounting is imported when a claim is first computed, not with the catalogue.
"""

from __future__ import annotations

from typing import Any

from dpfuzz.claims import RenyiDP


def renyi_claim(event: Any, alpha: float) -> RenyiDP:
    """(α, ε)-RDP of a dp-accounting `event` under add/remove-one neighbours (RdpAccountant at order
    α)."""
    import dp_accounting
    from dp_accounting import rdp

    accountant = rdp.RdpAccountant(
        orders=[alpha], neighboring_relation=dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE
    )
    accountant.compose(event)
    return RenyiDP(alpha, float(accountant.rdp[0]))


def gaussian_steps(noise_multiplier: float, steps: int) -> Any:
    """`steps` Gaussian mechanisms of sensitivity 1 and noise σ = noise_multiplier."""
    import dp_accounting

    return dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(noise_multiplier), steps)


def poisson_gaussian_steps(rate: float, noise_multiplier: float, steps: int) -> Any:
    """`steps` Poisson-subsampled (rate q) Gaussian mechanisms."""
    import dp_accounting

    event = dp_accounting.PoissonSampledDpEvent(
        rate, dp_accounting.GaussianDpEvent(noise_multiplier)
    )
    return dp_accounting.SelfComposedDpEvent(event, steps)
