"""Each seat's square at the end of every round, by replaying stored games round by round.

The engine records positions only at mid-game and at the end. Rather than change it, a game of
a run folder is played again from its own stream (seed, game) with the engine's own functions
(``reset_game``, ``deal_guides``, then ``play_scripted`` one round of turn slots at a time, the
same calls ``play_game`` makes), reading the squares between rounds. The replay is checked
against the stored game (winner, rounds, final squares): a replay that differs is refused.

From the trajectories: the chance that the leader at a given point of the game wins, and the
winner's worst deficit (the most squares it was behind the leader at the end of a round).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..engine import layout as L
from ..loop.batch import play_scripted
from ..loop.game import deal_guides, reset_game
from ..engine.pack import new_workspace, pack_rules
from ..engine.rng import new_state, stream_start
from ..strategies import memo_words, seat_arrays


class ReplayMismatch(RuntimeError):
    """A replayed game differs from the stored one."""


def replay(rules, row) -> np.ndarray:
    """Squares (int[rounds, players]) at the end of every round of one stored game (``row``: a
    row of a games frame: seed, game, strategy_0..). The last row is the end of the game (the
    winner's turn, mid-round). Raises :class:`ReplayMismatch` when the replay differs."""
    P = rules.players
    seating = [str(row[f"strategy_{s}"]) for s in range(P)]
    sids, sp = seat_arrays(seating, rules)
    R = pack_rules(rules)
    w = new_workspace(R, sids, memo=memo_words(R, sids))
    rng = new_state()
    stream_start(np.uint64(int(row["seed"])), int(row["game"]), rng)
    reset_game(w)
    deal_guides(w, rng)
    out = []
    winner = -1
    for _ in range(int(rules.max_rounds)):
        winner = int(play_scripted(0, P, w, R, rng, sp))
        out.append([int(w[L.POS + s]) for s in range(P)])
        if winner >= 0:
            break
    pos = np.array(out, dtype=np.int64)
    stored = [int(row[f"pos_{s}"]) for s in range(P)]
    if winner != int(row["winner"]) or len(out) != int(row["rounds"]) or list(pos[-1]) != stored:
        raise ReplayMismatch(f"game {int(row['game'])} of seed {int(row['seed'])}: replay winner {winner}, "
                             f"{len(out)} rounds, squares {list(pos[-1])}; stored {int(row['winner'])}, "
                             f"{int(row['rounds'])}, {stored}")
    return pos


def leader_and_deficit(pos: np.ndarray, winner: int, points=(0.25, 0.5, 0.75)) -> dict:
    """From one game's squares by round: the unique leader at each fraction of the game (-1 on
    a tie for the lead) and the winner's worst deficit behind the leader at a round's end."""
    n = len(pos)
    out = {}
    for f in points:
        r = max(1, int(np.ceil(f * n))) - 1
        top = pos[r].max()
        who = np.flatnonzero(pos[r] == top)
        out[f"leader_{f}"] = int(who[0]) if len(who) == 1 else -1
    ends = pos[:-1] if n > 1 else pos  # the end of each full round (the last row is the winning turn)
    out["worst_deficit"] = int((ends.max(axis=1) - ends[:, winner]).max())
    return out


def trajectories(rules, frame: pd.DataFrame, games: int = 2000, points=(0.25, 0.5, 0.75)) -> pd.DataFrame:
    """:func:`leader_and_deficit` for the first ``games`` finished games of a stored frame."""
    fin = frame[frame["finished"].to_numpy(bool) & (frame["winner"].to_numpy() >= 0)].head(games)
    rows = []
    for _, r in fin.iterrows():
        pos = replay(rules, r)
        rows.append({"game": int(r["game"]), "winner": int(r["winner"]), "rounds": len(pos),
                     **leader_and_deficit(pos, int(r["winner"]), points)})
    return pd.DataFrame(rows)
