"""An audit report in words: its headline, summary, power statement, meaning and Markdown."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from dpfuzz.datasets import format_dataset

if TYPE_CHECKING:
    from dpfuzz.report import AuditReport


def headline(report: AuditReport) -> str:
    if report.violated:
        return f"VIOLATED: {report.mechanism} does not satisfy {report.claim.describe()}"
    if report.inconclusive:
        return (
            f"INCONCLUSIVE: this audit could not test {report.mechanism} against"
            f" {report.claim.describe()}"
        )
    return f"not refuted: no violation of {report.claim.describe()} found for {report.mechanism}"


def power_text(report: AuditReport) -> str | None:
    """The power statement in words (None when the claim was refuted)."""
    if report.power is None:
        return None
    power = report.power
    if "text" in power:
        return power["text"] + "; smaller violations, or ones elsewhere, may remain"
    if power["value"] is None and power.get("count_p_needed") is not None:
        return (
            f"the event held none of the {power['samples']:,} verification outputs under Q; "
            f"{power['count_p_needed']:,} under P would have refuted the claim"
        )
    if power.get("more_outputs_help") is False:
        return (
            "no count under P could have refuted the claim on this event at any sample size:"
            " it holds too many of the other dataset's outputs; smaller violations, or ones"
            " elsewhere, may remain"
        )
    if power["value"] is None or math.isinf(power["value"]):
        return (
            f"with {power['samples']:,} verification outputs per side no outcome on this event"
            " could have refuted the claim; raise verify_samples or max_draws"
        )
    text = (
        f"{power['samples']:,} verification outputs per side would have refuted the claim had"
        f" {power['divergence']} on the event reached {power['value']:.4g} (the claim allows"
        f" {power['claim_allows']:.4g})"
    )
    if power.get("epsilon") is not None and power["divergence"] != "privacy_loss":
        text += f", i.e. a privacy loss of ε ≥ {power['epsilon']:.4g} on that event"
    return text + "; smaller violations, or ones elsewhere, may remain"


def certified_text(report: AuditReport) -> str:
    """The certified bound against what the claim allows (a race's: its e-value)."""
    result = report.verification
    if result.details.get("sequential"):
        return (
            f"e-value {result.bound:.4g} against {result.details['hypothesis']} (refutes above"
            f" 1/β = {result.threshold:g})"
        )
    return f"{result.divergence} ≥ {result.bound:.6g} (the claim allows {result.threshold:.6g})"


def bound_line(report: AuditReport) -> str:
    """The summary's line of `certified_text`."""
    result = report.verification
    if result.details.get("sequential"):
        return "  e-value           " + certified_text(report).removeprefix("e-value ")
    return f"  {result.divergence} >= {result.bound:.6g}  (claim allows {result.threshold:.6g})"


def draws_line(report: AuditReport, search: list) -> str:
    """What was drawn, and how it was spent."""
    result, total = report.verification, report.seconds.get("total", 0.0)
    if result.details.get("sequential"):
        pairs, rounds = result.details["pairs"], result.details["rounds"]
        return (
            f"  draws             {report.draws:,} outputs: {pairs} pair{'s' * (pairs != 1)}"
            f" raced in {rounds} round{'s' * (rounds != 1)}, {result.num_samples[0]:,} per"
            f" side bet on this pair's event; {total:.2f} s"
        )
    looks = f"{len(report.looks)} look{'s' if len(report.looks) != 1 else ''}"
    searched = (
        f"{len(search)} trial{'s' if len(search) != 1 else ''} searched, "
        if search
        else f"one pair fitted on {report.samples:,} per side, "
    )
    return (
        f"  draws             {report.draws:,} outputs: {searched}verified on"
        f" {result.num_samples[0]:,} fresh per side ({looks}); {total:.2f} s"
    )


def summary(report: AuditReport) -> str:
    """The lines a person reads first."""
    result = report.verification
    epsilon = (
        "none certified"
        if report.epsilon_lower_bound is None
        else f"{report.epsilon_lower_bound:.4g}"
    )
    claimed = getattr(report.claim, "epsilon", None)
    difference, d0, d1 = report.domain.describe_pair(report.candidate)
    search = [record for record in report.history if record.round == 0]
    lines = [
        headline(report),
        *([f"  why               {report.inconclusive}"] if report.inconclusive else []),
    ]
    if report.tested:
        lines += [
            f"  confidence        1 - beta = {1 - report.beta:g} (whole audit)",
            # a privacy-loss bound is the ε bound: one line states both
            *([] if result.divergence == "privacy_loss" else [bound_line(report)]),
            f"  epsilon lower bound  {epsilon}"
            + ("" if claimed is None else f" (claimed {claimed:g})"),
        ]
    lines += [
        f"  {'witness' if report.violated else 'pair':<18}{difference}",
        f"  {'':<18}{d0}",
        f"  {'':<18}{d1}",
    ]
    if report.tested:
        lines.append(f"  event             {result.event}")
        if not report.violated and power_text(report):
            lines.append(f"  power             {power_text(report)}")
        lines.append(draws_line(report, search))
    else:
        lines.append(
            f"  draws             {report.draws:,} outputs in"
            f" {report.seconds.get('total', 0.0):.2f} s, none verified"
        )
    lines.append(f"  tester / finder   {report.tester} / {report.finder}, seed {report.seed}")
    if report.reproduce:
        lines.append(f"  reproduce         {report.reproduce}")
    elif report.reproducible:
        lines.append(f"  reproduce         the same call with seed={report.seed}")
    lines += [f"  note              {note}" for note in report.notes]
    return "\n".join(lines)


def markdown(report: AuditReport) -> str:
    """The summary and the search history as Markdown."""
    rows = [
        f"| {record.trial + 1} | {record.round} | {format_dataset(record.pair.d0)} |"
        f" {format_dataset(record.pair.d1)} | {record.samples:,} | {record.score:.4g} |"
        for record in report.history
    ]
    return "\n".join(
        [
            "# dpfuzz audit",
            "",
            "```",
            summary(report),
            "```",
            "",
            f"| trial | round | d0 | d1 | samples per side | {report.search_score} |",
            "|---:|---:|---|---|---:|---:|",
            *rows,
            "",
        ]
    )


def meaning(report: AuditReport) -> str:
    """The verdict in one sentence a manager reads first."""
    confidence = (
        f"confidence {1 - report.beta:g} (a false alarm has probability at most {report.beta:g} for"
        " the whole audit)"
    )
    if report.violated:
        epsilon = (
            ""
            if report.epsilon_lower_bound is None
            else f" Its ε is at least {report.epsilon_lower_bound:.4g}."
        )
        return (
            f"The claim {report.claim.describe()} is refuted with {confidence}: the mechanism is"
            f" not as private as claimed.{epsilon}"
        )
    if report.inconclusive:
        return (
            f"This audit could not test the claim {report.claim.describe()}, so it says nothing"
            " either way; the table below says why, and what would test it."
        )
    return (
        f"No violation of {report.claim.describe()} was found, and the audit could have found one"
        " of the size its power states. That is evidence, not a proof of privacy: smaller"
        " violations, or ones on other datasets, may remain."
    )
