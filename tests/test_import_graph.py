"""No circles (issue 19, item 4): the import graph of heron_sim, read from the sources (ast,
function-local imports included), has no cycle between modules; the engine's core lies below
the strategies; and the runner, the report and the lab do not import one another in a circle (the experiment kinds
compute sections as plain data, heron_sim.sections; the report renders them and draws their
figures)."""

import ast
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.exact

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "heron_sim"

#: The compiled engine's three floors, bottom first: the core (heron_sim.engine: layout, dice,
#: random streams, the rules' functions), the strategies on it, the game loop (heron_sim.loop:
#: turn, game, moves, powers, squares, the kernels and batches) that calls them on top.
FLOORS = ("heron_sim.engine", "heron_sim.strategies", "heron_sim.loop")

#: Cycles not broken yet, each with why. A new cycle, or a known one that grows, fails.
KNOWN_MODULE_CYCLES: list[set[str]] = []  # none left (expert_dp no longer asks expert_powers:
# heron_sim.strategies.expert_build builds the tables from both)
#: Edges between runner, report and lab tolerated although they close a circle: none left (the
#: kinds once imported report.section, report.figures and report.judge while the report called
#: their ``analyse``). Any such edge fails.
KNOWN_EDGES: set[tuple[str, str]] = set()


def _known(m: str, d: str) -> bool:
    return any((m == a or m.startswith(a + ".")) and d == b for a, b in KNOWN_EDGES)


def _modules(root: Path = ROOT) -> dict[str, tuple[Path, bool]]:
    mods = {}
    for p in (root / "heron_sim").rglob("*.py"):
        parts = list(p.relative_to(root).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        mods[".".join(parts[:-1] if is_pkg else parts)] = (p, is_pkg)
    return mods


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """module -> the heron_sim modules it imports (anywhere in its source) of the package under
    ``root``."""
    mods = _modules(root)
    edges = {}
    for name, (path, is_pkg) in mods.items():
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)] if node.level else []
                prefix = ".".join(base + ([node.module] if node.module else []))
                targets = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in mods else prefix for a in node.names]
            for t in targets:
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if t and t != name and t.startswith("heron_sim"):
                    deps.add(t)
        edges[name] = deps
    return edges


def cycles(edges: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in list(edges):
        if v not in index:
            visit(v)
    return out


def test_the_cycle_finder_finds_a_cycle():  # negative control
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_between_modules():
    found = cycles(import_graph())
    unexpected = [c for c in found if c not in KNOWN_MODULE_CYCLES]
    assert not unexpected, f"import cycles: {[sorted(c) for c in unexpected]}"


def _floor(module: str) -> int | None:
    return next((i for i, f in enumerate(FLOORS) if module == f or module.startswith(f + ".")), None)


def upward_imports(edges: dict[str, set[str]]) -> list[tuple[str, str]]:
    """The imports that run from a floor of the engine up to a higher one."""
    return sorted((m, d) for m, ds in edges.items() for d in ds
                  if _floor(m) is not None and _floor(d) is not None and _floor(d) > _floor(m))


def test_no_import_runs_up_the_engines_floors():
    assert upward_imports(import_graph()) == []
    # negative control: the check sees an arrow from the core up to the loop
    assert upward_imports({"heron_sim.engine.dice": {"heron_sim.loop.turn"}}) == [
        ("heron_sim.engine.dice", "heron_sim.loop.turn")]


def test_the_game_loop_names_no_strategy():
    """heron_sim.loop reaches the strategies only through the generated dispatcher (built from
    their declarations) and their shared helpers (strategies.common): no module of the loop
    imports a strategy's module, its turn or its id."""
    from heron_sim.strategies.declared import declarations

    allowed = {"dispatch", "declared", "common", "plugins"}
    for path in (PKG / "loop").glob("*.py"):
        src = path.read_text(encoding="utf-8")
        for mod in re.findall(r"strategies\.(\w+) import", src):
            assert mod in allowed, (path.name, mod)
        for d in declarations():
            assert d.name.upper() + " " not in src and "HAS_" + d.name.upper() not in src, (path.name, d.name)


def test_no_cycle_between_runner_report_and_lab():
    watched = {"runner", "report", "lab"}
    pk: dict[str, set[str]] = {}
    for m, ds in import_graph().items():
        a = m.split(".")[1] if m.count(".") else ""
        for d in ds:
            b = d.split(".")[1] if d.count(".") else ""
            if a in watched and b in watched and a != b and not _known(m, d):
                pk.setdefault(a, set()).add(b)
    assert cycles(pk) == [], pk


#: The package's folders, bottom first: a folder imports only folders below it, anywhere in its
#: source (function-local imports included). The modules at the package's root (simulation,
#: tournament, io, ...) are the glue between floors and are not placed.
FOLDER_ORDER = ("rules", "engine", "exact", "strategies", "loop", "analysis", "playtest", "games",
                "runner", "lab", "report", "explore", "cli")


def _folder(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in FOLDER_ORDER else None


def arrows_back(edges: dict[str, set[str]]) -> list[tuple[str, str]]:
    """The imports from a folder up to a folder above it in FOLDER_ORDER."""
    rank = {f: i for i, f in enumerate(FOLDER_ORDER)}
    return sorted((m, d) for m, ds in edges.items() for d in ds
                  if _folder(m) and _folder(d) and rank[_folder(d)] > rank[_folder(m)])


def test_every_folder_is_placed():
    folders = {p.name for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert folders - set(FOLDER_ORDER) == set(), "place the new folder in FOLDER_ORDER"


def test_no_folder_imports_one_above_it():
    assert arrows_back(import_graph()) == []


def test_an_arrow_back_inside_a_function_is_seen(tmp_path):
    """Negative control: a function-local import of the lab from the analysis (the arrow the
    report's "what to change" once was) is an edge of the graph and an arrow back."""
    for f in ("heron_sim", "heron_sim/analysis", "heron_sim/lab"):
        (tmp_path / f).mkdir()
        (tmp_path / f / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "heron_sim/lab/light_outputs.py").write_text("def light_answers():\n    pass\n", encoding="utf-8")
    (tmp_path / "heron_sim/analysis/game_verdict.py").write_text(
        "def f():\n    from ..lab.light_outputs import light_answers\n    return light_answers\n", encoding="utf-8")
    assert arrows_back(import_graph(tmp_path)) == [("heron_sim.analysis.game_verdict", "heron_sim.lab.light_outputs")]
    assert arrows_back({"heron_sim.lab.study": {"heron_sim.analysis.stats"}}) == []
