"""One declaration per strategy (issue 19, item 3): the registry, the dispatcher's ids and
branches and the kernel generator's table all come from the strategy modules' own
declarations (heron_sim.strategies.declared)."""

import re

import pytest

from heron_sim.engine import kernels
from heron_sim.strategies import REGISTRY, dispatch
from heron_sim.strategies.declared import declarations

pytestmark = pytest.mark.exact


def test_registry_is_the_declarations_in_listing_order():
    decls = declarations()
    assert [d.name for d in decls] == ["greedy", "prudent", "expert", "racer", "human", "random", "scripted"]
    for d in decls:
        info = REGISTRY[d.name]
        assert (info.sid, info.module, info.decide, info.tables, info.user_facing) == \
            (d.sid, d.module, d.decide, d.tables, d.user_facing)
    assert REGISTRY["prudent"].params == {"risk": 0.3}
    assert REGISTRY["expert"].tables and REGISTRY["racer"].tables and not REGISTRY["scripted"].user_facing
    # the rungs a module declares (RUNGS) are names of their own, after the declarations
    assert list(REGISTRY)[len(decls):] == ["novice", "casual", "regular"]
    assert all(REGISTRY[n].rung_of == "human" for n in ("novice", "casual", "regular"))


def test_dispatch_ids_and_kernel_table_are_derived():
    ids = {d.name: d.sid for d in declarations()}
    assert (dispatch.GREEDY, dispatch.RANDOM, dispatch.SCRIPTED, dispatch.EXPERT, dispatch.PRUDENT,
            dispatch.RACER) == tuple(ids[n] for n in ("greedy", "random", "scripted", "expert", "prudent", "racer"))
    assert (kernels.GREEDY, kernels.EXPERT) == (dispatch.GREEDY, dispatch.EXPERT)
    table = kernels._strategies()
    for d in declarations():
        assert table[d.sid] == (d.module, d.decide, d.args, d.name)
    assert set(table) == set(ids.values()) | {dispatch.PLUGIN}


def test_generated_dispatcher_has_one_branch_per_declaration():
    src = dispatch.dispatch_source()
    branches = re.findall(r"if sid == (\d+):\n\s+return (\w+)\(", src)
    assert sorted((int(s), f) for s, f in branches) == sorted(
        [(d.sid, d.decide) for d in declarations()] + [(dispatch.PLUGIN, "call_address")])
    compile(src, "dispatch", "exec")
