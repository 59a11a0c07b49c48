"""The audit report: verdict, certified bounds, witness, power, trial history, reproduction data."""

from __future__ import annotations

import html
import json
import math
import platform
import sys
from dataclasses import dataclass, field
from importlib import metadata

from dpfuzz.claims import Claim
from dpfuzz.datasets import DatasetPair, format_dataset
from dpfuzz.domain import Domain
from dpfuzz.engine.stops import Stop
from dpfuzz.engine.verdict import Verdict
from dpfuzz.testers.base import TestResult
from dpfuzz.trials import TrialRecord

VERDICT_COLOURS = {
    Verdict.VIOLATED: "#cf222e",
    Verdict.NOT_REFUTED: "#1a7f37",
    Verdict.INCONCLUSIVE: "#9a6700",
}


@dataclass(frozen=True)
class AuditReport:
    """Outcome of `dpfuzz.audit`.

    Attributes
    ----------
    violated : the claim is refuted, with probability of a false alarm at most `beta`.
    verdict : `Verdict.VIOLATED`, `NOT_REFUTED` (with the power `power` states) or
        `INCONCLUSIVE` (the budget could not test the claim; `inconclusive` says why).
    inconclusive : why an audit that did not refute its claim could not have refuted a violation
        of a stated size (an untestable δ, no event that could refute the claim with the outputs
        verified, a call too slow); None otherwise (docs/decisions/0020).
    epsilon_lower_bound : certified ε lower bound (at the claim's δ, or Rényi ε at its α),
        valid at confidence 1 − beta; None when nothing positive is certified.
    witness : the neighbouring pair, ordered (d0, d1) as tested, that refutes the claim; None
        when the claim is not refuted.
    candidate : the pair chosen by the search and verified on fresh samples (also when the
        claim holds up).
    verification : the certified `TestResult` of the last verification look; `bound` and
        `threshold` are its.
    looks : the verification looks (samples per side, their share of β, bound, refuted).
    power : when nothing is refuted, what the last look could have detected on its event:
        ``{"divergence", "value", "claim_allows", "samples"}`` and, for (ε, δ) claims tested
        on an event, ``"epsilon"`` (the privacy loss on that event it would have refuted).
    history : the search evaluations in order; their numbers rank pairs and are not certified.
    beta : family-wise false-alarm probability of the whole audit (search and verification).
    seed : reproduces the audit exactly with the same arguments (see `reproducible`).
    draws : mechanism outputs drawn in all (probe, search, verification); `draw_rate` per second.
    reproducible : the same seed gives the same report (False when the mechanism does not take
        its randomness from the rng dpfuzz passes, or when max_seconds cut the audit).
    notes : what a reader should know (budget cuts, reproducibility).
    stops : the stages a budget or the clock cut short, each a `Stop` (reason and sentence; the
        sentence is also among `notes`).
    reproduce : how to run this audit again, when the caller knows (CLI, campaign, pytest).
    """

    violated: bool
    claim: Claim
    beta: float
    epsilon_lower_bound: float | None
    witness: DatasetPair | None
    candidate: DatasetPair
    verification: TestResult
    history: tuple[TrialRecord, ...]
    mechanism: str
    domain: Domain
    tester: str
    finder: str
    seed: int
    trials: int
    samples: int
    verify_samples: int
    settings: dict = field(default_factory=dict)
    draws: int = 0
    draw_rate: float = math.inf
    looks: tuple = ()
    power: dict | None = None
    reproducible: bool = True
    notes: tuple[str, ...] = ()
    stops: tuple[Stop, ...] = ()
    reproduce: str = ""
    seconds: dict = field(default_factory=dict)
    versions: dict = field(default_factory=dict)
    finder_details: dict = field(default_factory=dict)
    profile: dict | None = None  # `ProfileEstimate.to_dict()` of the verified pair (1-D outputs)
    inconclusive: str | None = None
    distributions: dict | None = None  # `output_histograms` of the verified pair (1-D outputs)
    search_score: str = "held-out estimate − claim's limit"  # what each trial's score measures

    @property
    def verdict(self) -> Verdict:
        if self.violated:
            return Verdict.VIOLATED
        return Verdict.INCONCLUSIVE if self.inconclusive else Verdict.NOT_REFUTED

    @property
    def tested(self) -> bool:
        """Whether any verification output was drawn (False when a slow call ended the audit
        first)."""
        return min(self.verification.num_samples) > 0

    def history_pairs(self) -> list[DatasetPair]:
        """The pairs the finder proposed, in order: ``audit(..., finder=report.history_pairs(),
        seed=report.seed)`` replays the search exactly."""
        return [record.pair for record in self.history if record.round == 0]

    @property
    def bound(self) -> float:
        """Certified lower bound on the divergence the claim limits."""
        return self.verification.bound

    @property
    def threshold(self) -> float:
        """The claim's limit on that divergence."""
        return self.verification.threshold

    @property
    def witness_trial(self) -> int | None:
        """1-based number of the search trial that proposed the verified pair (None if the
        finder named a pair it never proposed)."""
        for record in self.history:
            if record.pair in (self.candidate, self.candidate.swapped()):
                return record.trial + 1
        return None

    def to_dict(self) -> dict:
        return {
            "verdict": self.verdict.value,
            "violated": self.violated,
            "inconclusive": self.inconclusive,
            "claim": self.claim.to_dict(),
            "claim_text": self.claim.describe(),
            "beta": self.beta,
            "epsilon_lower_bound": self.epsilon_lower_bound,
            "bound": self.bound,
            "threshold": self.threshold,
            "witness": None if self.witness is None else self.witness.to_dict(),
            "candidate": self.candidate.to_dict(),
            "difference": self.domain.relation.difference(self.candidate),
            "verification": self.verification.to_dict(),
            "looks": list(self.looks),
            "power": self.power,
            "mechanism": self.mechanism,
            "domain": self.domain.to_dict(),
            "tester": self.tester,
            "finder": self.finder,
            "finder_details": self.finder_details,
            "seed": self.seed,
            "trials": self.trials,
            "witness_trial": self.witness_trial,
            "samples": self.samples,
            "verify_samples": self.verify_samples,
            "settings": self.settings,
            "draws": self.draws,
            "draw_rate": None if math.isinf(self.draw_rate) else self.draw_rate,
            "reproducible": self.reproducible,
            "notes": list(self.notes),
            "stops": [stop.to_dict() for stop in self.stops],
            "reproduce": self.reproduce,
            "seconds": self.seconds,
            "versions": self.versions,
            "history": [record.to_dict() for record in self.history],
            "profile": self.profile,
            "distributions": self.distributions,
            "search_score": self.search_score,
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    # -- text ----------------------------------------------------------------------------------
    def headline(self) -> str:
        if self.violated:
            return f"VIOLATED: {self.mechanism} does not satisfy {self.claim.describe()}"
        if self.inconclusive:
            return (
                f"INCONCLUSIVE: this audit could not test {self.mechanism} against"
                f" {self.claim.describe()}"
            )
        return f"not refuted: no violation of {self.claim.describe()} found for {self.mechanism}"

    def power_text(self) -> str | None:
        """The power statement in words (None when the claim was refuted)."""
        if self.power is None:
            return None
        power = self.power
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

    def certified_text(self) -> str:
        """The certified bound against what the claim allows (a race's: its e-value)."""
        result = self.verification
        if result.details.get("sequential"):
            return (
                f"e-value {result.bound:.4g} against {result.details['hypothesis']} (refutes above"
                f" 1/β = {result.threshold:g})"
            )
        return f"{result.divergence} ≥ {result.bound:.6g} (the claim allows {result.threshold:.6g})"

    def _bound_line(self) -> str:
        """The summary's line of `certified_text`."""
        result = self.verification
        if result.details.get("sequential"):
            return "  e-value           " + self.certified_text().removeprefix("e-value ")
        return f"  {result.divergence} >= {result.bound:.6g}  (claim allows {result.threshold:.6g})"

    def _draws_line(self, search: list) -> str:
        """What was drawn, and how it was spent."""
        result, total = self.verification, self.seconds.get("total", 0.0)
        if result.details.get("sequential"):
            pairs, rounds = result.details["pairs"], result.details["rounds"]
            return (
                f"  draws             {self.draws:,} outputs: {pairs} pair{'s' * (pairs != 1)}"
                f" raced in {rounds} round{'s' * (rounds != 1)}, {result.num_samples[0]:,} per"
                f" side bet on this pair's event; {total:.2f} s"
            )
        looks = f"{len(self.looks)} look{'s' if len(self.looks) != 1 else ''}"
        searched = (
            f"{len(search)} trial{'s' if len(search) != 1 else ''} searched, "
            if search
            else f"one pair fitted on {self.samples:,} per side, "
        )
        return (
            f"  draws             {self.draws:,} outputs: {searched}verified on"
            f" {result.num_samples[0]:,} fresh per side ({looks}); {total:.2f} s"
        )

    def summary(self) -> str:
        """The lines a person reads first."""
        result = self.verification
        epsilon = (
            "none certified"
            if self.epsilon_lower_bound is None
            else f"{self.epsilon_lower_bound:.4g}"
        )
        claimed = getattr(self.claim, "epsilon", None)
        difference, d0, d1 = self.domain.describe_pair(self.candidate)
        search = [record for record in self.history if record.round == 0]
        lines = [
            self.headline(),
            *([f"  why               {self.inconclusive}"] if self.inconclusive else []),
        ]
        if self.tested:
            lines += [
                f"  confidence        1 - beta = {1 - self.beta:g} (whole audit)",
                # a privacy-loss bound is the ε bound: one line states both
                *([] if result.divergence == "privacy_loss" else [self._bound_line()]),
                f"  epsilon lower bound  {epsilon}"
                + ("" if claimed is None else f" (claimed {claimed:g})"),
            ]
        lines += [
            f"  {'witness' if self.violated else 'pair':<18}{difference}",
            f"  {'':<18}{d0}",
            f"  {'':<18}{d1}",
        ]
        if self.tested:
            lines.append(f"  event             {result.event}")
            if not self.violated and self.power_text():
                lines.append(f"  power             {self.power_text()}")
            lines.append(self._draws_line(search))
        else:
            lines.append(
                f"  draws             {self.draws:,} outputs in"
                f" {self.seconds.get('total', 0.0):.2f} s, none verified"
            )
        lines.append(f"  tester / finder   {self.tester} / {self.finder}, seed {self.seed}")
        if self.reproduce:
            lines.append(f"  reproduce         {self.reproduce}")
        elif self.reproducible:
            lines.append(f"  reproduce         the same call with seed={self.seed}")
        lines += [f"  note              {note}" for note in self.notes]
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """The summary and the search history as Markdown."""
        rows = [
            f"| {record.trial + 1} | {record.round} | {format_dataset(record.pair.d0)} |"
            f" {format_dataset(record.pair.d1)} | {record.samples:,} | {record.score:.4g} |"
            for record in self.history
        ]
        return "\n".join(
            [
                "# dpfuzz audit",
                "",
                "```",
                self.summary(),
                "```",
                "",
                f"| trial | round | d0 | d1 | samples per side | {self.search_score} |",
                "|---:|---:|---|---|---:|---:|",
                *rows,
                "",
            ]
        )

    def meaning(self) -> str:
        """The verdict in one sentence a manager reads first."""
        confidence = (
            f"confidence {1 - self.beta:g} (a false alarm has probability at most {self.beta:g} for"
            " the whole audit)"
        )
        if self.violated:
            epsilon = (
                ""
                if self.epsilon_lower_bound is None
                else f" Its ε is at least {self.epsilon_lower_bound:.4g}."
            )
            return (
                f"The claim {self.claim.describe()} is refuted with {confidence}: the mechanism is"
                f" not as private as claimed.{epsilon}"
            )
        if self.inconclusive:
            return (
                f"This audit could not test the claim {self.claim.describe()}, so it says nothing"
                " either way; the table below says why, and what would test it."
            )
        return (
            f"No violation of {self.claim.describe()} was found, and the audit could have found one"
            " of the size its power states. That is evidence, not a proof of privacy: smaller"
            " violations, or ones on other datasets, may remain."
        )

    def to_html(self) -> str:
        """A self-contained page: the verdict and what it means, the pair (what differs
        highlighted), the facts, the two output distributions with the event shaded (1-D), the
        privacy profile, the search, and a glossary."""
        delta = getattr(self.claim, "delta", 0)
        epsilon = (
            "none certified"
            if self.epsilon_lower_bound is None
            else (
                f"{self.epsilon_lower_bound:.4g}: with confidence {1 - self.beta:g}, the"
                " mechanism's ε" + ("" if not delta else f" at δ = {delta:g}") + " is at least this"
            )
        )
        power = self.power_text()
        tested = (
            [
                ("certified bound", self.certified_text()),
                ("ε lower bound", epsilon),
                ("event", self.verification.event or "—"),
                *([("power", power)] if power else []),
            ]
            if self.tested
            else []
        )
        facts = [
            ("claim", self.claim.describe()),
            *([("why inconclusive", self.inconclusive)] if self.inconclusive else []),
            *tested,
            ("confidence", f"1 − β = {1 - self.beta:g} for the whole audit"),
            ("tester / finder", f"{self.tester} / {self.finder}"),
            ("draws", f"{self.draws:,} outputs in {self.seconds.get('total', 0.0):.2f} s"),
            ("seed", str(self.seed)),
            ("reproduce", self.reproduce or f"seed={self.seed}"),
            *(("note", note) for note in self.notes),
        ]
        return html_page(
            f"dpfuzz audit: {self.mechanism}",
            self.headline(),
            VERDICT_COLOURS[self.verdict],
            "Witness" if self.violated else "Verified pair",
            self.domain.describe_pair(self.candidate),
            facts,
            self.distributions_html() + self.profile_html(),
            self.history,
            self.search_score,
            meaning=self.meaning(),
        )

    def distributions_html(self) -> str:
        """The two output histograms with the certified event shaded (1-D outputs)."""
        if not self.distributions:
            return ""
        from dpfuzz.output_histograms import histogram_png

        samples = self.distributions["samples"]
        try:
            labels = (f"d0 ({samples[0]:,} outputs)", f"d1 ({samples[1]:,} outputs)")
            png = histogram_png(self.distributions, labels, self.verification.event)
            image = f'<img alt="output distributions" src="data:image/png;base64,{png}">'
        except ImportError:
            return ""
        shaded = (
            " The shaded outputs form the certified event."
            if self.distributions.get("in_event")
            else ""
        )
        return (
            "<h2>Outputs of the two datasets</h2><p>The verification outputs of the pair above, as"
            f" shares of each side's outputs.{shaded} Where one side's line is far above the"
            " other's inside the event, the mechanism tells the datasets apart.</p>" + image
        )

    def profile_html(self, gaussian: bool | None = None) -> str:
        """The verified pair's privacy profile and trade-off bound: plot and summary; the readings
        that assume a Gaussian trade-off curve only for a Gaussian claim (or when `gaussian`)."""
        if not self.profile:
            return ""
        from dpfuzz.claims import GaussianDP
        from dpfuzz.profiles import ProfileEstimate

        gaussian = isinstance(self.claim, GaussianDP) if gaussian is None else gaussian
        profile = ProfileEstimate.from_dict(self.profile)
        text = html.escape(profile.summary(gaussian=gaussian))
        try:
            image = (
                '<img alt="privacy profile and trade-off curve"'
                f' src="data:image/png;base64,{profile.png_base64(gaussian)}">'
            )
        except ImportError:
            image = "<p>Install <code>dpfuzz[report]</code> (matplotlib) for the plot.</p>"
        assumption = " The μ readings assume a Gaussian trade-off curve." if gaussian else ""
        return (
            "<h2>Privacy profile of the verified pair</h2><p>A description of the verification"
            " outputs at its own confidence, apart from the"
            f" verdict.{assumption}</p>{image}<pre>{text}</pre>"
        )


GLOSSARY = (
    ("violated", "the claim is refuted: a certified lower bound exceeds what the claim allows."),
    (
        "not refuted",
        "no violation found, by an audit that could have found one of the size its power states.",
    ),
    (
        "inconclusive",
        (
            "the audit could not test the claim (too few outputs for its δ, or a call too slow); it"
            " says nothing either way."
        ),
    ),
    (
        "β, confidence",
        (
            "β bounds the probability that the whole audit flags a correct mechanism; confidence is"
            " 1 − β."
        ),
    ),
    (
        "ε lower bound",
        "with confidence 1 − β, the mechanism's ε (at the claim's δ) is at least this.",
    ),
    (
        "event",
        (
            "a set of outputs, chosen on other outputs than those it is certified on; its"
            " probabilities under the two datasets bound the privacy loss."
        ),
    ),
    (
        "hockey-stick divergence",
        "P(S) − e^ε·Q(S) for the event S; an (ε, δ) claim allows at most δ.",
    ),
    (
        "e-value",
        "a sequential audit's evidence against the claim, valid at every look: the claim is refuted"
        " when it exceeds 1/β (a true claim reaches that with probability at most β).",
    ),
    (
        "power",
        "what this audit would have refuted on its event: violations smaller than that may remain.",
    ),
    ("witness", "the two neighbouring datasets on which the claim is refuted."),
)


_PAGE_STYLE = (
    "body{font-family:system-ui,sans-serif;margin:2rem;color:#1f2328}"
    "td,th{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}"
    "th{background:#f6f8fa}table{border-collapse:collapse}"
    ".diff{background:#fff8c5;font-weight:600}code{font-size:14px}"
    ".meaning{font-size:1.1rem;max-width:60rem}dt{font-weight:600;margin-top:.4rem}"
    "img{max-width:100%}"
)


def html_page(
    title: str,
    headline: str,
    colour: str,
    pair_heading: str,
    described_pair: list[str],
    facts: list[tuple[str, str]],
    sections: str,
    history: tuple[TrialRecord, ...],
    score_heading: str = "held-out estimate − claim's limit",
    meaning: str = "",
) -> str:
    """A self-contained report page: the headline and its `meaning`, a pair (what differs
    highlighted), a table of facts, more `sections` (HTML, may be empty: pictures, the privacy
    profile), the search history (each trial's score under `score_heading`) and the glossary."""
    escape = html.escape
    difference, d0, d1 = described_pair
    rows = "".join(
        f"<tr><td>{record.trial + 1}</td><td>{record.round}</td>"
        f"<td>{escape(format_dataset(record.pair.d0))}</td>"
        f"<td>{escape(format_dataset(record.pair.d1))}</td>"
        f"<td>{record.samples:,}</td><td>{record.score:.4g}</td></tr>"
        for record in history
    )
    table = "".join(
        f"<tr><th>{escape(name)}</th><td>{escape(value)}</td></tr>" for name, value in facts
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_PAGE_STYLE}</style></head><body>"
        f'<h1 style="color:{colour}">{escape(headline)}</h1>'
        + (f'<p class="meaning">{escape(meaning)}</p>' if meaning else "")
        + f"<h2>{escape(pair_heading)}</h2>"
        f'<p class="diff"><code>{escape(difference)}</code></p>'
        f"<p><code>{escape(d0)}</code><br><code>{escape(d1)}</code></p>"
        f"<table>{table}</table>{sections}"
        + (
            "<h2>Search</h2><table><tr><th>trial</th><th>round</th><th>d0</th><th>d1</th>"
            "<th>samples"
            f" per side</th><th>{escape(score_heading)}</th></tr>{rows}</table>"
            if history
            else ""
        )
        + "<h2>Glossary</h2><dl>"
        + "".join(f"<dt>{escape(term)}</dt><dd>{escape(text)}</dd>" for term, text in GLOSSARY)
        + "</dl></body></html>\n"
    )


def environment_versions() -> dict:
    """Versions of Python, the platform and the packages that shape results."""
    versions: dict[str, str | None] = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
    }
    for package in ("dpfuzz", "numpy", "scipy", "scikit-learn"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return versions
