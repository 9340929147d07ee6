"""One declaration per strategy (issue 19, item 3): the registry, the dispatcher's ids and
branches and the kernel generator's table all come from the strategy modules' own
declarations (heron_sim.strategies.declared)."""

import re
from pathlib import Path

import pytest

from heron_sim.loop import kernels
from heron_sim.strategies import REGISTRY, dispatch
from heron_sim.strategies.declared import declarations

pytestmark = pytest.mark.exact


def _declaring_modules() -> dict[str, str]:
    """module name -> the NAME it declares, read from the folder's sources (ast), independently of
    heron_sim.strategies.declared: every module with a top-level ``SID`` is a strategy."""
    import ast
    from pathlib import Path

    import heron_sim.strategies as pkg

    out = {}
    for path in sorted(Path(pkg.__file__).parent.glob("*.py")):
        consts = {t.id: n.value for n in ast.parse(path.read_text(encoding="utf-8")).body
                  if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        if "SID" in consts:
            out[f"heron_sim.strategies.{path.stem}"] = ast.literal_eval(consts["NAME"])
    return out


def test_every_declared_strategy_is_registered_in_listing_order():
    """Every strategy module of the folder is in the registry, in (ORDER, name) order, with what
    it declares (no list of names here: a correct new strategy passes)."""
    decls = declarations()
    assert {d.module: d.name for d in decls} == _declaring_modules()
    assert list(decls) == sorted(decls, key=lambda d: (d.order, d.name))
    assert [n for n in REGISTRY if n in {d.name for d in decls}] == [d.name for d in decls]
    for d in decls:
        info = REGISTRY[d.name]
        assert (info.sid, info.module, info.decide, info.tables, info.user_facing) == \
            (d.sid, d.module, d.decide, d.tables, d.user_facing)
        assert info.params == dict(d.params) and d.description and "\n" not in d.description


def test_every_declared_strategy_satisfies_the_contract():
    """Unique name and kernel id, a decision function of the dispatcher's arguments, numeric
    parameters; a strategy with tables is one the expert's programme serves."""
    import importlib

    decls = declarations()
    assert len({d.sid for d in decls}) == len({d.name for d in decls}) == len(decls)
    assert dispatch.PLUGIN not in {d.sid for d in decls}
    for d in decls:
        assert d.name.isidentifier() or d.name.replace("-", "_").isidentifier(), d.name
        fn = getattr(importlib.import_module(d.module), d.decide)
        assert callable(fn) and d.args.split(", ")[:3] == ["kind", "seat", "w"], (d.name, d.args)
        assert all(isinstance(v, (int, float)) and not isinstance(v, bool) for _, v in d.params), d.name
    assert {d.name for d in decls if d.user_facing} <= set(REGISTRY)


def test_the_declarations_keep_their_documented_values():
    """Two declarations the docs quote (docs/strategies.md)."""
    assert REGISTRY["prudent"].params == {"risk": 0.3}
    assert REGISTRY["expert"].tables and REGISTRY["racer"].tables and not REGISTRY["scripted"].user_facing
    # the rungs a module declares (RUNGS) are names of their own, after the declarations
    # (a test's own plug-in strategies may be registered after them: only the rungs are compared)
    rungs = [n for n in REGISTRY if REGISTRY[n].rung_of]
    assert rungs == ["novice", "casual", "regular", "reckless"]  # the ladder's rungs, then the styles
    assert list(REGISTRY)[len(declarations()):][:4] == rungs
    assert all(REGISTRY[n].rung_of == "human" for n in ("novice", "casual", "regular", "reckless"))


def test_dispatch_ids_and_kernel_table_are_derived():
    ids = {d.name: d.sid for d in declarations()}
    assert [d.name for d in declarations() if d.own_kernel] == ["greedy"]  # alone: its own kernel
    assert kernels.kernel_key([ids["greedy"]] * 4) == (ids["greedy"],)
    with kernels.shared_kernel():
        assert kernels.kernel_key([ids["greedy"]] * 4) == (ids["greedy"],)
        assert kernels.kernel_key([ids["expert"]] * 4) == kernels.SHARED
    with kernels.own_kernel():
        assert kernels.kernel_key([ids["expert"]] * 4) == (ids["expert"],)
    table = kernels._strategies()
    for d in declarations():
        assert table[d.sid] == (d.module, d.decide, d.args, d.name)
    assert set(table) == set(ids.values()) | {dispatch.PLUGIN}


def test_generated_dispatcher_has_one_branch_per_declaration():
    full = dispatch.dispatch_source()
    compile(full, "dispatch", "exec")
    src, hooks = full.split("def fused_turn(", 1)
    # the game loop's hooks: one branch per strategy that declares a fused turn or score
    turn, score = hooks.split("def fused_score(", 1)
    assert sorted(int(s) for s in re.findall(r"if sid == (\d+):", turn)) == sorted(
        d.sid for d in declarations() if d.fused_turn)
    assert sorted(int(s) for s in re.findall(r"if sid == (\d+):", score.split("def workspace_words(")[0])) == sorted(
        d.sid for d in declarations() if d.fused_score)
    branches = re.findall(r"if sid == (\d+):\n\s+return (\w+)\(", src)
    assert sorted((int(s), f) for s, f in branches) == sorted(
        [(d.sid, d.decide) for d in declarations()] + [(dispatch.PLUGIN, "call_address")])


def test_parameters_are_read_by_their_named_columns():
    """A strategy's parameters are read as ``sp[seat, NAME]`` (heron_sim.strategies.common.param_column),
    never by a bare column number; each name is the column seat_arrays writes that parameter to."""
    from heron_sim.rules import Rules
    from heron_sim.strategies import human, prudent, seat_arrays

    root = Path(__file__).resolve().parents[1] / "heron_sim"
    for folder in ("strategies", "loop", "playtest"):
        for path in (root / folder).glob("*.py"):
            bare = re.findall(r"sp\[(?:seat|s|ts), \d+\]", path.read_text(encoding="utf-8"))
            assert not bare, (path.name, bare)
    _, sp = seat_arrays(["human:temp=0.7;caution=-0.2;forget=0.4", "prudent:risk=0.15"], Rules.build(mode="8d8", players=2))
    assert (sp[0, human.TEMP], sp[0, human.CAUTION], sp[0, human.FORGET]) == (0.7, -0.2, 0.4)
    assert sp[1, prudent.RISK] == 0.15
