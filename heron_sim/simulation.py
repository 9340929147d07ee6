"""Run the compiled engine from Python: batches of games and of single turns.

    from heron_sim import Rules, simulate, summarize
    df = simulate(Rules.build(mode="10d6"), games=10_000, seed=1, strategies="greedy")
    summarize(df)
"""

from __future__ import annotations

import math
from typing import Callable

import numba
import numpy as np
import pandas as pd

from .animals import NAMES as ANIMALS
from .animals import animal_index
from .engine import layout as L
from .engine.batch import play_batch, play_turns
from .engine.pack import pack_rules
from .errors import HeronSimError
from .rules import Rules
from .rules.board import EFFECT_NAMES
from .strategies import REGISTRY, parse_seating, parse_strategy, seat_arrays

DEFAULT_BATCH = 4096


def _set_threads(threads: int | None) -> None:
    if threads is None:
        return
    limit = numba.config.NUMBA_NUM_THREADS
    if not 1 <= threads <= limit:
        raise HeronSimError(f"--threads: {threads}; allowed: 1..{limit}")
    numba.set_num_threads(threads)


def simulate(
    rules: Rules,
    games: int,
    seed: int = 1,
    strategies: str | list[str] = "greedy",
    *,
    first_game: int = 0,
    threads: int | None = None,
    batch_size: int = DEFAULT_BATCH,
    progress: Callable[[int], None] | None = None,
) -> pd.DataFrame:
    """Play ``games`` games and return one row per game (see :func:`results_frame`).

    Game ``i`` (``first_game <= i < first_game + games``) draws only from the stream
    ``(seed, i)``: the frame is identical for any ``threads`` and ``batch_size``. On Ctrl-C
    between batches, the games already played are returned (``df.attrs["interrupted"]``).
    """
    if games < 0:
        raise HeronSimError(f"--games: {games}; allowed: a number of games >= 0")
    if not 0 <= seed < 2**63:
        raise HeronSimError(f"--seed: {seed}; allowed: 0..{2**63 - 1}")
    if batch_size < 1:
        raise HeronSimError(f"batch_size: {batch_size}; allowed: >= 1")
    seating = parse_seating(strategies, rules.players)
    sids, sp = seat_arrays(seating, rules)
    R = pack_rules(rules)
    _set_threads(threads)
    width = L.n_columns(rules.finish)
    out = np.zeros((games, width), dtype=np.int64)
    done = 0
    interrupted = False
    try:
        while done < games:
            n = min(batch_size, games - done)
            play_batch(np.uint64(seed), first_game + done, R, sids, sp, out[done : done + n])
            done += n
            if progress is not None:
                progress(n)
    except KeyboardInterrupt:
        interrupted = True
    df = results_frame(out[:done], rules, seed, seating, first_game)
    df.attrs["interrupted"] = interrupted
    return df


def results_frame(out: np.ndarray, rules: Rules, seed: int, seating: list[str],
                  first_game: int = 0) -> pd.DataFrame:
    """Tidy per-game table from the kernel's output rows.

    Columns: seed, game, mode, players, strategies (by seat, comma list), rules (hash), then by
    seat s: guide_s, strategy_s, pos_s, advance_s, turns_s, anxiety_s, doubled_s, pond_rolls_s
    (Ponds rolled), pond_hits_s (times pushed by a Pond, protection excepted; a Snake cancel
    counts), pond_back_s (squares lost to Ponds, after the floor at 0); winner (seat,
    -1 unfinished), winner_guide, winner_strategy, rounds, finished, ponds, pushback (total
    squares pushed per opponent, summed over Ponds), anxieties, lion_rescues, played_turns,
    skipped_turns, lead_changes, mid_leader, mid_last (unique leader / last seat at the end of
    round rounds//2, -1 for a tie), pond_lead_losses (Ponds after which the seat strictly ahead
    before the Pond no longer is), power_<guide> (uses), combo_<s> (scored turns whose largest
    set had size s), square_<n>_<effect> (triggers).
    """
    n = out.shape[0]
    P = rules.players
    cols: dict[str, np.ndarray | str | int] = {
        "seed": np.full(n, seed, dtype=np.int64),
        "game": np.arange(first_game, first_game + n, dtype=np.int64),
        "mode": rules.mode,
        "players": P,
        "strategies": ",".join(seating),
        "rules": rules.digest(),
    }
    guides = out[:, L.C_GUIDE : L.C_GUIDE + P]
    for s in range(P):
        cols[f"guide_{s}"] = pd.Categorical.from_codes(guides[:, s], categories=list(ANIMALS))
        cols[f"strategy_{s}"] = seating[s]
    winner = out[:, L.C_WINNER]
    cols["winner"] = winner
    safe = np.where(winner >= 0, winner, 0)
    wg = np.where(winner >= 0, guides[np.arange(n), safe], -1)
    cols["winner_guide"] = pd.Categorical.from_codes(wg, categories=list(ANIMALS))
    seat_names = np.array(seating + [""], dtype=object)
    cols["winner_strategy"] = seat_names[np.where(winner >= 0, winner, P)]
    cols["rounds"] = out[:, L.C_ROUNDS]
    cols["finished"] = out[:, L.C_FINISHED].astype(bool)
    for name, off in (("ponds", L.C_PONDS), ("pushback", L.C_PUSHBACK), ("anxieties", L.C_ANXIETIES),
                      ("lion_rescues", L.C_LION_RESCUES), ("played_turns", L.C_PLAYED),
                      ("skipped_turns", L.C_SKIPPED), ("lead_changes", L.C_LEAD_CHANGES),
                      ("mid_leader", L.C_MID_LEADER), ("mid_last", L.C_MID_LAST),
                      ("pond_lead_losses", L.C_POND_LEAD_LOSSES)):
        cols[name] = out[:, off]
    for name, off in (("pos", L.C_POS), ("advance", L.C_ADVANCE), ("turns", L.C_TURNS),
                      ("anxiety", L.C_SEAT_ANX), ("doubled", L.C_SEAT_DOUBLED), ("pond_rolls", L.C_SEAT_PONDS),
                      ("pond_hits", L.C_SEAT_POND_HITS), ("pond_back", L.C_SEAT_POND_BACK)):
        for s in range(P):
            cols[f"{name}_{s}"] = out[:, off + s]
    for a, name in enumerate(ANIMALS):
        cols[f"power_{name}"] = out[:, L.C_POWERS + a]
    for size in range(rules.n_dice + 1):
        cols[f"combo_{size}"] = out[:, L.C_COMBOS + size]
    for square, code in rules.squares:
        cols[f"square_{square}_{EFFECT_NAMES[code]}"] = out[:, L.C_SQUARES + square]
    return pd.DataFrame(cols)


def simulate_turns(
    rules: Rules,
    turns: int,
    seed: int = 1,
    strategy: str = "greedy",
    guide: str | int = "loup",
    *,
    first_turn: int = 0,
    threads: int | None = None,
) -> np.ndarray:
    """Play ``turns`` single turns from a fresh turn state (guide ready, no board).

    Returns int64[turns, 3]: (outcome, value, last roll) with outcome 0 scored, 1 Pond,
    2 Anxiety, 3 Anxiety rescued by the Lion; value = push-back for a Pond, else the advance
    (doubling and Bull included). Turn t draws from the stream (seed, first_turn + t).
    """
    if turns < 0:
        raise HeronSimError(f"--turns: {turns}; allowed: >= 0")
    if parse_strategy(strategy)[0] == "scripted":
        raise HeronSimError(f"--strategy: {strategy!r}; allowed: {', '.join(n for n, s in REGISTRY.items() if s.user_facing)}")
    g = animal_index(guide, "--guide")
    sids, sp = seat_arrays([strategy], rules)
    _set_threads(threads)
    out = np.zeros((turns, 3), dtype=np.int64)
    play_turns(np.uint64(seed), first_turn, pack_rules(rules), g, int(sids[0]), sp[0], out)
    return out


def turns_report(rules: Rules, turns: int, seed: int, strategy: str, guide: str | int,
                 out: np.ndarray) -> dict:
    """The JSON document of ``heron-sim turns``: counts of Ponds, Anxieties (rescued ones
    included), advances over the turns that are neither, and Pond push-backs."""
    outcome, value = out[:, 0], out[:, 1]
    scored = outcome == L.OUT_SCORED
    pond = outcome == L.OUT_POND
    adv = np.bincount(value[scored]) if scored.any() else np.zeros(0, dtype=np.int64)
    push = np.bincount(value[pond]) if pond.any() else np.zeros(0, dtype=np.int64)
    return {
        "mode": rules.mode,
        "strategy": strategy,
        "guide": ANIMALS[animal_index(guide, "--guide")],
        "rolls": rules.rolls,
        "powers": rules.powers,
        "turns": int(turns),
        "seed": int(seed),
        "pond": int(pond.sum()),
        "anxiety": int(((outcome == L.OUT_ANXIETY) | (outcome == L.OUT_RESCUED)).sum()),
        "advance": {str(k): int(c) for k, c in enumerate(adv) if c > 0},
        "pond_pushback": {str(k): int(c) for k, c in enumerate(push) if c > 0},
    }
