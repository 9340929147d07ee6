"""The lighter games' shared scaffolding (issue 34 item 4): the typed random stream, the core
frame, the rules merging, and frames pinned bit for bit to the code before the scaffolding moved
into ``heron_sim.games.base`` (60 games per game, seating and player count)."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

from heron_sim.engine.rng import new_state, stream_start
from heron_sim.errors import HeronSimError, RulesError
from heron_sim.games import available
from heron_sim.games.base import (CORE_COLUMNS, core_frame, game_stream, merge_flat, merge_tables, start_stream,
                                  stream)

pytestmark = [pytest.mark.exact]

#: sha256 (16 hex digits) of pandas' row hashes of ``simulate(..., games=60, seed=34,
#: first_game=5)``, computed with the code of commit 3224ede (before this issue's changes).
PINNED = {
    "akeruption|greedy,greedy": "14b3232e52458ac1",
    "akeruption|random,random": "5d113433cbd9672d",
    "akeruption|greedy,random": "d180c54118ea2876",
    "akeruption|greedy,greedy,greedy,greedy": "c1e15d08da27fa30",
    "akeruption|random,random,random,random": "bbfcb671d2638302",
    "akeruption|greedy,random,greedy,random": "7da38489eb6e7f46",
    "fire-mountain|greedy,greedy": "2be631cc06a4c31e",
    "fire-mountain|random,random": "9616a3f2c3465367",
    "fire-mountain|greedy,random": "a7c52bd908091e03",
    "fire-mountain|greedy,greedy,greedy,greedy": "c13588ad8c9306c6",
    "fire-mountain|random,random,random,random": "93a6870799b2c1e3",
    "fire-mountain|greedy,random,greedy,random": "b4fc8882fe2f1222",
    "mekong-dragons|greedy,greedy": "dda557e7c99a73d4",
    "mekong-dragons|random,random": "883586b285ecbb4f",
    "mekong-dragons|greedy,random": "95b330dc2bed19a3",
    "mekong-dragons|greedy,greedy,greedy,greedy": "8af18043d8e4a98c",
    "mekong-dragons|random,random,random,random": "e3a8273256908e3b",
    "mekong-dragons|greedy,random,greedy,random": "87d7e8ec40e03a49",
    "rampage|greedy,greedy": "4d746f35042b00eb",
    "rampage|random,random": "3a4c5b5ceb28d4f0",
    "rampage|greedy,random": "350e14211a18b147",
    "rampage|greedy,greedy,greedy,greedy": "8e16eafae658c509",
    "rampage|random,random,random,random": "87c34f593b6c5f34",
    "rampage|greedy,random,greedy,random": "1ba076633da31c17",
}


@pytest.mark.parametrize("key", sorted(PINNED))
def test_frames_bit_identical_to_the_code_before_the_shared_scaffolding(key):
    name, seats = key.split("|")
    g = available()[name]
    names = seats.split(",")
    df = g.simulate(g.load_rules(None, {}), games=60, players=len(names), seed=34, strategies=names, first_game=5)
    got = hashlib.sha256(pd.util.hash_pandas_object(df, index=True).values.tobytes()).hexdigest()[:16]
    assert got == PINNED[key]


def test_stream_is_the_engines_stream_and_a_wrong_state_raises():
    ref = new_state()
    stream_start(5, 9, ref)
    assert (stream(5, 9) == ref).all() and (game_stream(5, 9) == ref).all()
    st = np.zeros(3, np.uint64)
    start_stream(5, 9, st)
    assert (st == ref).all()
    for bad in (np.zeros(2, np.uint64), np.zeros(4, np.uint64)):
        with pytest.raises(ValueError, match="uint64\\[3\\]"):
            start_stream(5, 9, bad)
        with pytest.raises(HeronSimError, match="stream state: uint64"):
            stream(5, 9, bad)
    with pytest.raises(HeronSimError, match="stream state: int64\\[3\\]"):
        stream(5, 9, np.zeros(3, np.int64))
    with pytest.raises(HeronSimError, match="seed, game"):
        stream(-1, 0)


def test_core_frame_starts_with_the_core_columns_in_their_types():
    df = core_frame(7, 10, 2, ["greedy", "random"], np.array([0, -1]), np.array([3, 4]), np.array([1, 0]),
                    extra=np.array([1.5, 2.5]))
    assert tuple(df.columns) == CORE_COLUMNS + ("extra",)
    assert list(df["game"]) == [10, 11] and df["finished"].dtype == bool and df["seed"].dtype == np.int64
    assert set(df["seats"]) == {"greedy,random"} == set(df["strategies"])


def test_rules_merging_one_line_errors():
    d = {"a": 1.0, "b": [1, 2], "c": "x"}
    assert merge_flat(dict(d), [{"a": 2}], set(d)) == {"a": 2.0, "b": [1, 2], "c": "x"}
    for layer, msg in (({"z": 1}, "z: unknown rules key"), ({"b": 3}, "b: 3; allowed: a list"),
                       ({"c": 3}, "c: 3; allowed: a string")):
        with pytest.raises(RulesError, match=msg):
            merge_flat(dict(d), [layer], set(d))
    assert merge_flat(dict(d), [{"c": 3}], set(d), strings=False)["c"] == 3
    t = {"x": {"y": 1, "z": 2}, "w": 0}
    assert merge_tables(t, {"x": {"y": 5}}) == {"x": {"y": 5, "z": 2}, "w": 0} and t["x"]["y"] == 1
    with pytest.raises(RulesError, match="x.q: unknown key; allowed: y, z"):
        merge_tables(t, {"x": {"q": 1}})
    with pytest.raises(RulesError, match="x: expected a table"):
        merge_tables(t, {"x": 3})


def test_the_driver_seats_allocates_slices_and_names_the_columns():
    from heron_sim.games.driver import Driver, Out

    calls = []

    def kernel(arrays, seed, first, strat, out):  # a plain Python kernel: game i's values from i alone
        calls.append((first, len(out["winner"])))
        for g in range(len(out["winner"])):
            i = first + g
            out["winner"][g] = i % len(strat)
            out["length"][g] = arrays + i
            out["finished"][g] = i % 3 != 0
            out["score"][g, :] = strat * 10 + i
            out["grid"][g, :, :] = np.arange(6).reshape(2, 3) + i

    d = Driver(strategies=("a", "b"), min_players=2, max_players=3, kernel=kernel, chunk=4,
               prepare=lambda rules, players: rules * 100,
               outputs={"winner": Out(), "length": Out(), "finished": Out(np.bool_), "score": Out(np.int64, ("P",)),
                        "grid": Out(np.int64, (2, 3))})
    df = d.simulate(1, games=10, players=3, seed=9, strategies=["a", "b", "a"], first_game=5)
    assert tuple(df.columns) == CORE_COLUMNS + ("score_0", "score_1", "score_2", "grid_0_0", "grid_0_1", "grid_0_2",
                                                "grid_1_0", "grid_1_1", "grid_1_2")
    assert list(df["game"]) == list(range(5, 15)) and list(df["length"]) == [100 + i for i in range(5, 15)]
    assert list(df["score_1"]) == [10 + i for i in range(5, 15)] and list(df["grid_1_2"]) == [5 + i for i in range(5, 15)]
    assert sum(n for _, n in calls) == 10 and max(n for _, n in calls) <= 4  # slices of at most chunk games
    parts = pd.concat([d.simulate(1, games=n, players=3, seed=9, strategies=["a", "b", "a"], first_game=f)
                       for f, n in ((5, 3), (8, 7))], ignore_index=True)
    pd.testing.assert_frame_equal(parts, df)
    with pytest.raises(HeronSimError, match="strategies: .*allowed: 3 names among a, b"):
        d.simulate(1, games=2, players=3, seed=9, strategies=["a", "c", "a"])
    with pytest.raises(HeronSimError, match="players: 4; allowed: 2..3"):
        d.simulate(1, games=2, players=4, seed=9)
    with pytest.raises(HeronSimError, match="outputs winner; allowed: outputs that include winner, length, finished"):
        Driver(strategies=("a",), min_players=2, max_players=2, kernel=kernel, outputs={"winner": Out()})


def test_merged_table_and_table_rules(tmp_path):
    from heron_sim.games.tables import TableRules, defaults_table, merged_table, table_loader

    pkg = "heron_sim.games.akeruption"
    d = defaults_table(pkg)
    d["burnt"] = -1  # the copy is the caller's
    assert defaults_table(pkg)["burnt"] == 250
    m = merged_table(pkg, None, {"tiles": {"fork": 9}})
    assert m["tiles"]["fork"] == 9 and m["tiles"]["straight"] == defaults_table(pkg)["tiles"]["straight"]
    f = tmp_path / "r.toml"
    f.write_text("burnt = 300\n[geometry]\nmin_distance = 2\n", encoding="utf-8")
    m = merged_table(pkg, str(f), {"burnt": 260})
    assert m["burnt"] == 260 and m["geometry"]["min_distance"] == 2
    with pytest.raises(RulesError, match="^burnd: unknown key; allowed: critical, burnt"):
        merged_table(pkg, None, {"burnd": 1})
    load = table_loader(pkg, limits={"burnt": (10, 1000), "critical": (1, 999)})
    r = load(None, {"critical": [40, 120, 200], "geometry": {"village_share": 1}})
    assert isinstance(r, TableRules) and r.critical == (40, 120, 200) and r.geometry.village_share == 1.0
    assert r.to_table()["geometry"]["village_share"] == 1.0 and load(None, r.to_table()) == r
    assert hash(r) == hash(load(None, r.to_table())) and r != load(None, {})
    for over, msg in (({"burnt": 5}, r"burnt: 5; allowed: an integer in 10\.\.1000"),
                      ({"critical": [0, 1, 2]}, r"critical\[0\]: 0; allowed: an integer in 1\.\.999"),
                      ({"burnt": 1.5}, "burnt: 1.5; allowed: an integer"),
                      ({"geometry": {"x": 1}}, "geometry.x: unknown key")):
        with pytest.raises(RulesError, match=msg):
            load(None, over)
    def check(rules):
        if rules.burnt <= rules.critical[2]:
            raise RulesError(f"burnt: {rules.burnt}; allowed: above the last critical zone")
        if rules.burnt == 999:
            raise ValueError("a slip of the game's own check")

    load = table_loader(pkg, check=check)
    assert load(None, {}).burnt == 250
    with pytest.raises(RulesError, match="^burnt: 150; allowed: above the last critical zone$"):
        load(None, {"burnt": 150})
    with pytest.raises(RulesError, match="^invalid rules \\(ValueError: a slip"):
        load(None, {"burnt": 999})
    with pytest.raises(RulesError, match="limits: nope: not a key"):
        table_loader(pkg, limits={"nope": (0, 1)})
    with pytest.raises(AttributeError, match="read-only"):
        r.burnt = 3
    with pytest.raises(AttributeError, match="no key 'nope'"):
        r.nope
