"""The house rules of docs/explanation/architecture.md, checked on the source: no import circle, no
private name imported across modules, the engine never probes a tester, code comments carry no
history, front doors stay short, and tests pass policies rather than patching constants."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dpfuzz"
CATALOGUE = ROOT / "mechanisms"  # installed as dpfuzz.catalogue


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def not_run(tree: ast.Module) -> set[int]:
    """Line numbers of imports that are not the module's working dependencies: type-checking
    blocks, and module `__getattr__`s that warn (aliases kept for a deprecation)."""
    lines = set()
    for node in tree.body:
        warns = (
            isinstance(node, ast.FunctionDef)
            and node.name == "__getattr__"
            and "warn" in ast.unparse(node)
        )
        if warns or (isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"):
            lines.update(range(node.lineno, node.end_lineno + 1))
    return lines


def imports(known: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the dpfuzz modules it imports anywhere (function bodies included)."""

    def resolve(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for module, path in known.items():
        tree, targets = ast.parse(path.read_text()), set()
        skipped = not_run(tree)
        for node in ast.walk(tree):
            if getattr(node, "lineno", None) in skipped:
                continue
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dpfuzz"):
                targets.update(
                    resolve(f"{node.module}.{alias.name}") or resolve(node.module)
                    for alias in node.names
                )
            elif isinstance(node, ast.Import):
                targets.update(
                    resolve(alias.name) for alias in node.names if alias.name.startswith("dpfuzz")
                )
        graph[module] = {target for target in targets if target and target != module}
    return graph


def test_no_import_circle():
    graph = imports(modules())
    state: dict[str, int] = {}  # 1 on the path, 2 done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                pytest.fail("import circle: " + " -> ".join([*path[path.index(target) :], target]))
            if target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


# The floors of docs/explanation/architecture.md: a module imports from its own floor or lower ones.
FLOORS = {
    1: [
        "names",
        "outcomes",
        "errors",
        "validation",
        "memory",
        "process_tree",
        "files",
        "claims",
        "datasets",
        "relations",
        "strategies",
        "domain",
        "mechanism",
        "error_outcomes",
        "outputs",
        "divergences",
    ],
    2: [
        "testers",
        "finders",
        "profiles",
        "output_histograms",
        "settings",
        "engine.stops",
        "engine.schedule",
        "engine.policy",
        "engine.verdict",
        "trials",
    ],
    3: ["report", "report_text", "report_html", "estimate_report"],
    4: ["engine"],
    5: ["auditing", "estimation", "reporting", "one_run", "assertions"],
    6: [
        "adapters",
        "targets",
        "campaign",
        "campaign_report",
        "store",
        "cli",
        "pytest_plugin",
        "schedule",
        "",
    ],
}


def floor(module: str) -> int:
    """The floor of the longest prefix of `module` that FLOORS names."""
    name = module.removeprefix("dpfuzz").removeprefix(".")
    best = max(
        (
            prefix
            for prefixes in FLOORS.values()
            for prefix in prefixes
            if name == prefix or name.startswith(prefix + ".") or prefix == ""
        ),
        key=len,
    )
    return next(level for level, prefixes in FLOORS.items() if best in prefixes)


def test_imports_go_down_the_floors_never_up():
    graph = imports(modules())
    upward = [
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in targets
        if floor(target) > floor(module)
    ]
    assert not upward, "imports from a higher floor:\n" + "\n".join(sorted(upward))


@pytest.mark.parametrize("folder", ["dpfuzz", "mechanisms", "benchmarks"])
def test_no_private_name_is_imported_from_another_module(folder):
    offenders = []
    for path in (ROOT / folder).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dpfuzz"):
                private = [alias.name for alias in node.names if alias.name.startswith("_")]
                if private:
                    offenders.append(
                        f"{path.relative_to(ROOT)}: from {node.module} import {', '.join(private)}"
                    )
    assert not offenders, "\n".join(offenders)


def test_no_benchmark_script_imports_another():
    scripts = {path.stem for path in (ROOT / "benchmarks").glob("*.py")} - {
        "results_table",
        "cases",
    }
    offenders = [
        f"{path.name} imports {node.module}"
        for path in (ROOT / "benchmarks").glob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and node.module in scripts
    ]
    assert not offenders, (
        "shared helpers go in benchmarks/cases.py or results_table.py:\n" + "\n".join(offenders)
    )


CONCRETE_TESTERS = ("hockey_stick", "histogram", "mmd", "renyi", "float_bits", "either", "models")


def test_the_engine_imports_no_concrete_tester_and_no_report():
    """Engine modules see testers through `Tester` and build no report: a second estimator or
    report composes the engine without editing it."""
    forbidden = {"dpfuzz.report", "dpfuzz.estimate_report", "dpfuzz.reporting"} | {
        f"dpfuzz.testers.{name}" for name in CONCRETE_TESTERS
    }
    graph = imports(modules())
    offenders = [
        f"{module} -> {target}"
        for module, targets in graph.items()
        if module.startswith("dpfuzz.engine")
        for target in targets
        if target in forbidden
    ]
    assert not offenders, "\n".join(sorted(offenders))


def test_the_engine_never_probes_a_tester():
    for path in (PACKAGE / "engine").glob("*.py"):
        source = path.read_text()
        assert not re.search(r"\b(hasattr|getattr)\(\s*\w*tester", source), (
            f"{path.name} probes a tester"
        )


def test_code_comments_carry_no_dates_and_no_before_after_figures():
    offenders = []
    for path in [*PACKAGE.rglob("*.py"), *CATALOGUE.rglob("*.py")]:
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if re.search(r"\b20\d\d-\d\d-\d\d\b", line) or re.search(r"\d\s*(→|->)\s*\d", line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "history belongs in docs/decisions/:\n" + "\n".join(offenders)


def test_front_doors_are_short_and_engine_functions_fit_a_screen():
    for name in ("auditing.py", "estimation/__init__.py"):
        assert len((PACKAGE / name).read_text().splitlines()) < 250, name
    for path in [*(PACKAGE / "engine").glob("*.py"), *(PACKAGE / "estimation").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert node.end_lineno - node.lineno < 60, (
                    f"{path.name}: {node.name} has {node.end_lineno - node.lineno + 1} lines"
                )


def test_tests_pass_policies_rather_than_patching_module_constants():
    pattern = re.compile(r"monkeypatch\.setattr\(\s*[\w.]+\s*,\s*[\"'][A-Z][A-Z0-9_]*[\"']")
    offenders = [
        path.name for path in (ROOT / "tests").rglob("*.py") if pattern.search(path.read_text())
    ]
    assert not offenders, offenders


def test_every_policy_number_says_what_it_trades_and_cites_its_record():
    from dpfuzz.engine.policy import AuditPolicy, EstimationPolicy, policy_fields

    records = {
        path.name[:4] for path in (ROOT / "docs" / "decisions").glob("[0-9][0-9][0-9][0-9]-*.md")
    }
    for policy in (AuditPolicy, EstimationPolicy):
        defaults = policy()
        for name, text in policy_fields(policy).items():
            assert text, f"{policy.__name__}.{name} has no description"
            if isinstance(getattr(defaults, name), (int, float)):
                cited = re.findall(r"\((\d{4})\)", text)
                assert cited and set(cited) <= records, (
                    f"{policy.__name__}.{name} cites no existing record: {cited}"
                )


def _unannotated(function: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> list[str]:
    arguments = function.args
    named = arguments.posonlyargs + arguments.args + arguments.kwonlyargs
    if method and named and named[0].arg in ("self", "cls"):
        named = named[1:]
    starred = [arg for arg in (arguments.vararg, arguments.kwarg) if arg is not None]
    missing = [arg.arg for arg in named + starred if arg.annotation is None]
    if function.returns is None and function.name != "__init__":
        missing.append("return")
    return missing


def test_every_public_function_is_fully_annotated():
    """`py.typed` ships: what users call has types (private names and nested functions aside)."""
    offenders = []

    def visit(node: ast.AST, path: Path, method: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                dunder = child.name.startswith("__") and child.name.endswith("__")
                missing = _unannotated(child, method)
                if (dunder or not child.name.startswith("_")) and missing:
                    offenders.append(
                        f"{path.relative_to(ROOT)}:{child.lineno} {child.name} {missing}"
                    )
            elif isinstance(child, ast.ClassDef) and not child.name.startswith("_"):
                visit(child, path, True)

    for path in [*PACKAGE.rglob("*.py"), *CATALOGUE.rglob("*.py")]:
        if not any(part.startswith("_") and part != "__init__.py" for part in path.parts):
            visit(ast.parse(path.read_text()), path, False)
    assert not offenders, "\n".join(offenders)
