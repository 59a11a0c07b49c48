"""An audit report as a self-contained HTML page, and the page every report shares."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from dpfuzz.datasets import format_dataset
from dpfuzz.engine.verdict import Verdict
from dpfuzz.trials import TrialRecord

if TYPE_CHECKING:
    from dpfuzz.report import AuditReport

VERDICT_COLOURS = {
    Verdict.VIOLATED: "#cf222e",
    Verdict.NOT_REFUTED: "#1a7f37",
    Verdict.INCONCLUSIVE: "#9a6700",
}


def audit_page(report: AuditReport) -> str:
    """A self-contained page: the verdict and what it means, the pair (what differs
    highlighted), the facts, the two output distributions with the event shaded (1-D), the
    privacy profile, the search, and a glossary."""
    delta = getattr(report.claim, "delta", 0)
    epsilon = (
        "none certified"
        if report.epsilon_lower_bound is None
        else (
            f"{report.epsilon_lower_bound:.4g}: with confidence {1 - report.beta:g}, the"
            " mechanism's ε" + ("" if not delta else f" at δ = {delta:g}") + " is at least this"
        )
    )
    power = report.power_text()
    tested = (
        [
            ("certified bound", report.certified_text()),
            ("ε lower bound", epsilon),
            ("event", report.verification.event or "—"),
            *([("power", power)] if power else []),
        ]
        if report.tested
        else []
    )
    facts = [
        ("claim", report.claim.describe()),
        *([("why inconclusive", report.inconclusive)] if report.inconclusive else []),
        *tested,
        ("confidence", f"1 − β = {1 - report.beta:g} for the whole audit"),
        ("tester / finder", f"{report.tester} / {report.finder}"),
        ("draws", f"{report.draws:,} outputs in {report.seconds.get('total', 0.0):.2f} s"),
        ("seed", str(report.seed)),
        ("reproduce", report.reproduce or f"seed={report.seed}"),
        *(("note", note) for note in report.notes),
    ]
    return html_page(
        f"dpfuzz audit: {report.mechanism}",
        report.headline(),
        VERDICT_COLOURS[report.verdict],
        "Witness" if report.violated else "Verified pair",
        report.domain.describe_pair(report.candidate),
        facts,
        distributions_html(report) + profile_html(report),
        report.history,
        report.search_score,
        meaning=report.meaning(),
    )


def distributions_html(report: AuditReport) -> str:
    """The two output histograms with the certified event shaded (1-D outputs)."""
    if not report.distributions:
        return ""
    from dpfuzz.output_histograms import histogram_png

    samples = report.distributions["samples"]
    try:
        labels = (f"d0 ({samples[0]:,} outputs)", f"d1 ({samples[1]:,} outputs)")
        png = histogram_png(report.distributions, labels, report.verification.event)
        image = f'<img alt="output distributions" src="data:image/png;base64,{png}">'
    except ImportError:
        return ""
    shaded = (
        " The shaded outputs form the certified event."
        if report.distributions.get("in_event")
        else ""
    )
    return (
        "<h2>Outputs of the two datasets</h2><p>The verification outputs of the pair above, as"
        f" shares of each side's outputs.{shaded} Where one side's line is far above the"
        " other's inside the event, the mechanism tells the datasets apart.</p>" + image
    )


def profile_html(report: AuditReport, gaussian: bool | None = None) -> str:
    """The verified pair's privacy profile and trade-off bound: plot and summary; the readings
    that assume a Gaussian trade-off curve only for a Gaussian claim (or when `gaussian`)."""
    if not report.profile:
        return ""
    from dpfuzz.claims import GaussianDP
    from dpfuzz.profiles import ProfileEstimate

    gaussian = isinstance(report.claim, GaussianDP) if gaussian is None else gaussian
    profile = ProfileEstimate.from_dict(report.profile)
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
