"""Every lighter game's frames pinned bit for bit (issue 34 item 4): the shared scaffolding
(rules loader, simulate driver, summaries) moved into ``heron_sim.games.base`` without changing
one game's results.

``tests/data/light_games_golden.json`` holds, for each game, each player count it allows and
each of three seatings (its first real player in every seat, its second real player in every
seat, the two alternating round the table), a hash of ``simulate(default rules, games=300,
seed=12345)``: the first 16 hex digits of the SHA-256 of pandas' row hashes (index included),
with the frame's columns and dtypes beside it so that a failure says what moved, and the hash
of the game's Markdown summary of that frame (the report's pages translate it phrase by phrase:
the shared sections must write each game's words as before). The file was
written by ``python -m tests.games.test_games_golden`` on the code of commit dd49c49, before
the refactor; regenerate it only for a change meant to alter a game's results, and say so in
the commit.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest

pytestmark = [pytest.mark.exact]

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "light_games_golden.json"
GAMES, SEED = 300, 12345


def _seatings(game, players: int) -> dict[str, list[str]]:
    first, second = (tuple(game.real_players()) + tuple(game.strategies))[:2]
    if second == first:
        second = next(s for s in game.strategies if s != first)
    return {"first": [first] * players, "second": [second] * players,
            "mixed": [(first, second)[i % 2] for i in range(players)]}


def frame_hash(df: pd.DataFrame) -> str:
    return hashlib.sha256(pd.util.hash_pandas_object(df, index=True).values.tobytes()).hexdigest()[:16]


def cases(games) -> list[tuple[str, str, int, list[str]]]:
    out = []
    for name, g in sorted(games.items()):
        for players in range(g.min_players, g.max_players + 1):
            for label, seats in _seatings(g, players).items():
                out.append((f"{name}|{players}|{label}", name, players, seats))
    return out


def measure(game, players: int, seats: list[str]) -> dict:
    df = game.simulate(game.load_rules(None, {}), games=GAMES, players=players, seed=SEED, strategies=seats)
    return {"seats": ",".join(seats), "hash": frame_hash(df),
            "columns": [f"{c}:{t}" for c, t in df.dtypes.astype(str).items()],
            "summary": hashlib.sha256(game.summarize(df).encode()).hexdigest()[:16]}


def _golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def _keys() -> list[str]:
    return sorted(_golden()["frames"]) if GOLDEN.is_file() else []


def test_the_golden_file_covers_every_game_and_seating():
    from heron_sim.games import available

    assert sorted(k for k, *_ in cases(available())) == _keys()


@pytest.mark.parametrize("key", _keys())
def test_frames_bit_identical_to_the_golden_file(key):
    from heron_sim.games import get

    name, players, _ = key.split("|")
    want = _golden()["frames"][key]
    got = measure(get(name), int(players), want["seats"].split(","))
    assert got["columns"] == want["columns"]
    assert got["hash"] == want["hash"], f"{key}: the frame changed"
    assert got["summary"] == want["summary"], f"{key}: the summary's text changed"


def main() -> None:  # python -m tests.games.test_games_golden
    import subprocess

    from heron_sim.games import available

    frames = {}
    for key, name, players, seats in cases(available()):
        frames[key] = measure(available()[name], players, seats)
        print(key, frames[key]["hash"], flush=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    doc = {"games": GAMES, "seed": SEED, "commit": commit, "frames": frames}
    tmp = GOLDEN.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(GOLDEN)


if __name__ == "__main__":
    main()
