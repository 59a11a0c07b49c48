"""Campaign reports: Markdown and a self-contained HTML page (plots inline, no network).

For each audit: the verdict against the target's known truth (caught / missed / false alarm),
the certified ε lower bound against the claim, the trial that proposed the witness and the
seconds. Plots (with the ``report`` extra, matplotlib): ε lower bound against the claimed ε,
and the search's divergence estimate per trial. ``compare`` lists what changed between runs.
A run *fails* when a known bug went undetected, a correct mechanism was flagged, a claim
without a declared ``truth = "violates"`` was refuted, or an audit errored; failures are
listed first. Each audit also gets its own JSON and HTML report under ``audits/``, linked
from the table.
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

from dpfuzz.files import write_atomically
from dpfuzz.outcomes import FAILING, Outcome, failing

if TYPE_CHECKING:
    from dpfuzz.store import ResultsStore

_COLOURS = {
    Outcome.CAUGHT: "#1a7f37",
    Outcome.OK: "#0969da",
    Outcome.MISSED: "#cf222e",
    Outcome.FALSE_ALARM: "#bf3989",
    Outcome.REFUTED: "#bc4c00",
    Outcome.ERROR: "#9a6700",
    Outcome.CRASHED: "#9a6700",
    Outcome.TIMED_OUT: "#9a6700",
    Outcome.INCONCLUSIVE: "#8250df",
    Outcome.SKIPPED: "#57606a",
}

# (outcome, what it means), for the glossary
OUTCOMES = tuple((outcome.value, outcome.meaning) for outcome in Outcome)


def failures(summaries: list[dict], allow_inconclusive: bool = False) -> list[dict]:
    """Audits whose outcome should fail a nightly job."""
    outcomes = failing(allow_inconclusive)
    return [summary for summary in summaries if summary.get("outcome") in outcomes]


def failure_text(failure: dict) -> str:
    """What went wrong in one failing audit, and which it is (finder and seed)."""
    if failure["outcome"] == "incomplete":
        return failure["error"]
    verb = (
        "not refuted, though the truth violates it" if failure["outcome"] == "missed" else "refuted"
    )
    bound = "" if failure.get("epsilon_lower_bound") is None else f", ε ≥ {_eps(failure)}"
    detail = failure.get("error") or f"{failure['claim']} {verb}{bound}"
    if failure["outcome"] == "inconclusive":
        detail = f"{failure['claim']} inconclusive: {failure.get('inconclusive')}"
    if failure["outcome"] == "refuted":
        detail += ' (declare truth = "violates" if this is a known bug)'
    return (
        f"{failure['target']} (finder {failure.get('finder')}, seed {failure.get('seed')}):"
        f" {detail}"
    )


def verdict_sentence(run: dict, summaries: list[dict], missing: str | None) -> str:
    """The run's result in one sentence, the one a manager reads first."""
    failed = failures(summaries, run["config"].get("allow_inconclusive", False))
    if not failed and not missing:
        allowed = counts(summaries).get("inconclusive", 0)
        if allowed:
            return (
                f"Passes: all {len(summaries)} audits behave as documented, {allowed} of them"
                " inconclusive, which this run's config allows."
            )
        return f"Passes: all {len(summaries)} audits behave as documented."
    reasons = [f"{count} {name}" for name, count in sorted(counts(failed).items())]
    if missing:
        reasons.append("the run is incomplete")
    return f"Fails because {', '.join(reasons)} (listed below)."


def run_time(run: dict, last_finished: str | None) -> str:
    """The run's start and how long it took to its last stored audit, in words."""
    from datetime import datetime

    try:
        seconds = (
            datetime.fromisoformat(str(last_finished)) - datetime.fromisoformat(run["started"])
        ).total_seconds()
    except (ValueError, TypeError, KeyError):
        return f"Started {run.get('started')}"
    return f"Started {run['started']}, {seconds / 60:.1f} min to its last stored audit"


def counts(summaries: list[dict]) -> dict[str, int]:
    result: dict[str, int] = {}
    for summary in summaries:
        result[summary["outcome"]] = result.get(summary["outcome"], 0) + 1
    return result


def _identity(summary: dict) -> str:
    """Which audit a row is, across runs (settings may change between runs; the target may not)."""
    return json.dumps(
        [summary["target"], summary.get("params", {}), summary.get("finder"), summary.get("seed")],
        sort_keys=True,
    )


def compare(before: list[dict], after: list[dict]) -> list[dict]:
    """Audits (by target, parameters, finder and seed) whose outcome changed, appeared or
    disappeared. A certified ε that moved under the same outcome is not a change: a release that
    draws its own randomness (most libraries') certifies a different bound on every run."""
    old = {_identity(summary): summary for summary in before}
    new = {_identity(summary): summary for summary in after}
    changes = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a is None or b is None or a.get("outcome") != b.get("outcome"):
            either = a if a is not None else new[key]
            label = f"{either['target']} (finder {either.get('finder')}, seed {either.get('seed')})"
            changes.append({"key": key, "target": label, "before": a, "after": b})
    return changes


def _eps(summary: dict | None) -> str:
    if summary is None or summary.get("epsilon_lower_bound") is None:
        return "—"
    return epsilon_text(summary["epsilon_lower_bound"], summary.get("claimed_epsilon"))


def epsilon_text(value: float, claimed: float | None = None) -> str:
    """`value` to 3 significant digits, or as many more (up to 6) as tell it from the claimed ε:
    a refutation of ε = 1 reads "ε ≥ 1.004", never "ε ≥ 1"."""
    for digits in range(3, 7):
        text = f"{value:.{digits}g}"
        if claimed is None or value == claimed or text != f"{claimed:.{digits}g}":
            return text
    return text


def ordered(summaries: list[dict]) -> list[dict]:
    """Failing audits first (in FAILING order), then the rest in the order they finished."""
    rank = {name: index for index, name in enumerate(FAILING)}
    return sorted(summaries, key=lambda s: rank.get(s.get("outcome", ""), len(FAILING)))


def audit_stem(key: str) -> str:
    """A file name for one audit's own reports: the key's safe characters; one longer than 120
    becomes its first 100 and its last 16, the audit's hash, which keeps it unique."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", key)
    return stem if len(stem) <= 120 else f"{stem[:100]}_{stem[-16:]}"


def _rows(summaries: list[dict]) -> list[list[str]]:
    rows = []
    for s in summaries:
        rows.append(
            [
                s["target"] + ("" if not s.get("params") else f" {s['params']}"),
                s["claim"],
                s.get("truth") or "unknown",
                s["outcome"],
                _eps(s),
                s.get("tester", ""),
                s.get("finder", ""),
                str(s.get("seed", "")),
                str(s.get("trials_to_witness") or "—"),
                f"{s.get('seconds', 0):.2f}",
            ]
        )
    return rows


_HEADER = [
    "target",
    "claim",
    "truth",
    "verdict",
    "ε ≥",
    "tester",
    "finder",
    "seed",
    "witness trial",
    "seconds",
]


def _md(value: object) -> str:
    """`value` as Markdown text: no HTML (a results database is data), no table break."""
    return html.escape(str(value), quote=False).replace("|", "\\|").replace("\n", " ")


def markdown(
    run: dict, summaries: list[dict], changes: list[dict] | None = None, missing: str | None = None
) -> str:
    tally = ", ".join(f"{count} {_md(name)}" for name, count in sorted(counts(summaries).items()))
    config = run["config"]
    lines = [
        f"# dpfuzz campaign run {_md(run['run_id'])}",
        "",
        f"**{_md(verdict_sentence(run, summaries, missing))}**",
        "",
        f"Started {_md(run['started'])}; {len(summaries)} audits: {tally}.",
        f"Budget {_md(config['budget'])}, β = {_md(config.get('beta', '?'))} per audit.",
        "",
        *([f"**Incomplete:** {_md(missing)}.", ""] if missing else []),
    ]
    lines += [
        f"- **{_md(failure['outcome'])}**: {_md(failure_text(failure))}"
        for failure in failures(summaries)
    ]
    lines += [
        f"- skipped: {_md(s['target'])}: {_md(s.get('error', ''))}"
        for s in summaries
        if s.get("outcome") == "skipped"
    ]
    lines += [
        "",
        "| " + " | ".join(_HEADER) + " |",
        "|" + "---|" * len(_HEADER),
        *("| " + " | ".join(_md(cell) for cell in row) + " |" for row in _rows(ordered(summaries))),
        "",
    ]
    if changes is not None:
        lines += ["", "## Changes", ""] + (
            [
                f"- {_md(c['target'])}: {_md((c['before'] or {}).get('outcome', 'absent'))} (ε ≥"
                f" {_eps(c['before'])}) → {_md((c['after'] or {}).get('outcome', 'absent'))} (ε ≥"
                f" {_eps(c['after'])})"
                for c in changes
            ]
            or ["No changes: every audit has the same verdict."]
        )
    return "\n".join(lines) + "\n"


_MARKERS = {
    "caught": ("#1a7f37", "o"),
    "ok": ("#0969da", "o"),
    "not refuted": ("#57606a", "o"),
    "inconclusive": ("#8250df", "s"),
    "missed": ("#cf222e", "X"),
    "false alarm": ("#bf3989", "X"),
    "refuted": ("#bc4c00", "^"),
}


def _is_renyi(summary: dict) -> bool:
    return summary.get("claim_type") == "RenyiDP" or "RDP" in summary.get("claim", "")


def plots(summaries: list[dict]) -> dict[str, str]:
    """The certified ε against the claim, one panel per kind of ε, as base64 PNGs; empty without
    matplotlib (``pip install 'dpfuzz[report]'``)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return {}
    claimed = [s for s in summaries if s.get("claimed_epsilon") and s["outcome"] in _MARKERS]
    if not claimed:
        return {}
    renyi = [s for s in claimed if _is_renyi(s)]
    panels = [("pure and approximate DP: ε", [s for s in claimed if not _is_renyi(s)])] + (
        [("Rényi DP: ε at the claim's α", renyi)] if renyi else []
    )
    figure, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), 5.2), squeeze=False)
    for axis, (title, points) in zip(axes[0], panels):
        _epsilon_panel(axis, title, points)
    figure.suptitle("Certified ε lower bound against the claimed ε", fontsize=11)
    return {"epsilon": _png(figure, plt)}


def _epsilon_panel(axis, title: str, points: list[dict]) -> None:
    """Log axes with plain-number ticks; an audit that certified no ε sits on the "none" line
    below the others."""
    from matplotlib.ticker import FuncFormatter, LogLocator

    values = [s["claimed_epsilon"] for s in points] + [
        s["epsilon_lower_bound"] for s in points if s.get("epsilon_lower_bound")
    ]
    low, high = min(values) / 2, max(values) * 2
    none = low / 1.5
    placed = [{**s, "epsilon_lower_bound": s.get("epsilon_lower_bound") or none} for s in points]
    for name, (colour, marker) in _MARKERS.items():
        group = [s for s in placed if s["outcome"] == name]
        if group:
            axis.scatter(
                [s["claimed_epsilon"] for s in group],
                [s["epsilon_lower_bound"] for s in group],
                label=name,
                color=colour,
                marker=marker,
                alpha=0.85,
                zorder=3,
            )
    axis.plot(
        [low, high],
        [low, high],
        color="grey",
        linestyle="--",
        label="bound = claim: above it the claim is refuted",
    )
    axis.axhline(none, color="#d0d7de", linewidth=0.8)
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_xlim(low, high)
    axis.set_ylim(none / 1.5, high)
    plain = FuncFormatter(lambda value, _: f"{value:g}")
    for scale in (axis.xaxis, axis.yaxis):
        scale.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        scale.set_major_formatter(plain)
        scale.set_minor_formatter(FuncFormatter(lambda value, _: ""))
    axis.set_yticks([tick for tick in axis.get_yticks() if low <= tick <= high] + [none])
    axis.set_yticklabels([f"{tick:g}" for tick in axis.get_yticks()[:-1]] + ["none"])
    axis.set_ylim(none / 1.5, high)
    _label_points(axis, placed)
    axis.set(xlabel="claimed ε", ylabel="certified ε lower bound", title=title)
    axis.title.set_fontsize(10)
    # below the axes: inside, it covered the labels of points near a corner
    axis.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=3, frameon=False)


def _label_points(axis, points: list[dict]) -> None:
    """Name each point's target unless the name would cover one already placed: failing verdicts
    first (`ordered`), then the rest; the table names them all."""
    axis.autoscale_view()  # pixel positions need the final limits
    # a 6-point label's height in pixels; characters ~0.6 of it wide
    size = 6 / 72 * axis.figure.dpi
    placed: list[tuple[float, float, float]] = []
    for s in ordered(points):
        x, y = axis.transData.transform((s["claimed_epsilon"], s["epsilon_lower_bound"]))
        width = 0.6 * size * len(s["target"])
        if any(abs(y - y0) < size and -width < x - x0 < width0 for x0, y0, width0 in placed):
            continue
        placed.append((x, y, width))
        axis.annotate(
            s["target"],
            (s["claimed_epsilon"], s["epsilon_lower_bound"]),
            fontsize=6,
            xytext=(5, 5),  # clear of the marker
            textcoords="offset points",
            color="#57606a",
            zorder=4,  # over the identity line, on a light backing so the line does not cross it
            bbox={
                "boxstyle": "round,pad=0.1",
                "facecolor": "white",
                "edgecolor": "none",
                "alpha": 0.8,
            },
        )


def _png(figure, plt) -> str:
    buffer = io.BytesIO()
    figure.tight_layout()
    figure.savefig(buffer, format="png", dpi=90)
    plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode()


_STYLE = """<style>
body{font-family:system-ui,sans-serif;margin:2rem;color:#1f2328;overflow-wrap:anywhere}
table{border-collapse:collapse;font-size:14px}
td,th{border:1px solid #d0d7de;padding:4px 8px;text-align:left;overflow-wrap:break-word}
th{background:#f6f8fa}
figure{display:inline-block;margin:1rem} img{max-width:100%}
dt{font-weight:600;margin-top:.4rem}
</style>"""

# marks `data-plots-rendered` and `data-errors` on the page's body once it has loaded
_SCRIPT = """<script>
window.dpfuzzErrors = 0;
window.addEventListener("error", function () { window.dpfuzzErrors += 1; });
window.addEventListener("load", function () {
  var images = Array.prototype.slice.call(document.images);
  var rendered = images.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  document.body.setAttribute("data-plots-rendered", rendered + "/" + images.length);
  document.body.setAttribute("data-errors", String(window.dpfuzzErrors));
});
</script>"""


def html_page(
    run: dict,
    summaries: list[dict],
    reported: set[str],
    changes: list[dict] | None = None,
    missing: str | None = None,
    last_finished: str | None = None,
) -> str:
    """A self-contained page: the run's verdict in one sentence, what failed and why, plots, the
    table; a small script marks `data-plots-rendered` and `data-errors` on load."""
    escape = html.escape
    tally = ", ".join(
        f"{count} {escape(name)}" for name, count in sorted(counts(summaries).items())
    )
    budget = escape(str(run["config"]["budget"]))
    run_id, beta = escape(str(run["run_id"])), escape(str(run["config"].get("beta", "?")))
    incomplete = (
        f'<p style="color:#cf222e;font-weight:600">Incomplete: {escape(missing)}.</p>'
        if missing
        else ""
    )
    header = "".join(f"<th>{escape(h)}</th>" for h in _HEADER)
    verdict = verdict_sentence(run, summaries, missing)
    verdict_colour = "#1a7f37" if verdict.startswith("Passes") else "#cf222e"
    failing_list = _failing_list(
        failures(summaries, run["config"].get("allow_inconclusive", False))
    )
    body_rows = _table_rows(summaries, reported)
    figures, change_list = _figures(summaries), _change_list(changes)
    glossary = "".join(f"<dt>{escape(name)}</dt><dd>{escape(text)}</dd>" for name, text in OUTCOMES)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>dpfuzz campaign run {run_id}</title>
{_STYLE}</head>
<body>
<h1>dpfuzz campaign run {run_id}</h1>
<p style="font-size:1.2rem;font-weight:600;color:{verdict_colour}">{escape(verdict)}</p>
{failing_list}
<p>{len(summaries)} audits: {tally}. Budget {budget}, β = {beta} per audit.
{escape(run_time(run, last_finished))}; dpfuzz {escape(_version())}.</p>
{incomplete}
{figures}
<table><thead><tr>{header}</tr></thead>
<tbody>{body_rows}</tbody></table>
{change_list}
<h2>Verdicts</h2><dl>{glossary}</dl>
{_SCRIPT}
</body></html>
"""


def _table_rows(summaries: list[dict], reported: set[str]) -> str:
    """One row per audit, its outcome coloured, linked to its report where one was kept."""
    escape = html.escape
    body_rows = []
    for summary, row in zip(ordered(summaries), _rows(ordered(summaries))):
        colour = _COLOURS.get(summary["outcome"], "#57606a")
        cells = [f"<td>{escape(cell)}</td>" for cell in row]
        if summary["key"] in reported:
            stem = audit_stem(summary["key"])
            cells[0] = (
                f'<td><a href="audits/{stem}.html">{escape(row[0])}</a> (<a'
                f' href="audits/{stem}.json">json</a>)</td>'
            )
        title = escape(summary.get("error") or summary.get("power") or "")
        cells[3] = (
            f'<td style="color:{colour};font-weight:600" title="{title}">{escape(row[3])}</td>'
        )
        body_rows.append("<tr>" + "".join(cells) + "</tr>")
    return "".join(body_rows)


def _figures(summaries: list[dict]) -> str:
    """The campaign's plots, or how to get them."""
    return (
        "".join(
            f'<figure><img alt="{html.escape(name)} plot" src="data:image/png;base64,{data}">'
            "</figure>"
            for name, data in plots(summaries).items()
        )
        or "<p>Plots need matplotlib: <code>pip install 'dpfuzz[report]'</code>.</p>"
    )


def _change_list(changes: list[dict] | None) -> str:
    """What changed since the compared run (nothing without one)."""
    if changes is None:
        return ""
    escape = html.escape
    items = "".join(
        f"<li>{escape(c['target'])}: {escape((c['before'] or {}).get('outcome', 'absent'))} → "
        f"{escape((c['after'] or {}).get('outcome', 'absent'))}</li>"
        for c in changes
    )
    items = items or "<li>No changes: every audit has the same verdict.</li>"
    return f"<h2>Changes</h2><ul>{items}</ul>"


def _failing_list(failed: list[dict]) -> str:
    """The audits that fail the run, each with why."""
    if not failed:
        return ""
    escape = html.escape
    items = "".join(
        f"<li><b>{escape(f['outcome'])}</b>: {escape(failure_text(f))}</li>" for f in failed
    )
    return f"<ul>{items}</ul>"


def write_reports(
    store: ResultsStore,
    run_id: int | None,
    out_dir: str | Path,
    compare_with: int | None = None,
    allow_inconclusive: bool = False,
) -> tuple[list, list]:
    """Write run-<id>.md and run-<id>.html into `out_dir`; return (paths, failing audits), the
    inconclusive ones among them unless `allow_inconclusive` or the run's config allows them."""
    from pathlib import Path

    run = store.run(run_id)
    summaries = store.summaries(run["run_id"])
    missing = missing_audits(run, summaries)
    changes = (
        None
        if compare_with is None
        else compare(store.summaries(store.run(compare_with)["run_id"]), summaries)
    )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"run-{run['run_id']}" + ("" if compare_with is None else f"-vs-{compare_with}")
    paths = [out / f"{stem}.md", out / f"{stem}.html"]
    write_atomically(paths[0], markdown(run, summaries, changes, missing))
    audits = out / "audits"
    audits.mkdir(exist_ok=True)
    back = f'<p><a href="../{paths[1].name}">← campaign run {int(run["run_id"])}</a></p>'
    for key, report in store.each_report(run["run_id"]):
        page = report.pop("html", None)
        write_atomically(audits / f"{audit_stem(key)}.json", json.dumps(report, indent=2))
        if page is not None:
            write_atomically(audits / f"{audit_stem(key)}.html", inert(str(page), back))
    reported, last = store.report_keys(run["run_id"]), store.last_finished(run["run_id"])
    write_atomically(paths[1], html_page(run, summaries, reported, changes, missing, last))
    failing = failures(
        summaries, allow_inconclusive or run["config"].get("allow_inconclusive", False)
    )
    return paths, failing + (
        [{"outcome": "incomplete", "target": f"run {run['run_id']}", "error": missing}]
        if missing
        else []
    )


# Prepended to each audit's stored page: a results database is data, and whatever it holds, no
# script in it runs and nothing is fetched (images are inline). The browser applies the first
# policy it reads, so the stored page cannot loosen it.
_INERT = (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta'
    ' http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:;'
    " style-src 'unsafe-inline'\"></head><body>"
)


def inert(page: str, header: str) -> str:
    """An audit's stored HTML `page` under a policy that runs no script and loads nothing, with
    `header` (a link back) above it."""
    return _INERT + header + page


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dpfuzz")
    except PackageNotFoundError:  # a source tree that is not installed
        return "(not installed)"


def missing_audits(run: dict, summaries: list[dict]) -> str | None:
    """How many of the run's configured audits have no stored result, in words (None: none)."""
    from dpfuzz.campaign import CampaignConfig
    from dpfuzz.errors import ConfigError

    try:
        configured = len(CampaignConfig.from_dict(run["config"]).audits())
    except ConfigError:  # written by another version: its audits cannot be counted
        return None
    absent = configured - len(summaries)
    if absent <= 0:
        return None
    return (
        f"run {run['run_id']} is incomplete: {absent} of its {configured} configured audits have no"
        " result; finish it with dpfuzz campaign run CONFIG --resume"
    )
