"""Command line: ``dpfuzz audit MODULE:ATTRIBUTE …`` and ``dpfuzz catalog``.

A target is a catalogue entry (its claim and domain come with it), a mechanism factory (called
with the claim's parameters it accepts, e.g. ``epsilon``), or a mechanism itself (a callable
with a ``num_samples`` parameter). Exit status: 0 when the audit ran, 1 when it refuted the
claim and ``--fail-on-violation`` was given, 2 for bad input.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from rich.console import Console
from rich.table import Table

from dpfuzz.claims import ApproxDP, Claim, PureDP, RenyiDP
from dpfuzz.datasets import Domain
from dpfuzz.errors import ConfigError, DPFuzzError
from dpfuzz.finders import FINDER_NAMES
from dpfuzz.search import audit
from dpfuzz.targets import is_mechanism, load_attribute
from dpfuzz.testers import TESTERS


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    # Wide enough for the catalogue table when the output is a file or a pipe.
    console = Console() if sys.stdout.isatty() else Console(width=200)
    try:
        return args.run(args, console)
    except (DPFuzzError, ValueError, TypeError, ImportError, AttributeError, LookupError) as error:
        Console(stderr=True).print(f"[bold red]error:[/] {error}", highlight=False, soft_wrap=True)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dpfuzz", description="Find differential-privacy bugs by running mechanisms.")
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("audit", help="audit one mechanism against its privacy claim")
    run.add_argument("target", help="module:attribute of a catalogue entry, mechanism factory or mechanism")
    claim = run.add_argument_group("claim (defaults: the catalogue entry's)")
    claim.add_argument("--epsilon", type=float)
    claim.add_argument("--delta", type=float, help="approximate DP: (epsilon, delta)")
    claim.add_argument("--alpha", type=float, help="Rényi DP: (alpha, epsilon)")
    claim.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="other factory parameter")
    domain = run.add_argument_group("domain (defaults: the catalogue entry's, else dpfuzz.Domain's)")
    domain.add_argument("--low", type=float)
    domain.add_argument("--high", type=float)
    domain.add_argument("--min-size", type=int)
    domain.add_argument("--max-size", type=int)
    domain.add_argument("--relation", choices=["add_remove", "substitute"])
    domain.add_argument("--dim", type=int)
    domain.add_argument("--dtype", choices=["float", "int"])
    search = run.add_argument_group("search")
    search.add_argument("--tester", default="auto", choices=["auto", *TESTERS])
    search.add_argument("--finder", default="random", choices=FINDER_NAMES)
    search.add_argument("--trials", type=int, default=10)
    search.add_argument("--samples", type=int, default=100_000, help="per dataset per trial")
    search.add_argument("--verify-samples", type=int, help="fresh samples per dataset to certify (default: 5 x --samples)")
    search.add_argument("--beta", type=float, default=0.05, help="false-alarm probability of the whole audit")
    search.add_argument("--seed", type=int, help="reproduce an audit (default: random, printed)")
    run.add_argument("--json", type=Path, metavar="PATH", help="write the full JSON report here")
    run.add_argument("--fail-on-violation", action="store_true", help="exit with status 1 when the claim is refuted")
    run.set_defaults(run=_audit_command)

    campaign = commands.add_parser("campaign", help="run many audits from a config; results survive and resume")
    campaign_commands = campaign.add_subparsers(dest="campaign_command", required=True)
    start = campaign_commands.add_parser("run", help="run a campaign (no CONFIG: the whole catalogue)")
    start.add_argument("config", nargs="?", type=Path, help="TOML config (see dpfuzz.campaign)")
    start.add_argument("--results", type=Path, default=Path("dpfuzz-results"), help="results folder (default ./dpfuzz-results)")
    start.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    start.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786 (extra 'distributed')")
    start.add_argument("--resume", nargs="?", type=int, const=-1, metavar="RUN", help="finish run RUN (default: the latest)")
    start.add_argument("--no-report", action="store_true", help="do not write the report when the run ends")
    start.set_defaults(run=_campaign_command)

    report = commands.add_parser("report", help="write a campaign run's Markdown and HTML report")
    report.add_argument("--run", dest="run_id", type=int, help="run id (default: the latest)")
    report.add_argument("--results", type=Path, default=Path("dpfuzz-results"))
    report.add_argument("--out", type=Path, help="report folder (default RESULTS/reports)")
    report.add_argument("--compare", nargs=2, type=int, metavar=("RUN_A", "RUN_B"), help="what changed from RUN_A to RUN_B")
    report.set_defaults(run=_report_command)

    catalog = commands.add_parser("catalog", help="list the catalogue of mechanisms")
    catalog.add_argument("--json", action="store_true", help="print JSON instead of a table")
    truth = catalog.add_mutually_exclusive_group()
    truth.add_argument("--satisfies", action="store_true", help="only mechanisms that satisfy their claim")
    truth.add_argument("--violates", action="store_true", help="only mechanisms that violate their claim")
    catalog.add_argument("--family", help="only this family (means, svt, noisy_max, …)")
    catalog.add_argument("--claim", choices=["PureDP", "ApproxDP", "RenyiDP"], help="only this claim type")
    catalog.set_defaults(run=_catalog_command)
    return parser


def _audit_command(args: argparse.Namespace, console: Console) -> int:
    mechanism, claim, domain = resolve_target(args)
    report = audit(
        mechanism,
        claim,
        domain,
        tester=args.tester,
        finder=args.finder,
        trials=args.trials,
        samples=args.samples,
        verify_samples=args.verify_samples,
        beta=args.beta,
        seed=args.seed,
    )
    style = "bold red" if report.violated else "bold green"
    first, *rest = report.summary().splitlines()
    console.print(f"[{style}]{first}[/]", highlight=False)
    console.print("\n".join(rest), highlight=False, soft_wrap=True)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(report.to_json())
        console.print(f"report written to {args.json}", highlight=False)
    return 1 if report.violated and args.fail_on_violation else 0


def resolve_target(args: argparse.Namespace) -> tuple[Any, Claim, Domain]:
    """The mechanism, claim and domain that the command line describes."""
    from mechanisms.entry import CatalogueEntry

    target = load_attribute(args.target)
    extra = dict(_parse_param(text) for text in args.param)
    claimed = {name: getattr(args, name) for name in ("epsilon", "delta", "alpha") if getattr(args, name) is not None}
    if isinstance(target, CatalogueEntry):
        params = target.params(**{k: v for k, v in claimed.items() if k in target.defaults}, **extra)
        ignored = sorted(set(claimed) - set(target.defaults))
        if ignored:
            raise ConfigError(f"{target.name} claims {target.claim(**params).describe()}; it takes no {ignored}.")
        claim = target.claim(**params)
        return target(**params), claim, _override_domain(target.domain(**params), args)
    if not callable(target):
        raise ConfigError(f"{args.target} is a {type(target).__name__}, not a catalogue entry, factory or mechanism.")
    claim = _claim_from_flags(claimed, args.target)
    if is_mechanism(target):
        mechanism = target
    else:
        accepted = inspect.signature(target).parameters
        mechanism = target(**{k: v for k, v in {**claimed, **extra}.items() if k in accepted})
    return mechanism, claim, _override_domain(Domain(), args)


def _claim_from_flags(claimed: dict, target: str) -> Claim:
    if "epsilon" not in claimed:
        raise ConfigError(f"{target} is not a catalogue entry: give the claim with --epsilon (and --delta or --alpha).")
    if "alpha" in claimed and "delta" in claimed:
        raise ConfigError("give either --delta (approximate DP) or --alpha (Rényi DP), not both.")
    if "alpha" in claimed:
        return RenyiDP(claimed["alpha"], claimed["epsilon"])
    if "delta" in claimed:
        return ApproxDP(claimed["epsilon"], claimed["delta"])
    return PureDP(claimed["epsilon"])


def _override_domain(domain: Domain, args: argparse.Namespace) -> Domain:
    fields = ("low", "high", "min_size", "max_size", "relation", "dim", "dtype")
    changes = {name: getattr(args, name) for name in fields if getattr(args, name) is not None}
    return dataclasses.replace(domain, **changes) if changes else domain


def _parse_param(text: str) -> tuple[str, Any]:
    name, separator, value = text.partition("=")
    if not separator or not name:
        raise ConfigError(f"--param {text!r} must look like NAME=VALUE.")
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value


def _campaign_command(args: argparse.Namespace, console: Console) -> int:
    from dpfuzz.campaign import CampaignConfig, load_config, run_campaign, validate
    from dpfuzz.store import ResultsStore

    store = ResultsStore(args.results / "results.db")
    if args.resume is not None:
        run = store.run(None if args.resume == -1 else args.resume)
        config, run_id = CampaignConfig.from_dict(run["config"]), run["run_id"]
        validate(config)
    else:
        config, run_id = load_config(args.config), None
    total = len(config.audits())
    console.print(f"dpfuzz campaign: {total} audits, budget {config.budget}, results in {store.path}", highlight=False)
    with _Progress(console, total) as advance:
        run_id = run_campaign(config, store, workers=args.workers, scheduler=args.scheduler, run_id=run_id, on_result=advance)
    console.print(f"run {run_id} finished", highlight=False)
    if not args.no_report:
        _write_report(store, run_id, args.results / "reports", None, console)
    return 0  # the run completed; 'dpfuzz report' exits non-zero on misses and false alarms


def _report_command(args: argparse.Namespace, console: Console) -> int:
    from dpfuzz.store import ResultsStore

    if not (args.results / "results.db").exists():
        raise ConfigError(f"no results database in {args.results}; run 'dpfuzz campaign run' first or pass --results.")
    store = ResultsStore(args.results / "results.db")
    out = args.out or args.results / "reports"
    if args.compare:
        return _write_report(store, args.compare[1], out, args.compare[0], console)
    return _write_report(store, args.run_id, out, None, console)


def _write_report(store, run_id, out, compare_with, console: Console) -> int:
    from dpfuzz.campaign_report import write_reports

    paths, failing = write_reports(store, run_id, out, compare_with)
    for path in paths:
        console.print(f"report written to {path}", highlight=False)
    for failure in failing:
        console.print(f"[bold red]{failure['outcome']}[/]: {failure['target']} {failure.get('error', '')}", highlight=False)
    return 1 if failing else 0


class _Progress:
    """Rich progress bar on a terminal; one plain log line per audit otherwise."""

    def __init__(self, console: Console, total: int):
        self.console, self.total = console, total

    def __enter__(self):
        if self.console.is_terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), console=self.console)
            self.task = self.bar.add_task("audits", total=self.total)
            self.bar.start()
        else:
            self.bar = None
        return self.advance

    def advance(self, summary: dict, done: int, total: int) -> None:
        epsilon = summary.get("epsilon_lower_bound")
        text = f"{summary['target']}: {summary['outcome']}" + ("" if epsilon is None else f", eps >= {epsilon:.3g}")
        if self.bar is not None:
            self.bar.update(self.task, completed=done, description=text)
        else:
            self.console.print(f"[{done}/{total}] {text} ({summary.get('seconds', 0):.1f} s)", highlight=False)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()


def _catalog_command(args: argparse.Namespace, console: Console) -> int:
    from mechanisms import catalogue

    satisfies = True if args.satisfies else False if args.violates else None
    claim_type = {"PureDP": PureDP, "ApproxDP": ApproxDP, "RenyiDP": RenyiDP}.get(args.claim)
    entries = catalogue(satisfies=satisfies, claim_type=claim_type, family=args.family)
    if args.json:
        console.print_json(json.dumps([entry.to_dict() for entry in entries]))
        return 0
    table = Table(title="dpfuzz catalogue")
    for column in ("name", "family", "claim", "truth", "true ε", "tester", "witness"):
        table.add_column(column)
    verdicts = {True: "satisfies", False: "[red]violates[/]", None: "unknown"}
    for entry in entries:
        truth = entry.truth()
        true_epsilon = "" if truth.true_epsilon is None else f"{truth.true_epsilon:.4g}"
        table.add_row(
            entry.name,
            entry.family,
            entry.claim().describe(),
            verdicts[truth.satisfies],
            true_epsilon,
            entry.tester,
            "yes" if entry.witness() is not None else "",
        )
    console.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
