"""Command line: ``dpfuzz audit TARGET …``, ``dpfuzz estimate TARGET``, ``dpfuzz campaign run``,
``dpfuzz report``, ``dpfuzz catalogue``.

A target is a catalogue entry by name (``NonDPLaplaceMean1``; its claim and domain come with
it) or ``package.module:attribute`` naming an entry, a mechanism factory (called with the claim's
parameters it accepts, e.g. ``epsilon``, and ``--param`` values) or a mechanism (a callable with
a ``num_samples`` parameter, `dpfuzz.per_call` wrappers included).

Exit status, as CI gates use it: 0 when everything passed; 1 when an audit refutes a claim not
declared a known bug (a target whose truth is "violates"), misses a known bug, errs, or is
inconclusive (``--allow-inconclusive`` or a campaign's ``allow_inconclusive = true``: not) — for
``audit``, ``campaign run`` and ``report`` alike (``--exit-zero``: 0 whenever the command ran);
2 for bad input (the message names it). A mechanism that raises, or whose call outlasts
``call_timeout``, makes the audit err: status 1, as in a campaign.
Only dpfuzz's own errors are reported as bad input: anything else is a bug and shows its traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dpfuzz import names

if TYPE_CHECKING:
    from dpfuzz.campaign import CampaignConfig
    from dpfuzz.store import ResultsStore
    from dpfuzz.targets import Resolved

TESTERS = ("auto", *names.TESTERS)

# names that moved to dpfuzz.names, kept for one minor release
_MOVED = {
    "FINDERS": "FINDERS",
    "RELATIONS": "RELATIONS",
    "BUDGET_NAMES": "BUDGETS",
    "SAMPLING": "SAMPLING",
    "ARITHMETIC": "ARITHMETIC",
    "VERIFY_DIRECTIONS": "VERIFY_DIRECTIONS",
    "CLAIM_TYPES": "CLAIM_TYPES",
}


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        import warnings

        warnings.warn(
            f"dpfuzz.cli.{name} moved to dpfuzz.names.{_MOVED[name]} (removed in 0.5).",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(names, _MOVED[name])
    raise AttributeError(f"module 'dpfuzz.cli' has no attribute {name!r}")


# flag -> AuditSettings field
SETTINGS_FLAGS = (
    "tester",
    "finder",
    "trials",
    "samples",
    "verify_samples",
    "beta",
    "seed",
    "sampling",
    "max_draws",
    "max_seconds",
    "call_timeout",
    "arithmetic",
    "verify_directions",
    "sharpen",
)
DOMAIN_FLAGS = ("low", "high", "min_size", "max_size", "dim", "dtype")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # the command's own usage, and the option meant (argparse exits with status 2)
        _command_parser(parser, args).error(_unrecognized(unknown, _command_parser(parser, args)))
    args.argv = argv
    from rich.console import Console
    from rich.markup import escape

    from dpfuzz.errors import DPFuzzError, MechanismError

    # Wide enough for the catalogue table when the output is a file or a pipe.
    console = (
        Console(highlight=False, emoji=False)
        if sys.stdout.isatty()
        else Console(width=200, highlight=False, emoji=False)
    )
    try:
        return args.run(args, console)
    except DPFuzzError as error:
        message = _naming_the_flag(str(error), argv)
        Console(stderr=True, emoji=False).print(
            f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True, markup=True
        )
        if isinstance(error, MechanismError):  # the audit erred, as a campaign's would: 1
            return 0 if getattr(args, "exit_zero", False) else 1
        return 2
    except KeyboardInterrupt:
        with _signals_ignored():  # a second Ctrl-C does not cut the message short
            Console(stderr=True, emoji=False).print(
                getattr(args, "interrupted", "interrupted."), highlight=False, soft_wrap=True
            )
        return 130


def _command_parser(parser: argparse.ArgumentParser, args: argparse.Namespace):
    """The parser of the (sub)command `args` were parsed for: ``campaign run``'s, not dpfuzz's."""
    while True:
        actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        chosen = getattr(args, actions[0].dest, None) if actions else None
        if chosen is None or chosen not in actions[0].choices:
            return parser
        parser = actions[0].choices[chosen]


def _unrecognized(unknown: list[str], parser: argparse.ArgumentParser) -> str:
    """argparse's message for `unknown` arguments, with the closest option of `parser`."""
    import difflib

    options = [option for action in parser._actions for option in action.option_strings]
    flags = [word.split("=")[0] for word in unknown if word.startswith("--")]
    close = [difflib.get_close_matches(flag, options, n=1, cutoff=0.7) for flag in flags]
    hints = "".join(f" Did you mean {match[0]}?" for match in close if match)
    return f"unrecognized arguments: {' '.join(unknown)}.{hints}"


@contextmanager
def _signals_ignored():
    """Ctrl-C and SIGTERM ignored in the block (in the main thread; elsewhere, nothing happens)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {
        number: signal.signal(number, signal.SIG_IGN) for number in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _naming_the_flag(message: str, argv: list[str]) -> str:
    """An error about a setting the user gave as a flag names the flag: "max_draws (--max-draws)
    must be …" (the library's errors name the Python parameter)."""
    name = message.split(" ", 1)[0]
    flag = "--" + name.replace("_", "-")
    if name.isidentifier() and any(arg == flag or arg.startswith(flag + "=") for arg in argv):
        return f"{name} ({flag}){message[len(name) :]}"
    return message


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dpfuzz")
    except PackageNotFoundError:
        return "0+unknown"


class _DefaultsFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows an option's default, unless it has none (the help then says what happens)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.default in (None, []):
            return action.help or ""
        return super()._get_help_string(action) or ""


def build_parser() -> argparse.ArgumentParser:
    """The `dpfuzz` command line (the docs site prints its help from it)."""
    parser = argparse.ArgumentParser(
        prog="dpfuzz",
        description="Find differential-privacy bugs by running mechanisms.",
        epilog="Try: dpfuzz audit NonDPLaplaceMean1   (dpfuzz catalogue lists the entries)",
    )
    parser.add_argument("--version", action="version", version=f"dpfuzz {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_audit_command(commands)
    _add_estimate_command(commands)
    _add_campaign_command(commands)
    _add_report_command(commands)
    _add_catalogue_command(commands)
    return parser


def _add_audit_command(commands: argparse._SubParsersAction) -> None:
    run = commands.add_parser(
        "audit",
        help="audit one mechanism against its privacy claim",
        formatter_class=_DefaultsFormatter,
        description=(
            "Search for neighbouring datasets on which TARGET violates its claim, then certify the"
            " violation."
        ),
        epilog=(
            "Examples: dpfuzz audit NonDPLaplaceMean1 | dpfuzz audit mymodule:noisy_sum --epsilon 1"
            " --max-size 5"
        ),
    )
    run.add_argument(
        "target",
        help=(
            "catalogue entry name, or module:attribute of an entry, mechanism factory or mechanism"
        ),
    )
    _add_claim_options(run.add_argument_group("claim (default: the catalogue entry's)"))
    _add_domain_options(run)
    search = run.add_argument_group("audit (default: the --budget preset's)")
    _add_audit_settings(search)
    _add_audit_limits(search)
    _add_audit_outputs(run.add_argument_group("output"))
    run.set_defaults(run=_audit_command)


def _add_claim_options(claim: argparse._ArgumentGroup) -> None:
    claim.add_argument("--epsilon", type=float, help="ε of the claim")
    claim.add_argument("--delta", type=float, help="approximate DP: (ε, δ)")
    claim.add_argument("--alpha", type=float, help="Rényi DP: (α, ε)")
    claim.add_argument("--mu", type=float, help="Gaussian DP: μ-GDP (instead of --epsilon)")
    claim.add_argument(
        "--rho", type=float, help="zero-concentrated DP: ρ-zCDP (instead of --epsilon)"
    )
    claim.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="another factory or entry parameter (JSON value)",
    )
    claim.add_argument(
        "--per-call",
        action="store_true",
        help="TARGET releases one output per call: (dataset, rng), or a factory of one",
    )
    claim.add_argument(
        "--structured",
        action="store_true",
        help=(
            "TARGET's outputs are dicts of keyed results, categories, tuples, lists or models"
            " (dpfuzz.outputs), one per call or a list per call"
        ),
    )


def _add_audit_settings(search: argparse._ArgumentGroup) -> None:
    search.add_argument(
        "--budget", choices=names.BUDGETS, default="default", help="preset of the settings below"
    )
    search.add_argument(
        "--tester", choices=TESTERS, help="how divergence is bounded (default auto)"
    )
    search.add_argument(
        "--finder", choices=names.FINDERS, help="how pairs are proposed (default random)"
    )
    search.add_argument("--trials", type=int, help="neighbouring pairs to try (default 10)")
    search.add_argument(
        "--samples", type=_count, help="outputs per dataset per trial, at most (default 100000)"
    )
    search.add_argument(
        "--verify-samples",
        type=_count,
        help="fresh outputs per dataset to certify, at most (default 5 x --samples)",
    )
    search.add_argument(
        "--beta", type=float, help="false-alarm probability of the whole audit (default 0.05)"
    )
    search.add_argument("--seed", type=int, help="reproduce an audit (default: random, printed)")
    search.add_argument(
        "--sampling",
        choices=names.SAMPLING,
        help=(
            "auto (default): sequential when the budget affords few draws (a slow release,"
            " a small max-draws), adaptive otherwise; adaptive: draws go where the evidence is;"
            " sequential: search and certification as one race"
        ),
    )


def _add_audit_limits(search: argparse._ArgumentGroup) -> None:
    search.add_argument("--max-draws", type=_count, help="cap on all outputs drawn (reproducible)")
    search.add_argument(
        "--max-seconds", type=float, help="cap on wall-clock time, a hard one (not reproducible)"
    )
    search.add_argument(
        "--call-timeout",
        type=float,
        help=(
            "seconds one call of the mechanism may take; a longer one ends the audit as"
            " inconclusive"
        ),
    )
    search.add_argument(
        "--arithmetic",
        choices=names.ARITHMETIC,
        help="float: also test the outputs' float64 bit patterns (default real)",
    )
    search.add_argument(
        "--verify-directions",
        choices=names.VERIFY_DIRECTIONS,
        help=(
            "both: certify the chosen pair both ways on the same fresh outputs, β/2 each (default"
            " both)"
        ),
    )
    search.add_argument(
        "--sharpen",
        action="store_true",
        default=None,
        help=(
            "race (--sampling auto or sequential) and, after a refutation, spend the rest of the"
            " budget raising the certified ε lower bound"
        ),
    )
    search.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help=(
            "draw and count the certification's outputs on this Dask scheduler's workers, e.g."
            " tcp://host:8786 (extra 'distributed')"
        ),
    )


def _add_audit_outputs(output: argparse._ArgumentGroup) -> None:
    output.add_argument("--json", type=Path, metavar="PATH", help="write the full JSON report here")
    output.add_argument("--html", type=Path, metavar="PATH", help="write an HTML report here")
    output.add_argument(
        "--exit-zero", action="store_true", help="exit with status 0 whatever the verdict"
    )
    output.add_argument(
        "--allow-inconclusive",
        action="store_true",
        help="exit with status 0 when the audit could not test the claim",
    )
    # deprecated: the default
    output.add_argument("--fail-on-violation", action="store_true", help=argparse.SUPPRESS)


def _add_estimate_command(commands: argparse._SubParsersAction) -> None:
    estimate = commands.add_parser(
        "estimate",
        help="certify a lower bound on a mechanism's ε (how private is it, at least?)",
        formatter_class=_DefaultsFormatter,
        description=(
            "Search for the pair and event that certify the largest ε lower bound (at --delta), "
            "spending most draws on the final certification."
        ),
        epilog="Example: dpfuzz estimate RandomizedResponse --witness --max-draws 1000000",
    )
    estimate.add_argument(
        "target",
        help=(
            "catalogue entry name, or module:attribute of an entry, mechanism factory or mechanism"
        ),
    )
    estimate.add_argument("--delta", type=float, default=0.0, help="δ at which ε is bounded")
    estimate.add_argument("--epsilon", type=float, help="passed to a factory that takes epsilon")
    estimate.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="another factory or entry parameter (JSON value)",
    )
    estimate.add_argument(
        "--per-call",
        action="store_true",
        help="TARGET releases one output per call: (dataset, rng), or a factory of one",
    )
    estimate.add_argument(
        "--structured",
        action="store_true",
        help="TARGET's outputs are dicts, categories, tuples, lists or models (dpfuzz.outputs)",
    )
    _add_domain_options(estimate)
    estimate.add_argument(
        "--witness",
        action="store_true",
        help="measure on the catalogue entry's witness pair instead of searching its domain",
    )
    _add_estimate_limits(estimate)
    estimate.set_defaults(run=_estimate_command)


def _add_estimate_limits(estimate: argparse.ArgumentParser) -> None:
    estimate.add_argument(
        "--max-draws", type=_count, help="cap on all outputs drawn (default 4000000)"
    )
    estimate.add_argument(
        "--max-seconds",
        type=float,
        help=(
            "time budget: the mechanism's pace and pilot estimates set the draws the time affords"
            " (--max-draws stays a cap)"
        ),
    )
    estimate.add_argument(
        "--beta", type=float, default=0.05, help="probability that the bound exceeds the true ε"
    )
    estimate.add_argument(
        "--seed", type=int, help="reproduce an estimate (default: random, printed)"
    )
    estimate.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help=(
            "draw and count the certification's outputs on this Dask scheduler's workers (extra"
            " 'distributed')"
        ),
    )
    estimate.add_argument(
        "--json",
        type=Path,
        metavar="PATH",
        help="write the estimate as JSON here (with the audits' reports)",
    )
    estimate.add_argument("--html", type=Path, metavar="PATH", help="write an HTML report here")


def _add_campaign_command(commands: argparse._SubParsersAction) -> None:
    campaign = commands.add_parser(
        "campaign", help="run many audits from a config; results survive and resume"
    )
    campaign_commands = campaign.add_subparsers(
        dest="campaign_command", required=True, metavar="COMMAND"
    )
    start = campaign_commands.add_parser(
        "run",
        help="run a campaign (no CONFIG: the whole catalogue)",
        formatter_class=_DefaultsFormatter,
        description="Run every audit of a TOML config, storing each as it finishes.",
        epilog=(
            "The config format, with a full example, is in the README's section 'Campaign configs'."
            " Ctrl-C keeps every finished audit; --resume finishes the run."
        ),
    )
    start.add_argument(
        "config",
        nargs="?",
        type=Path,
        help="TOML config (default: the whole catalogue, default budget)",
    )
    start.add_argument(
        "--results", type=Path, default=Path("dpfuzz-results"), help="results folder"
    )
    start.add_argument("--workers", type=int, default=1, help="local worker processes")
    start.add_argument(
        "--scheduler", help="Dask scheduler address, e.g. tcp://host:8786 (extra 'distributed')"
    )
    start.add_argument(
        "--resume",
        nargs="?",
        type=int,
        const=-1,
        metavar="RUN",
        help="finish run RUN (default: the latest)",
    )
    start.add_argument(
        "--retry-failed",
        action="store_true",
        help="with --resume: run again the audits stored as error, crashed or timed out",
    )
    start.add_argument(
        "--no-report", action="store_true", help="do not write the report when the run ends"
    )
    start.add_argument(
        "--exit-zero", action="store_true", help="exit with status 0 even when audits fail"
    )
    start.add_argument(
        "--allow-inconclusive",
        action="store_true",
        help="audits that could not test their claim do not fail the run",
    )
    start.set_defaults(run=_campaign_command)


def _add_report_command(commands: argparse._SubParsersAction) -> None:
    report = commands.add_parser(
        "report",
        help="write a campaign run's Markdown and HTML report",
        formatter_class=_DefaultsFormatter,
    )
    report.add_argument("--run", dest="run_id", type=int, help="run id (default: the latest)")
    report.add_argument(
        "--results", type=Path, default=Path("dpfuzz-results"), help="results folder"
    )
    report.add_argument("--out", type=Path, help="report folder (default: RESULTS/reports)")
    report.add_argument(
        "--compare",
        nargs="*",
        type=int,
        metavar="RUN",
        help=(
            "what changed from RUN_A to RUN_B; with one run, from it to the latest; with none,"
            " from the run before the latest"
        ),
    )
    report.add_argument(
        "--exit-zero", action="store_true", help="exit with status 0 even when audits fail"
    )
    report.add_argument(
        "--allow-inconclusive",
        action="store_true",
        help="audits that could not test their claim do not fail the run",
    )
    report.set_defaults(run=_report_command)


def _add_catalogue_command(commands: argparse._SubParsersAction) -> None:
    catalog = commands.add_parser(
        "catalogue", aliases=["catalog"], help="list the catalogue of mechanisms"
    )
    catalog.add_argument("--json", action="store_true", help="print JSON instead of a table")
    truth = catalog.add_mutually_exclusive_group()
    truth.add_argument(
        "--satisfies", action="store_true", help="only mechanisms that satisfy their claim"
    )
    truth.add_argument(
        "--violates", action="store_true", help="only mechanisms that violate their claim"
    )
    catalog.add_argument("--family", help="only this family (means, svt, noisy_max, …)")
    catalog.add_argument("--claim", choices=names.CLAIM_TYPES, help="only this claim type")
    catalog.set_defaults(run=_catalog_command)


# -- audit ----------------------------------------------------------------------------------------
def _audit_command(args: argparse.Namespace, console) -> int:
    from dpfuzz.auditing import audit
    from dpfuzz.campaign import outcome
    from dpfuzz.campaign_report import failing
    from dpfuzz.settings import AuditSettings

    if args.fail_on_violation:
        print(
            "dpfuzz: --fail-on-violation is the default since 0.3.0 and will be removed in 0.4.0;"
            " drop it (--exit-zero asks for status 0 instead).",
            file=sys.stderr,
        )
    _check_report_paths(args)
    target = resolve_target(args)
    options = {
        name: getattr(args, name) for name in SETTINGS_FLAGS if getattr(args, name) is not None
    }
    settings = AuditSettings.build(budget=args.budget, **options)
    console.print(
        f"auditing {target.name}: claim {target.claim.describe()}, relation"
        f" {target.domain.relation}; {args.budget} budget, {settings.sampling} sampling"
        + (f", max {settings.max_draws:,} draws" if settings.max_draws else "")
        + (f", max {settings.max_seconds:g} s" if settings.max_seconds else ""),
    )
    with _cluster(args.scheduler) as client:
        if console.is_terminal:
            with console.status("probing the mechanism") as status:
                report = audit(
                    target.mechanism,
                    target.claim,
                    target.domain,
                    settings,
                    progress=status.update,
                    dask_client=client,
                )
        else:
            # a log (CI): a progress line at most every PROGRESS_SECONDS, so a slow audit shows
            # it is alive
            with _every(PROGRESS_SECONDS, console) as show:
                report = audit(
                    target.mechanism,
                    target.claim,
                    target.domain,
                    settings,
                    progress=show,
                    dask_client=client,
                )
    report = _with_reproduce(report, _reproduce_command(args.argv, args.seed is None, report.seed))
    style = {"violated": "bold red", "inconclusive": "bold yellow"}.get(
        report.verdict.value, "bold green"
    )
    first, *rest = report.summary().splitlines()
    console.print(f"[{style}]{first}[/]")
    console.print("\n".join(rest), soft_wrap=True, markup=False)
    _write_reports(console, ((args.json, report.to_json), (args.html, report.to_html)))
    return int(
        outcome(target.truth, report.verdict) in failing(args.allow_inconclusive)
        and not args.exit_zero
    )


PROGRESS_SECONDS = 15.0


@contextmanager
def _every(seconds: float, console):
    """A progress callback that prints at most one line per `seconds` (the first after
    `seconds`), and, while no progress comes (a call that takes long), a line every `seconds`
    naming the stage it waits in and for how long."""
    import threading
    import time

    state: dict[str, Any] = {
        "printed": time.monotonic(),
        "text": "probing the mechanism",
        "since": time.monotonic(),
    }

    def show(text: str) -> None:
        state["text"], state["since"] = text, time.monotonic()
        if time.monotonic() - state["printed"] >= seconds:
            state["printed"] = time.monotonic()
            console.print(f"  … {text}", markup=False, highlight=False)

    done = threading.Event()

    def heartbeat() -> None:
        while not done.wait(seconds):
            waited = time.monotonic() - state["since"]
            if waited >= seconds and time.monotonic() - state["printed"] >= seconds:
                state["printed"] = time.monotonic()
                console.print(
                    f"  … waiting on the mechanism for {waited:.0f} s at: {state['text']}",
                    markup=False,
                    highlight=False,
                )

    if seconds > 0:
        threading.Thread(target=heartbeat, daemon=True).start()
    try:
        yield show
    finally:
        done.set()


def _check_report_paths(args: argparse.Namespace) -> None:
    """Refuse, before any draw, a --json or --html path no report could be written to."""
    from dpfuzz.files import check_writable_file

    for flag in ("json", "html"):
        if getattr(args, flag, None) is not None:
            check_writable_file(getattr(args, flag), f"--{flag}")


def _write_reports(console, reports) -> None:
    """Each (path or None, function returning the text) written where a path is given."""
    from dpfuzz.files import write_atomically

    for path, text in reports:
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(path, text())
            console.print(f"report written to {path}")


def _with_reproduce(report, command: str):
    from dataclasses import replace

    return replace(report, reproduce=command)


def _reproduce_command(argv: list[str], add_seed: bool, seed: int) -> str:
    """This command line, with the seed pinned and the report files left out."""
    import shlex

    kept, skip = [], False
    for part in argv:
        if skip:
            skip = False
        elif part in ("--json", "--html"):
            skip = True
        elif not part.startswith(("--json=", "--html=")):
            kept.append(part)
    return " ".join(
        ["dpfuzz", *map(shlex.quote, kept), *(["--seed", str(seed)] if add_seed else [])]
    )


def _add_domain_options(parser: argparse.ArgumentParser) -> None:
    domain = parser.add_argument_group(
        "domain (default: the catalogue entry's, else dpfuzz.Domain's)"
    )
    domain.add_argument("--low", type=float, help="smallest record value")
    domain.add_argument("--high", type=float, help="largest record value")
    domain.add_argument("--min-size", type=int, help="fewest records in a dataset")
    domain.add_argument("--max-size", type=int, help="most records in a dataset")
    domain.add_argument("--relation", choices=names.RELATIONS, help="neighbouring relation")
    domain.add_argument(
        "--distance", type=int, help="add_remove/substitute: neighbours differ in this many records"
    )
    domain.add_argument("--sensitivity", type=float, help="linf: how far each answer may move")
    domain.add_argument(
        "--dim", type=int, help="length of vector records (scalar records when unset)"
    )
    domain.add_argument("--dtype", choices=["float", "int"], help="record type")


def resolve_target(args: argparse.Namespace) -> Resolved:
    """The `dpfuzz.targets.Resolved` target that the command line describes."""
    from dpfuzz.targets import resolve

    claimed = {
        name: getattr(args, name)
        for name in ("epsilon", "delta", "alpha", "mu", "rho")
        if getattr(args, name) is not None
    }
    params = dict(_parse_param(text) for text in args.param)
    return _with_domain_options(
        resolve(
            args.target,
            claimed=claimed,
            params=params,
            per_call=args.per_call,
            structured=args.structured,
        ),
        args,
    )


def _with_domain_options(target, args: argparse.Namespace):
    """`target` on the domain the command line's domain options change."""
    import dataclasses

    changes = {
        name: getattr(args, name) for name in DOMAIN_FLAGS if getattr(args, name) is not None
    }
    if args.relation is not None or args.distance is not None or args.sensitivity is not None:
        domain = target.domain
        changes["relation"] = args.relation or domain.relation.name
        changes["distance"] = args.distance
        changes["sensitivity"] = args.sensitivity
    if changes:
        from dpfuzz.domain import Domain

        base = {key: value for key, value in target.domain.to_dict().items()}
        if "relation" in changes:
            base.pop("distance", None)
            base.pop("sensitivity", None)
        target = dataclasses.replace(target, domain=Domain(**{**base, **changes}))
    return target


def _count(text: str) -> int:
    """A count of outputs or draws, written 1000000, 1_000_000 or 1e6."""
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        value = math.nan
    if not value.is_integer():
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a whole number; write e.g. 200000000 or 2e8"
        )
    return int(value)


def _parse_param(text: str) -> tuple[str, Any]:
    from dpfuzz.errors import ConfigError

    name, separator, value = text.partition("=")
    if not separator or not name:
        raise ConfigError(
            f"--param {text!r} must look like NAME=VALUE (VALUE in JSON, or a bare string)."
        )
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value


# -- estimate -------------------------------------------------------------------------------------
def _estimate_command(args: argparse.Namespace, console) -> int:
    from dpfuzz.claims import PureDP
    from dpfuzz.errors import ConfigError
    from dpfuzz.estimation import estimate_epsilon
    from dpfuzz.targets import lookup, resolve

    _check_report_paths(args)
    claimed = {} if args.epsilon is None else {"epsilon": args.epsilon}
    params = dict(_parse_param(text) for text in args.param)
    # the claim is not used
    target = _with_domain_options(
        resolve(
            args.target,
            claimed=claimed,
            params=params,
            claim=PureDP(0.0),
            per_call=args.per_call,
            structured=args.structured,
        ),
        args,
    )
    where = target.domain
    if args.witness:
        entry = lookup(args.target)
        witness = (
            entry.witness(**entry.params(**claimed, **params))
            if hasattr(entry, "witness")
            else None
        )
        if witness is None:
            raise ConfigError(
                f"--witness needs a catalogue entry with a witness pair; {target.name} has none."
            )
        where = witness
    with (
        _cluster(args.scheduler) as client,
        console.status("estimating") if console.is_terminal else _nothing(),
    ):
        estimate = estimate_epsilon(
            target.mechanism,
            where,
            delta=args.delta,
            max_draws=args.max_draws,
            max_seconds=args.max_seconds,
            beta=args.beta,
            seed=args.seed,
            domain=target.domain if args.witness else None,
            dask_client=client,
        )
    if (
        args.max_seconds is None
    ):  # a timed estimate's draws are the clock's: it does not rerun exactly
        estimate = _with_reproduce(
            estimate, _reproduce_command(args.argv, args.seed is None, estimate.seed)
        )
    console.print(estimate.summary(), markup=False)
    _write_reports(console, ((args.json, estimate.to_json), (args.html, estimate.to_html)))
    return 0


def _cluster(address: str | None):
    """A Dask client of the scheduler at `address` (`dpfuzz.cluster`), or None without one."""
    from contextlib import nullcontext

    from dpfuzz.cluster import dask_client

    return nullcontext() if address is None else dask_client(address)


def _nothing():
    from contextlib import nullcontext

    return nullcontext()


# -- campaigns ------------------------------------------------------------------------------------
def _campaign_command(args: argparse.Namespace, console) -> int:
    import signal

    from dpfuzz.campaign import run_campaign
    from dpfuzz.errors import ClusterLost
    from dpfuzz.files import check_writable_folder

    # a kill ends the run as Ctrl-C does: workers stopped, the resume hint
    signal.signal(signal.SIGTERM, _stop)
    args.workers = _worker_count(args.workers, console)
    config, run_id, store = _campaign_to_run(args, console)
    if not args.no_report:
        check_writable_folder(args.results / "reports", "the reports folder")
    total = len(config.audits())
    console.print(
        f"dpfuzz campaign: {total} audits, budget {config.budget}, results in {store.path}"
    )
    resume = [
        "dpfuzz campaign run",
        *([str(args.config)] if args.config is not None else []),
        "--resume",
        "--results",
        str(args.results),
    ]
    args.interrupted = (
        f"interrupted: finished audits are stored in {store.path}; finish the run with"
        f" {' '.join(resume)}"
    )
    stored = 0 if run_id is None else len(store.finished_keys(run_id))
    lost = None
    with _Progress(console, total, stored) as advance:
        try:
            run_id = run_campaign(
                config,
                store,
                workers=args.workers,
                scheduler=args.scheduler,
                run_id=run_id,
                on_result=advance,
            )
        except ClusterLost as error:
            lost, run_id = error, error.run_id
    return _campaign_status(args, console, config, store, run_id, stored, lost, " ".join(resume))


def _campaign_to_run(
    args: argparse.Namespace, console
) -> tuple[CampaignConfig, int | None, ResultsStore]:
    """(config, run id or None for a new run, results store): the stored run `--resume` names,
    checked against the config given, or a new run's config and store."""
    from dpfuzz.campaign import CampaignConfig, load_config, validate
    from dpfuzz.errors import ConfigError
    from dpfuzz.files import check_writable_folder
    from dpfuzz.outcomes import RETRIED
    from dpfuzz.store import ResultsStore

    if args.retry_failed and args.resume is None:
        raise ConfigError(
            "--retry-failed runs a stored run's failed audits again: give it with --resume."
        )
    if args.resume is not None and not (args.results / "results.db").exists():
        raise ConfigError(
            f"--resume: no results database in {args.results}; pass the --results folder of the"
            " run."
        )
    if args.resume is not None:
        store = ResultsStore(args.results / "results.db")
        run = store.run(None if args.resume == -1 else args.resume)
        config, run_id = CampaignConfig.from_dict(run["config"]), run["run_id"]
        if args.config is None and config.imports():
            raise ConfigError(
                f"run {run_id}'s stored config names code to import"
                f" ({', '.join(config.imports())}); a results database is data, so a resumed run"
                " imports only what a config you give names: dpfuzz campaign run CONFIG --resume"
                f" --results {args.results}, with the config run {run_id} was started with."
            )
        if args.config is not None and load_config(args.config).to_dict() != config.to_dict():
            raise ConfigError(
                f"{args.config} is not the config run {run_id} was started with; give that config"
                f" to finish run {run_id}, or drop --resume to start a new run with {args.config}."
            )
        validate(config, f"run {run_id}'s config")
        store.lock_run(run_id)
        if args.retry_failed:
            retried = store.forget(run_id, RETRIED)
            console.print(
                f"--retry-failed: {retried} stored audit{'s' if retried != 1 else ''} will run"
                " again"
            )
    else:  # the config is checked before a results folder is made
        config, run_id = load_config(args.config), None
        check_writable_folder(args.results, "--results")
        store = ResultsStore(args.results / "results.db")
    return config, run_id, store


def _campaign_status(
    args: argparse.Namespace,
    console,
    config: CampaignConfig,
    store: ResultsStore,
    run_id: int | None,
    stored: int,
    lost: Exception | None,
    resume: str,
) -> int:
    """Print how the run ended, write its report, and return the exit status."""
    from rich.markup import escape as escape_markup

    from dpfuzz.campaign_report import counts, failures

    summaries = [] if run_id is None else store.summaries(run_id)
    tally = ", ".join(f"{count} {outcome}" for outcome, count in sorted(counts(summaries).items()))
    resumed = f" ({stored} of them stored before this resume)" if stored else ""
    if lost is not None:
        console.print(
            f"[bold red]run {run_id} incomplete:[/] {escape_markup(str(lost))}: finish it with"
            f" {resume}"
        )
    else:
        console.print(f"run {run_id} finished: {tally or 'no audits'}{resumed}")
    if args.no_report:
        allowed = args.allow_inconclusive or config.allow_inconclusive
        status = 1 if failures(summaries, allowed) else 0
    else:
        status = _write_report(
            store, run_id, args.results / "reports", None, console, args.allow_inconclusive
        )
    if lost is not None:
        status = 1
    return 0 if args.exit_zero else status


def _printable(text: str) -> str:
    """`text` with control characters (a newline, a terminal's escape codes) shown as escapes:
    names from a config or a results database cannot forge lines on the terminal."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


def _worker_count(workers: int, console) -> int:
    """`--workers`, at least 1 and at most this machine's cores (each worker runs audits that
    use a core; more only share them and multiply memory)."""
    import os

    from dpfuzz.errors import ConfigError

    if workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {workers}.")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if workers > (cores or 1):
        console.print(f"--workers {workers}: this machine has {cores} cores; running {cores}.")
        return cores or 1
    return workers


def _stop(signum, frame) -> None:
    raise KeyboardInterrupt


def _report_command(args: argparse.Namespace, console) -> int:
    from dpfuzz.errors import ConfigError
    from dpfuzz.store import ResultsStore

    if not (args.results / "results.db").exists():
        raise ConfigError(
            f"no results database in {args.results}; run 'dpfuzz campaign run' first or pass"
            " --results."
        )
    from dpfuzz.files import check_writable_folder

    store = ResultsStore(args.results / "results.db")
    out = check_writable_folder(args.out or args.results / "reports", "--out")
    if args.compare is not None:
        before, after = _compared_runs(store, args.compare)
        status = _write_report(store, after, out, before, console, args.allow_inconclusive)
    else:
        status = _write_report(store, args.run_id, out, None, console, args.allow_inconclusive)
    return 0 if args.exit_zero else status


def _compared_runs(store, runs: list[int]) -> tuple[int, int]:
    """(before, after) for ``--compare`` given `runs`: two runs, one and the latest, or the two
    latest."""
    from dpfuzz.errors import ConfigError

    if len(runs) > 2:
        raise ConfigError(f"--compare takes at most two runs, got {len(runs)}.")
    ids = [run["run_id"] for run in store.runs()]
    if len(runs) == 2:
        return runs[0], runs[1]
    if len(runs) == 1:
        return runs[0], ids[-1]
    if len(ids) < 2:
        raise ConfigError(
            f"--compare without runs compares the last two; {store.path} holds {len(ids)}."
        )
    return ids[-2], ids[-1]


def _write_report(store, run_id, out, compare_with, console, allow_inconclusive: bool) -> int:
    from rich.markup import escape

    from dpfuzz.campaign_report import failure_text, write_reports

    paths, failing = write_reports(store, run_id, out, compare_with, allow_inconclusive)
    for path in paths:
        console.print(f"report written to {path}")
    for failure in failing:
        outcome, text = _printable(failure["outcome"]), _printable(failure_text(failure))
        console.print(f"[bold red]{escape(outcome)}[/]: {escape(text)}")
    return 1 if failing else 0


class _Progress:
    """Rich progress bar on a terminal (from the audits already stored); one plain log line per
    audit otherwise."""

    def __init__(self, console, total: int, done: int = 0):
        self.console, self.total, self.done = console, total, done

    def __enter__(self):
        self.bar = None
        if self.console.is_terminal:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=self.console,
            )
            self.task = self.bar.add_task("audits", total=self.total, completed=self.done)
            self.bar.start()
        return self

    def __call__(self, summary: dict, done: int, total: int) -> None:
        epsilon, claimed = summary.get("epsilon_lower_bound"), summary.get("claimed_epsilon")
        which = f"finder {summary.get('finder')}, seed {summary.get('seed')}"
        text = f"{summary['target']} ({which}): {summary['outcome']}"
        if epsilon is not None:
            from dpfuzz.campaign_report import epsilon_text

            text += f", ε ≥ {epsilon_text(epsilon, claimed)}" + (
                "" if claimed is None else f" (claim {claimed:.3g})"
            )
        if summary.get("error"):
            text += f": {summary['error']}"
        text = _printable(text)
        if self.bar is not None:
            self.bar.update(self.task, completed=done, description=text)
        else:
            self.console.print(
                f"[{done}/{total}] {text} ({summary.get('seconds', 0):.1f} s)", markup=False
            )

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()


# -- catalogue ------------------------------------------------------------------------------------
def _catalog_command(args: argparse.Namespace, console) -> int:
    from rich.table import Table

    from dpfuzz.catalogue import catalogue
    from dpfuzz.claims import CLAIM_TYPES as TYPES

    satisfies = True if args.satisfies else False if args.violates else None
    claim_type = TYPES.get(args.claim) if args.claim else None
    entries = catalogue(satisfies=satisfies, claim_type=claim_type, family=args.family)
    if args.json:
        console.print_json(json.dumps([entry.to_dict() for entry in entries]))
        return 0
    table = Table(title="dpfuzz catalogue (audit one with: dpfuzz audit NAME)")
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
