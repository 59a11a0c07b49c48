"""How an adaptive audit spends its draws and its β (the arithmetic only; `engine.search` and
`engine.certification` run it).

**Search (racing).** `trials` candidate pairs are each sampled at ``start`` = cap / 8 outputs
per side; then, in rounds, the better half by search score (averaged over the pair's rounds)
keeps going with twice the samples, until one candidate is left or the per-side cap
``samples`` is reached; the best of those left is the leader, whose event is fitted. This is
successive halving (Karnin, Koren & Somekh 2013): every round costs about the same, and draws
go to the pairs that look most violating. Halving spends about a third of the search's nominal
draws (`trials` × `samples` per side); with `AuditPolicy.racing_fill`, an open-ended finder
proposes more first-round pairs until the schedule spends them (`racing_pairs`,
docs/decisions/0017-racing-fill.md). Search scores only rank pairs; nothing is certified from
them, so the search needs no share of β. The first round's size is
`AuditPolicy.start_divisor` (docs/decisions/0010-racing-schedule.md).

**Verification (sequential).** The event fitted on the leader's search samples is evaluated on
fresh samples in J looks with cumulative sizes m_1 < … < m_J = the verification cap, each the
double of the one before. Look j certifies at level β_j with

    β_j = β · m_j² / Σ_i m_i²,      so Σ_j β_j = β.

Each look's bound holds with probability ≥ 1 − β_j whatever the looks before it showed (its
Clopper–Pearson or Bernstein bound is exact for its own sample size), so by the union bound
the probability that *any* look falsely refutes a true claim is ≤ Σ_j β_j = β, however many
looks are taken and whenever the audit stops (a refutation, the draw budget, the clock). The
sizes and the β_j are fixed by the search, which uses other samples, before the first look.
Weights ∝ m² put most of β on the last, largest look (≈ 3/4 of it with doubling sizes), so a
clean audit loses little power to its early looks (its bound is ≈ 6% wider than a single
look at β), while a blatant violation is certified at the first look, with few draws.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Look:
    """One verification look: cumulative samples per side and its share of β."""

    samples: int
    beta: float


def racing_rounds(trials: int, start: int, cap: int) -> list[tuple[int, int]]:
    """(candidates kept, cumulative samples per side) of each round after the first: half the
    candidates (rounded up) with twice the samples, until one is left at `cap`."""
    rounds, alive, size = [], trials, start
    while alive > 1 or size < cap:
        alive, size = math.ceil(alive / 2), min(2 * size, cap)
        rounds.append((alive, size))
        if size == cap:  # more rounds at the cap would add no samples
            break
    return rounds


def racing_cost(trials: int, start: int, cap: int) -> int:
    """Draws (both sides) of the whole racing schedule; samples accumulate across rounds."""
    total, previous = trials * start, start
    for alive, size in racing_rounds(trials, start, cap):
        total += alive * (size - previous)
        previous = size
    return 2 * total


def plan_search(
    trials: int, cap: int, search_draws: int, min_start: int = 200, start_divisor: int = 8
) -> tuple[int, int]:
    """(first-round samples per side, per-side cap) of a racing schedule that fits in
    `search_draws`: the first round at cap / `start_divisor` (at least `min_start`), the cap
    halved until the schedule fits."""
    while (
        cap > min_start
        and racing_cost(trials, max(min_start, cap // start_divisor), cap) > search_draws
    ):
        cap //= 2
    cap = max(cap, min_start)
    return min(cap, max(min_start, cap // start_divisor)), cap


def racing_pairs(trials: int, start: int, cap: int, search_draws: float) -> int:
    """The most pairs, at least `trials`, whose racing schedule at (`start`, `cap`) costs at most
    `search_draws` (both sides): the draws halving leaves unspent go to more first-round pairs."""
    pairs = trials
    while racing_cost(pairs + 1, start, cap) <= search_draws:
        pairs += 1
    return pairs


def verification_looks(cap: int, first: int, beta: float, min_look: int = 1_000) -> list[Look]:
    """Cumulative look sizes doubling up to `cap` (the first at least `first` and `min_look`),
    with β_j ∝ m_j²."""
    sizes = [cap]
    while sizes[-1] // 2 >= max(first, min_look):
        sizes.append(sizes[-1] // 2)
    sizes.reverse()
    weights = [size**2 for size in sizes]
    total = sum(weights)
    return [Look(size, beta * weight / total) for size, weight in zip(sizes, weights)]
