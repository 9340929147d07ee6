"""The lighter games' rules as the designer's table (issue 19, item 7): ``to_table()`` gives every
key of the game's ``data/defaults.toml`` in its shape, ``load_rules`` on it (as overrides or as a
TOML file) rebuilds equal rules with the same ``digest()``; ``game simulate --out`` and the run
manifests carry that table, and the games replay from it alone.

Before, a lighter game's file metadata held no rules at all, and the manifests held the
dataclass fields (Akeruption's packed kernel ``params``), which nothing could load back.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heron_sim.errors import HeronSimError
from heron_sim.games import available, get, register
from heron_sim.tomlfile import package_toml
from tests.helpers import cli, game_package, shipped_games

pytestmark = pytest.mark.exact

#: every lighter game a package of heron_sim/games/ declares, and its package (no list of names:
#: a correct new game passes these tests)
PACKAGES = shipped_games()
GAMES = list(PACKAGES)

#: One changed rule set per game, nested keys and list items included, chosen to change the games.
CHANGED = {
    "akeruption": {"flow_heat": 35, "first_player": "random", "test_every_wall": False,
                   "walls": {"wood": 2}, "geometry": {"max_distance": 5, "village_share": 0.5},
                   "resources": {"probability": 0.4}},
    "fire-mountain": {"dice": 4, "score_target": [12, 11, 10], "end": "round",
                      "layout": ["ppjl", "JVPJ", "LHJC", "PJLP"], "faces": {"footprint": 1, "egg": 2},
                      "species": {"names": ["stegosaurus", "tyrannosaurus", "pteranodon"], "cost": {"stegosaurus": 2}}},
    "mekong-dragons": {"radius": 6, "plank_unit": 1, "forbidden_cards": ["jump", "move2"], "dragon_step": "first"},
    "rampage": {"start_teeth": 6, "move_success": [0, 1], "skills": [1, 0.25], "edible": "street",
                "adjacency": [[1, 2, 3, 4], [0, 2, 4], [1, 3, 4], [0, 2, 4], [0, 1, 2, 3]]},
}


def _defaults(name: str) -> dict:
    return package_toml(PACKAGES[name], "data/defaults.toml")


def _shape(d):
    """Keys in order, recursively (a table's layout without its values)."""
    return [(k, _shape(v)) if isinstance(v, dict) else k for k, v in d.items()]


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return "{ " + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + " }"


def _write_toml(path: Path, table: dict) -> Path:
    path.write_text("".join(f"{k} = {_toml_value(v)}\n" for k, v in table.items()), encoding="utf-8")
    return path


def test_every_game_package_declares_one_available_game():
    """Each package of heron_sim/games/ registers one game (the ones tested here), and every
    available game comes from a package with its defaults file."""
    import pkgutil

    import heron_sim.games as pkg

    folders = {f"heron_sim.games.{i.name}" for i in pkgutil.iter_modules(pkg.__path__) if i.ispkg}
    assert sorted(PACKAGES.values()) == sorted(folders) and list(available()) == GAMES
    for name, game in available().items():
        assert game_package(game) == PACKAGES[name] and _defaults(name)
        assert game.min_players <= game.max_players and game.strategies and game.title


def _changed(name: str) -> dict:
    """A changed rule set of game ``name``: the one written below, else the first top-level
    number of its defaults that the game accepts changed (a new game needs no entry)."""
    if name in CHANGED:
        return CHANGED[name]
    game = get(name)
    for key, value in _defaults(name).items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            try:
                game.load_rules(None, {key: value + 1})
            except HeronSimError:
                continue
            return {key: value + 1}
    pytest.fail(f"{name}: no top-level number of its defaults can change; add a changed rule set to CHANGED")


@pytest.mark.parametrize("name", GAMES)
def test_the_default_table_is_the_defaults_file(name):
    """Every key, in the file's order and nesting, with the file's values, JSON-able."""
    rules = get(name).load_rules(None, {})
    table = rules.to_table()
    assert _shape(table) == _shape(_defaults(name))
    assert table == _defaults(name)
    assert json.loads(json.dumps(table)) == table
    assert len(rules.digest()) == 12 and rules.digest() == get(name).load_rules(None, {}).digest()


@pytest.mark.parametrize("name", GAMES)
def test_a_changed_table_round_trips_as_overrides_and_as_a_toml_file(name, tmp_path):
    game = get(name)
    rules = game.load_rules(None, _changed(name))
    default = game.load_rules(None, {})
    table = rules.to_table()
    assert _shape(table) == _shape(_defaults(name)) and json.loads(json.dumps(table)) == table
    assert rules != default and rules.digest() != default.digest()
    again = game.load_rules(None, table)
    assert again == rules and again.digest() == rules.digest() and again.to_table() == table
    from_file = game.load_rules(str(_write_toml(tmp_path / "rules.toml", table)), {})
    assert from_file == rules and from_file.digest() == rules.digest()
    # the table names the change in the designer's words, not the kernel's codes
    for key, value in _changed(name).items():
        if not isinstance(value, dict) and key != "layout":
            assert table[key] == value, key
    assert len(table) == len(_defaults(name))


def test_the_table_reads_names_not_codes():
    ak = get("akeruption").load_rules(None, CHANGED["akeruption"]).to_table()
    assert "params" not in ak and ak["first_player"] == "random" and ak["geometry"]["max_distance"] == 5
    fm = get("fire-mountain").load_rules(None, CHANGED["fire-mountain"]).to_table()
    assert fm["layout"][0] == "PPJL"  # the letters of the grid (read upper case)
    assert fm["species"]["names"] == ["stegosaurus", "tyrannosaurus", "pteranodon"]
    assert fm["species"]["cost"]["stegosaurus"] == 2 and fm["faces"] == {"volcano": 1, "hut": 1, "cave": 1,
                                                                         "footprint": 1, "egg": 2}
    # numbers where the default is a number, so one set of rules has one hash
    assert get("mekong-dragons").load_rules(None, {"plank_unit": 2}).to_table()["plank_unit"] == 2.0
    ra = get("rampage").load_rules(None, CHANGED["rampage"]).to_table()
    assert ra["move_success"] == [0.0, 1.0] and ra["skills"] == [1.0, 0.25]
    assert (get("rampage").load_rules(None, {"move_success": [0, 1]}).digest()
            == get("rampage").load_rules(None, {"move_success": [0.0, 1.0]}).digest())


# ---------------------------------------------------------------- a property over a few keys
_probability = st.floats(0, 1, allow_nan=False, width=32).map(float)
KEYS = {  # game: (dotted key -> values), keys that can change independently
    "akeruption": {"flow_heat": st.integers(0, 60), "hand_limit": st.integers(0, 20),
                   "strict_zones": st.booleans(), "first_player": st.sampled_from(["seat0", "random"]),
                   "walls.wood": st.integers(-6, 6), "geometry.village_share": _probability,
                   "tiles.fork": st.integers(0, 30), "resources.probability": _probability},
    "fire-mountain": {"dice": st.integers(1, 10), "rolls": st.integers(1, 10), "free_order": st.booleans(),
                      "end": st.sampled_from(["eruption", "round"]), "faces.footprint": st.integers(0, 3),
                      "species.copies": st.integers(1, 8), "species.cost.plesiosaurus": st.integers(1, 20),
                      "volcano_spaces": st.lists(st.integers(1, 10), min_size=3, max_size=3)},
    "mekong-dragons": {"radius": st.integers(2, 12), "judgement_error": st.floats(0, 0.9).map(float),
                       "dragon_step": st.sampled_from(["guess", "first"]), "board_rotation": st.integers(0, 5),
                       "forbidden_cards": st.lists(st.sampled_from(["stone", "plank", "move", "jump", "dragon"]),
                                                   unique=True, max_size=3)},
    "rampage": {"escape_face": st.sampled_from(["A", "B"]), "start_teeth": st.integers(0, 20),
                "far_factor": _probability, "move_success": st.lists(_probability, min_size=2, max_size=2),
                "skills": st.lists(_probability, max_size=4), "edible": st.sampled_from(["free", "street"])},
}


def _nest(flat: dict) -> dict:
    out: dict = {}
    for key, value in flat.items():
        *head, last = key.split(".")
        cur = out
        for h in head:
            cur = cur.setdefault(h, {})
        cur[last] = value
    return out


@st.composite
def game_and_overrides(draw):
    name = draw(st.sampled_from(sorted(KEYS)))  # the games with keys written above
    keys = draw(st.lists(st.sampled_from(sorted(KEYS[name])), unique=True, min_size=1, max_size=4))
    return name, _nest({k: draw(KEYS[name][k]) for k in keys})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_and_overrides())
def test_property_any_rules_round_trip_and_the_digest_follows_the_table(case):
    name, overrides = case
    game = get(name)
    rules = game.load_rules(None, overrides)
    table = rules.to_table()
    again = game.load_rules(None, json.loads(json.dumps(table)))  # through JSON, as in a file's metadata
    assert again == rules and again.digest() == rules.digest()
    default = game.load_rules(None, {})
    assert (rules.digest() == default.digest()) == (table == default.to_table())


# ---------------------------------------------------------------- a fifth game must provide it
def test_a_game_whose_rules_have_no_table_is_refused_at_registration():
    base = get("mekong-dragons")

    @dataclasses.dataclass(frozen=True)
    class Bare:
        radius: int = 8

    def bare(rules_file=None, overrides=None):
        return Bare()

    bare.checked = True
    with pytest.raises(HeronSimError) as err:
        register(dataclasses.replace(base, name="zz-bare", load_rules=bare))
    assert "to_table" in str(err.value) and "\n" not in str(err.value)

    real = base.load_rules

    @dataclasses.dataclass(frozen=True)
    class Lossy:
        inner: object

        def to_table(self):
            return {"radius": 5}  # not these rules' table

        def digest(self):
            return "0" * 12

    def lossy(rules_file=None, overrides=None):
        return Lossy(real(None, dict(overrides or {})))

    lossy.checked = True
    with pytest.raises(HeronSimError) as err:
        register(dataclasses.replace(base, name="zz-lossy", load_rules=lossy))
    assert "rebuild" in str(err.value)
    assert list(available()) == GAMES


# ---------------------------------------------------------------- the result files and the runner
SEATS = {"akeruption": 3, "fire-mountain": 3, "mekong-dragons": 3, "rampage": 2}


@pytest.mark.parametrize("name", GAMES)
def test_game_simulate_out_holds_the_table_and_replays_from_it(name, tmp_path):
    from heron_sim import read_frame, read_meta
    from heron_sim.simulation import simulate_game

    game = get(name)
    P = SEATS.get(name, game.min_players)
    seats = ",".join(game.strategies[(s % 2)] for s in range(P))
    rules_file = _write_toml(tmp_path / "changed.toml", _changed(name))
    path = tmp_path / "games.parquet"
    run = simulate_game(name, 12, P, 5, seats, rules_file, path)
    assert run.written
    meta = read_meta(path)
    rules = game.load_rules(str(rules_file), {})
    assert meta["rules"] == rules.digest() and meta["rules_table"] == rules.to_table()
    assert (meta["seed"], meta["players"], meta["strategies"], meta["game"]) == (5, P, seats, name)
    assert meta["git_commit"] and meta["package_version"] and meta["format_version"]
    # The file alone replays its games: the table as overrides, the same seed, seats, strategies.
    replay = simulate_game(name, meta["requested"], meta["players"], meta["seed"], meta["strategies"],
                           overrides=meta["rules_table"])
    pd.testing.assert_frame_equal(replay.frame, run.frame)
    stored = read_frame(path)
    pd.testing.assert_frame_equal(stored.reset_index(drop=True), run.frame, check_dtype=False)
    # ... and the rules matter: the defaults play other games
    default = simulate_game(name, 12, P, 5, seats)
    assert not default.frame.equals(run.frame)


def test_game_simulate_cli_writes_the_table_to_a_csv_too(tmp_path):
    from heron_sim import read_meta

    path = tmp_path / "games.csv"
    rules_file = _write_toml(tmp_path / "changed.toml", {"radius": 6, "forbidden_cards": ["jump"]})
    res = cli("game", "simulate", "mekong-dragons", "--games", "6", "--players", "2", "--seed", "3",
              "--rules", rules_file, "--out", path)
    assert res.exit_code == 0, res.output
    meta = read_meta(path)
    rebuilt = get("mekong-dragons").load_rules(None, meta["rules_table"])
    assert rebuilt.radius == 6 and rebuilt.forbidden_cards == ("jump",) and rebuilt.digest() == meta["rules"]


def _old_table(rules) -> dict:
    """What a manifest held before: the dataclass fields (the old ``light_rules_table``)."""
    def conv(v):
        return [conv(x) for x in v] if isinstance(v, (list, tuple)) else v
    return {f.name: conv(getattr(rules, f.name)) for f in dataclasses.fields(rules)}


def test_a_games_run_of_an_older_manifest_resumes_replaying_its_jobs_once(tmp_path, monkeypatch):
    """A manifest written before (the dataclass fields, their hash) resumes: its finished jobs'
    hashes differ from today's, so they are played again once (the same seeds: the same
    frames), then kept; the manifest's tables rebuild each job's rules (RunData.rules)."""
    import heron_sim.runner.run as run_mod
    from heron_sim.runner.run import RunData

    exp = tmp_path / "games.toml"
    exp.write_text('name = "games"\nkind = "games"\ntitle = "t"\nseed = 4\ngames = 6\nmixed_games = 6\n'
                   'players = 2\nlight_games = ["akeruption"]\nfigures = ["seats"]\n', encoding="utf-8")
    run_dir = tmp_path / "run"
    assert cli("run", exp, "--run-dir", run_dir).exit_code == 0
    mpath = run_dir / "manifest.json"
    m = json.loads(mpath.read_text())
    jobs = m["experiments"][0]["jobs"]
    data = RunData(run_dir).experiments()[0][1]
    game = get("akeruption")
    for j in jobs:  # today's manifest: the designer's table and its hash, rebuilt by RunData.rules
        rules = data.rules(j["key"])
        assert rules.to_table() == j["rules"] and rules.digest() == j["rules_hash"]
    assert data.rules(jobs[0]["key"]) == game.load_rules(None, {})
    frames = {j["key"]: pd.read_parquet(run_dir / "games" / f"{j['key']}.parquet") for j in jobs}
    import hashlib

    for j in jobs:  # ... made into an older one, interrupted before its last job
        old = _old_table(data.rules(j["key"]))
        j["rules"] = old
        j["rules_hash"] = hashlib.sha256(json.dumps(old, sort_keys=True, default=str).encode()).hexdigest()[:12]
    last = jobs.pop()
    m.update(status="interrupted", interrupted=True, jobs_done=len(jobs))
    mpath.write_text(json.dumps(m))
    (run_dir / "games" / f"{last['key']}.parquet").unlink()

    real, played = run_mod.play_job, []

    def play(job, progress=None):
        played.append(job.key)
        return real(job, progress)

    monkeypatch.setattr(run_mod, "play_job", play)
    res = cli("run", "--resume", "--run-dir", run_dir)
    assert res.exit_code == 0, res.output
    assert sorted(played) == sorted(frames), "every job of the older manifest is played once again"
    m = json.loads(mpath.read_text())
    assert m["status"] == "complete"
    for j in m["experiments"][0]["jobs"]:
        pd.testing.assert_frame_equal(pd.read_parquet(run_dir / "games" / f"{j['key']}.parquet"), frames[j["key"]])
        assert j["rules_hash"] == RunData(run_dir).experiments()[0][1].rules(j["key"]).digest()
    # once upgraded, a resume replays nothing
    m.update(status="interrupted", interrupted=True)
    mpath.write_text(json.dumps(m))
    played.clear()
    assert cli("run", "--resume", "--run-dir", run_dir).exit_code == 0
    assert played == []
