"""The skill ladder anchored on the champion (docs/strategies.md, « L'échelle mesurée »; issue 57
item 4): each rung's mean loss of winning chance per keep-or-stop decision against the champion,
and each step's head-to-head share at two players.

    .venv/bin/python experiments/ladder_loss.py [--games 300] [--duel 10000] [--json out.json]

Loss: four identical players of each kind (8 D8, the rulings), ``--games`` games logged
(heron_sim.playtest.log_turns, seed 31), every keep-or-stop decision valued as the champion values
it with the other seats played by that kind (heron_sim.playtest.chances), a 95 % interval with the
games as clusters. Head to head: heron_sim.tournament (two players, seats and guides mirrored,
``--duel`` games a seating, seed 32), the share of the stronger of each adjacent pair with its
95 % Wilson interval. About 10 minutes on 2 cores at the defaults.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from heron_sim.playtest import write_turn_log
from heron_sim.playtest.chances import log_chances, loss_of
from heron_sim.playtest.log import read_log
from heron_sim.rules import Rules
from heron_sim.tournament import tournament

#: The ladder, weakest first, then the styles and the bots beside it.
LADDER = ("novice", "casual", "regular", "expert", "champion")
BESIDE = ("reckless", "racer")
LOSS_SEED, DUEL_SEED = 31, 32


def losses(games: int) -> dict:
    rules = Rules.build(mode="8d8", players=4)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for kind in LADDER + BESIDE:
            t = time.perf_counter()
            path = Path(tmp) / f"{kind}.csv"
            write_turn_log(path, rules, games, LOSS_SEED, ",".join([kind] * 4))
            log = read_log(path, rules)
            loss = loss_of(log_chances(log, rules, kind), log.game)
            out[kind] = loss.as_dict()
            print(f"{kind:10s} {loss.points:6.3f} [{loss.low:6.3f}, {loss.high:6.3f}] points a decision, "
                  f"{loss.decisions} decisions, agrees {100 * loss.agree:4.1f} % ({time.perf_counter() - t:.0f} s)",
                  flush=True)
    return out


def duels(games: int) -> dict:
    res = tournament(Rules.build(mode="8d8", players=2), list(LADDER), games, seed=DUEL_SEED)
    out = {}
    for weak, strong in zip(LADDER, LADDER[1:]):
        out[f"{strong}>{weak}"] = {k: float(getattr(res, k).loc[strong, weak]) for k in ("win_rate", "low", "high")}
        print(f"{strong} against {weak}: {100 * res.win_rate.loc[strong, weak]:.1f} % "
              f"[{100 * res.low.loc[strong, weak]:.1f}, {100 * res.high.loc[strong, weak]:.1f}]", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300, help="four-player games logged per kind of player")
    ap.add_argument("--duel", type=int, default=10_000, help="two-player games per seating of each pair")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args()
    doc = {"loss": losses(a.games), "duels": duels(a.duel), "games": a.games, "duel_games": a.duel,
           "seeds": {"loss": LOSS_SEED, "duels": DUEL_SEED}}
    if a.json is not None:
        a.json.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
