"""Run the compiled engine from Python: batches of games and of single turns.

>>> from heron_sim import Rules, simulate, summarize
>>> df = simulate(Rules.build(mode="10d6"), games=50, seed=1, strategies="greedy")
>>> len(df), df.attrs["interrupted"], summarize(df)["games"]
(50, False, 50)
"""

from __future__ import annotations

import contextlib
import math
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import numba
import numpy as np
import pandas as pd

from .animals import NAMES as ANIMALS
from .animals import animal_index
from .engine import layout as L
from .loop.batch import play_games, play_turns
from .loop.columns import gather_columns, gather_into
from .engine.pack import pack_rules
from .errors import HeronSimError, OutputError
from .interrupt import stop_requested
from .rules import Rules
from .rules.board import EFFECT_NAMES
from .strategies import REGISTRY, parse_seating, parse_strategy, seat_arrays
from . import champion_tables  # noqa: F401,E402  (registers the champion's tables' builder)
from .strategies.luck_weights import NAMES as LUCK_WEIGHT_NAMES

DEFAULT_BATCH = 4096


def _set_threads(threads: int | None) -> None:
    """Check ``threads`` (1..NUMBA_NUM_THREADS); see :func:`_threads` for setting it."""
    if threads is None:
        return
    limit = numba.config.NUMBA_NUM_THREADS
    if not 1 <= threads <= limit:
        raise HeronSimError(f"--threads: {threads}; allowed: 1..{limit}")


@contextlib.contextmanager
def _threads(threads: int | None):
    """numba's thread count set to ``threads`` for the block only: a call with ``threads=1``
    must not change the threads of every later call in the process."""
    _set_threads(threads)
    if threads is None:
        yield
        return
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        yield
    finally:
        numba.set_num_threads(before)


MAX_SEED = 2**63 - 1
#: Columns :func:`heron_sim.analysis.summarize` reads (what a streamed run keeps in memory).
SUMMARY_COLUMNS = ("players", "finished", "rounds", "winner", "played_turns", "ponds",
                   "anxieties", "lion_rescues", "lead_changes")


def check_seed(seed: int, field: str = "--seed") -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed <= MAX_SEED:
        raise HeronSimError(f"{field}: {seed}; allowed: 0..{MAX_SEED}")
    return int(seed)


def available_memory() -> int | None:
    """Bytes of memory available now (Linux ``MemAvailable``), or None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        return None
    return None


def check_memory(n_bytes: float, what: str, hint: str) -> None:
    """Refuse up front a run whose results would not fit in memory (with the figure)."""
    avail = available_memory()
    if avail is not None and n_bytes > 0.8 * avail:
        raise HeronSimError(f"{what} need about {n_bytes / 1e9:,.1f} GB of memory, "
                            f"{avail / 1e9:,.1f} GB available; {hint}")


def frame_bytes_per_game(rules: Rules, luck: bool = False) -> int:
    """Peak bytes per game of :func:`simulate` (the kernel's rows, then the frame's columns;
    with ``luck``, the luck's columns: every seat's in the rows, the seats played in the frame)."""
    extra = 8 * L.LUCK_COLUMNS + rules.players * (8 + 4 * (L.LUCK_WEIGHTS + L.LAND_SLOTS + 1)) if luck else 0
    return 2 * 8 * L.n_columns(rules.finish) + 64 + extra


#: The most games one command plays: a trillion (46 days of greedy games on 2 cores; above, a
#: typo more likely than a wish). Memory does not limit ``simulate --json`` any more.
MAX_GAMES = 10**12


def _prepare(rules: Rules, games: int, seed: int, strategies, batch_size: int):
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or not 0 <= games <= MAX_GAMES:
        raise HeronSimError(f"--games: {games:,}; allowed: 0..{MAX_GAMES:,}" if isinstance(games, (int, np.integer))
                            and not isinstance(games, bool) and games > MAX_GAMES
                            else f"--games: {games}; allowed: a number of games >= 0")
    check_seed(seed)
    if batch_size < 1:
        raise HeronSimError(f"batch_size: {batch_size}; allowed: >= 1")
    seating = parse_seating(strategies, rules.players)
    sids, sp = _seats(seating, rules)
    return seating, sids, sp, pack_rules(rules)


#: The last seats' arrays :func:`_prepare` built, by (seating, rules' digest): a run of the same
#: seats under the same rules (a benchmark's repeats, a study's batches) reuses them rather than
#: copying the tables again (megabytes: about 3 ms for 8d8). The games never write them.
_LAST_SEATS: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def _seats(seating: list[str], rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~heron_sim.strategies.seat_arrays`, the last ones kept (not with a plug-in seated:
    its row holds the address of its compiled code, which registering it again changes)."""
    if any(REGISTRY[parse_strategy(s)[0]].plugin is not None for s in seating):
        return seat_arrays(seating, rules)
    key = (tuple(seating), rules.digest())
    arrays = _LAST_SEATS.get(key)
    if arrays is None:  # a local: another thread's run may replace the entry meanwhile
        arrays = seat_arrays(seating, rules)
        _LAST_SEATS.clear()
        _LAST_SEATS[key] = arrays
    return arrays


def _with_luck_row(rules: Rules, sp: np.ndarray, luck: bool) -> tuple[np.ndarray, int]:
    """The seats' rows plus the luck row (heron_sim.strategies.expert_luck.luck_row) and the
    output width with the luck's columns; unchanged where luck is not measured yet (dice that
    differ: no luck columns).

    With rules by guide (``rules.guides``), ``sp`` holds one block of ``players`` rows per set of
    a turn's rules (``Rules.turn_rows``, strategies.seat_arrays); each block gets its own luck
    row after its seats' (built from that set's rules: a seat's luck is valued on the tables of
    the rules its turn is played under, heron_sim.loop.game.turn_rules), every luck block at the
    same offset (expert_luck.at_offset)."""
    from .strategies.expert_luck import at_offset, luck_row

    width = L.n_columns(rules.finish)
    if not luck:
        return sp, width
    sets = rules.turn_rows()[0] if getattr(rules, "guides", ()) else (rules,)
    made = [luck_row(r) for r in sets]
    if any(m is None for m in made):
        return sp, width
    lo = max(m[1] for m in made)
    rows = [at_offset(m, lo) for m in made]
    p = sp.shape[0] // len(sets)
    out = np.zeros((len(sets) * (p + 1), max(sp.shape[1], *(r.size for r in rows))), dtype=np.float64)
    for k, row in enumerate(rows):
        row[0] = lo  # column 0 of a luck row: where its luck block starts (heron_sim.loop.loops)
        out[k * (p + 1): k * (p + 1) + p, : sp.shape[1]] = sp[k * p: (k + 1) * p]
        out[k * (p + 1) + p, : row.size] = row
    return out, width + L.LUCK_COLUMNS


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
    luck: bool = False,
) -> pd.DataFrame:
    """Play ``games`` games and return one row per game (see :func:`results_frame`).

    Game ``i`` (``first_game <= i < first_game + games``) draws only from the stream
    ``(seed, i)``: the frame is identical for any ``threads`` and ``batch_size``. On Ctrl-C
    (or SIGTERM under the command line) the games already played are returned (every game
    before the first one not finished);
    ``df.attrs`` holds ``requested``, ``played`` and ``interrupted``. A run whose frame would
    not fit in memory is refused up front (stream it with :func:`simulate_batches`).
    ``luck``: the frame gets each seat's luck (``luck_seat1`` ..., docs/luck.md; the same games,
    played on the generic turn, slower) where it is measured (identical symmetric dice; under
    rules by guide, each turn valued on the tables of the rules it is played under)."""
    seating, sids, sp, R = _prepare(rules, games, seed, strategies, batch_size)
    sp, width = _with_luck_row(rules, sp, luck)
    check_memory(games * frame_bytes_per_game(rules, luck), f"--games: {games:,} games",
                 "stream them to a file (heron-sim simulate --out FILE.parquet) or play fewer")
    _set_threads(threads)
    offsets = np.asarray(frame_spec(rules, seating, width)[1], dtype=np.int64)
    block = np.empty((offsets.size, games), dtype=np.int64)  # the frame's columns, read by the threads
    with _threads(threads):  # numba's threads for this call only
        done, interrupted = play_games(np.uint64(seed), first_game, R, sids, sp, (games, width), batch_size,
                                       progress, stop_requested,
                                       lambda a, b, rows: gather_into(rows, offsets, block, a))
    df = frame_of_columns(block[:, :done], width, rules, seed, seating, first_game)
    df.attrs.update(requested=int(games), played=int(done), interrupted=interrupted)
    return df


def simulate_batches(
    rules: Rules,
    games: int,
    seed: int = 1,
    strategies: str | list[str] = "greedy",
    *,
    first_game: int = 0,
    threads: int | None = None,
    batch_size: int = DEFAULT_BATCH,
    progress: Callable[[int], None] | None = None,
    luck: bool = False,
) -> Iterator[pd.DataFrame]:
    """Yield the results of :func:`simulate` batch by batch (memory bounded by the batch).

    Stops early, between batches, when a stop was requested (SIGINT/SIGTERM under the command
    line); the caller counts the rows it received.
    """
    seating, sids, sp, R = _prepare(rules, games, seed, strategies, batch_size)
    sp, width = _with_luck_row(rules, sp, luck)
    _set_threads(threads)
    done = 0
    offsets = np.asarray(frame_spec(rules, seating, width)[1], dtype=np.int64)
    while done < games and not stop_requested():
        n = min(batch_size, games - done)
        block = np.empty((offsets.size, n), dtype=np.int64)  # as simulate: no rows kept
        with _threads(threads):  # numba's threads for this call only
            play_games(np.uint64(seed), first_game + done, R, sids, sp, (n, width), n, None, None,
                       lambda a, b, rows: gather_into(rows, offsets, block, a))
        yield frame_of_columns(block, width, rules, seed, seating, first_game + done)
        done += n
        if progress is not None:
            progress(n)


def summary_columns(df: pd.DataFrame) -> pd.DataFrame:
    """The columns :func:`heron_sim.analysis.summarize` needs, in compact types."""
    P = int(df["players"].iloc[0]) if len(df) else 0
    keep = (list(SUMMARY_COLUMNS) + [f"guide_{s}" for s in range(P)] + [f"advance_{s}" for s in range(P)]
            + [f"strategy_{s}" for s in range(P)] + [f"power_{a}" for a in ANIMALS]
            + [c for c in df.columns if c.startswith("luck_seat")])
    slim = df[keep].copy()
    for a in ANIMALS:  # the power uses per game dealt (summarize)
        slim[f"power_{a}"] = slim[f"power_{a}"].astype(np.int16)
    for s in range(P):  # one name a seat, every game of a run
        slim[f"strategy_{s}"] = slim[f"strategy_{s}"].astype("category")
    for c in ("players", "winner"):
        slim[c] = slim[c].astype(np.int8)
    for c in ("rounds", "played_turns", "ponds", "anxieties", "lion_rescues", "lead_changes",
              *[f"advance_{s}" for s in range(P)]):
        slim[c] = slim[c].astype(np.int32)
    return slim


def landing_squares(rules: Rules) -> list[int]:
    """The special squares whose landing luck the engine counts (luck_turn.land_luck): the board's
    first LAND_SLOTS special squares from 1 to before the finish, in order."""
    return sorted(q for q, code in rules.squares if 1 <= q < rules.finish and code != 0)[:L.LAND_SLOTS]


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
    set had size s), square_<n>_<effect> (triggers); with luck (``out`` has LUCK_COLUMNS more
    columns: heron_sim.loop.loops.play_batch) luck_seat1 .. luck_seatP (float64, squares of the
    turn's expected advance: docs/luck.md), then luck_seat<s>_<name> for each weighted luck of
    heron_sim.strategies.luck_weights (float32).
    """
    offsets = frame_spec(rules, seating, out.shape[1])[1]
    return frame_of_columns(gather_columns(out, offsets), out.shape[1], rules, seed, seating, first_game)


def frame_of_columns(block: np.ndarray, width: int, rules: Rules, seed: int, seating: list[str],
                     first_game: int = 0) -> pd.DataFrame:
    """:func:`results_frame` from the rows' values it reads, already read: ``block[j]`` is column
    ``offsets[j]`` of the rows (:func:`frame_spec` for rows ``width`` wide), one entry a game (as
    :func:`simulate`'s threads read them after each chunk of games, heron_sim.loop.columns)."""
    n = block.shape[1]
    P = rules.players
    spec = frame_spec(rules, seating, width)[0]
    ints = [name for name, how, _ in spec if how == "int"]
    rest = block[len(ints):]  # the guides dealt, finished, then the raw luck columns (frame_spec)
    winner = block[ints.index("winner")]
    safe = np.where(winner >= 0, winner, 0)
    wg = np.where(winner >= 0, rest[safe, np.arange(n)], -1)
    strings: dict[str, object] = {}  # one column a string, copied (pyarrow's copy shares its buffers)

    def column(how, what):
        if how == "str":  # one string in every row
            if what not in strings:
                strings[what] = string_column(np.zeros(n, dtype=np.int64), [what])
            return strings[what].copy()
        if how == "guide":  # the guide dealt to seat ``what``
            return pd.Categorical.from_codes(rest[what], dtype=_GUIDES)
        return {
            "seed": lambda: np.full(n, seed, dtype=np.int64),
            "game": lambda: np.arange(first_game, first_game + n, dtype=np.int64),
            "players": lambda: np.full(n, P, dtype=np.int64),
            "winner_guide": lambda: pd.Categorical.from_codes(wg, dtype=_GUIDES),
            "winner_strategy": lambda: string_column(np.where(winner >= 0, winner, P), seating + [""]),
            "finished": lambda: rest[P].astype(bool),
        }[what]()

    # the int64 columns as one block of the frame, without a copy; the others inserted in place
    df = pd.DataFrame(block[: len(ints)].T, columns=ints, copy=False)
    for i, (name, how, what) in enumerate(spec):
        if how != "int":
            df.insert(i, name, column(how, what), allow_duplicates=True)  # the names are unique
    if width >= L.n_columns(rules.finish) + L.LUCK_COLUMNS:  # the luck: the last columns
        unit = float(1 << L.LUCK_SHIFT)
        raw = rest[P + 1:]
        lucks = {}
        for s in range(P):
            lucks[f"luck_seat{s + 1}"] = raw[s].astype(np.float64) / unit
        for s in range(P):  # the weighted lucks (float32: regression features)
            at = L.MAX_SEATS + s * L.LUCK_WEIGHTS
            for j, name in enumerate(LUCK_WEIGHT_NAMES):
                lucks[f"luck_seat{s + 1}_{name}"] = (raw[at + j] / unit).astype(np.float32)
        for s in range(P):  # the landing lucks, by special square (float32)
            at = L.MAX_SEATS * (1 + L.LUCK_WEIGHTS) + s * L.LAND_SLOTS
            for j, q in enumerate(landing_squares(rules)):
                lucks[f"luck_seat{s + 1}_sq{q}"] = (raw[at + j] / unit).astype(np.float32)
        for s in range(P):  # the finish lucks (float32; issue 59 item 1)
            at = L.MAX_SEATS * (1 + L.LUCK_WEIGHTS + L.LAND_SLOTS) + s
            lucks[f"luck_seat{s + 1}_finish"] = (raw[at] / unit).astype(np.float32)
        df = pd.concat([df, pd.DataFrame(lucks)], axis=1)  # one block a dtype
    return df


def frame_spec(rules: Rules, seating: list[str], width: int) -> tuple[list[tuple[str, str, object]], list[int]]:
    """The columns of :func:`results_frame` before the luck's, in order, as (name, how, what):
    ``int`` (``what``: the offset in the kernel's row), ``str`` (one string), ``guide`` (the
    seat's guide dealt) or ``made`` (computed); and the offsets of the rows' values it reads:
    the ``int`` columns', then the guides dealt, ``finished`` and, with luck (``width``), the
    luck columns, in the kernel's order."""
    P = rules.players
    spec: list[tuple[str, str, object]] = [
        ("seed", "made", "seed"), ("game", "made", "game"), ("mode", "str", rules.mode),
        ("players", "made", "players"), ("strategies", "str", ",".join(seating)), ("rules", "str", rules.digest())]
    for s in range(P):
        spec += [(f"guide_{s}", "guide", s), (f"strategy_{s}", "str", seating[s])]
    spec += [("winner", "int", L.C_WINNER), ("winner_guide", "made", "winner_guide"),
             ("winner_strategy", "made", "winner_strategy"), ("rounds", "int", L.C_ROUNDS),
             ("finished", "made", "finished")]
    for name, off in (("ponds", L.C_PONDS), ("pushback", L.C_PUSHBACK), ("anxieties", L.C_ANXIETIES),
                      ("lion_rescues", L.C_LION_RESCUES), ("played_turns", L.C_PLAYED),
                      ("skipped_turns", L.C_SKIPPED), ("lead_changes", L.C_LEAD_CHANGES),
                      ("mid_leader", L.C_MID_LEADER), ("mid_last", L.C_MID_LAST),
                      ("pond_lead_losses", L.C_POND_LEAD_LOSSES)):
        spec.append((name, "int", off))
    for name, off in (("pos", L.C_POS), ("advance", L.C_ADVANCE), ("turns", L.C_TURNS),
                      ("anxiety", L.C_SEAT_ANX), ("doubled", L.C_SEAT_DOUBLED), ("pond_rolls", L.C_SEAT_PONDS),
                      ("pond_hits", L.C_SEAT_POND_HITS), ("pond_back", L.C_SEAT_POND_BACK)):
        spec += [(f"{name}_{s}", "int", off + s) for s in range(P)]
    spec += [(f"power_{name}", "int", L.C_POWERS + a) for a, name in enumerate(ANIMALS)]
    spec += [(f"combo_{size}", "int", L.C_COMBOS + size) for size in range(rules.n_dice + 1)]
    spec += [(f"square_{q}_{EFFECT_NAMES[code]}", "int", L.C_SQUARES + q) for q, code in rules.squares]
    offsets = [off for _, how, off in spec if how == "int"]
    offsets += [L.C_GUIDE + s for s in range(P)] + [L.C_FINISHED]
    ncols = L.n_columns(rules.finish)
    if width >= ncols + L.LUCK_COLUMNS:
        offsets += range(ncols, ncols + L.LUCK_COLUMNS)
    return spec, offsets


def string_column(codes: np.ndarray, names: list[str]):
    """``names[codes]`` as a column of pandas' string dtype, built from the codes (a pyarrow
    dictionary cast: 0.3 ms for 50,000 rows, where pandas converted a string broadcast to every
    row in about 1 ms); numpy's strings where pandas' strings are not pyarrow's."""
    values = np.array(names, dtype=object)
    if not _ARROW_STR:
        return values[codes]
    import pyarrow as pa

    dictionary = pa.array(names, type=pa.large_string())
    arr = pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32)), dictionary).cast(pa.large_string())
    return pd.arrays.ArrowStringArray(pa.chunked_array([arr]), dtype=_STR)


def _arrow_strings() -> bool:
    """Whether pandas keeps strings in pyarrow's large_string arrays (pandas 3 with pyarrow)."""
    arr = pd.Series(["x"]).array
    pa_array = getattr(arr, "_pa_array", None)
    return type(arr).__name__ == "ArrowStringArray" and pa_array is not None and str(pa_array.type) == "large_string"


_STR = pd.Series(["x"]).dtype  # pandas' dtype of strings
_GUIDES = pd.CategoricalDtype(list(ANIMALS))  # the guides' columns (built once: 0.3 ms a column)
_ARROW_STR = _arrow_strings()



TURN_CHUNK = 1 << 20


def _turns_setup(rules, turns, seed, strategy, guide):
    if isinstance(turns, bool) or not isinstance(turns, (int, np.integer)) or turns < 0:
        raise HeronSimError(f"--turns: {turns}; allowed: >= 0")
    check_seed(seed)
    if parse_strategy(strategy)[0] not in user_strategies():
        raise HeronSimError(f"--strategy: {strategy!r}; allowed: {', '.join(user_strategies())}")
    g = animal_index(guide, "--guide")
    sids, sp = seat_arrays([strategy], rules)
    # rules by guide: the parameter row of the tables of guide g's rules (one row a block)
    return g, int(sids[0]), sp[rules.turn_rows()[1][g]], pack_rules(rules)


def user_strategies() -> list[str]:
    return [n for n, s in REGISTRY.items() if s.user_facing]


def simulate_turns(
    rules: Rules,
    turns: int,
    seed: int = 1,
    strategy: str = "greedy",
    guide: str | int = "loup",
    *,
    first_turn: int = 0,
    threads: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Play ``turns`` single turns from a fresh turn state (guide ready, no board).

    Returns int64[turns, 3]: (outcome, value, last roll) with outcome 0 scored, 1 Pond,
    2 Anxiety, 3 Anxiety rescued by the Lion; value = push-back for a Pond, else the advance
    (doubling and Bull included). Turn t draws from the stream (seed, first_turn + t).
    Played in chunks: on Ctrl-C (or a requested stop) the turns already played are returned
    (fewer rows than ``turns``).
    """
    g, sid, sp_row, R = _turns_setup(rules, turns, seed, strategy, guide)
    check_memory(24 * turns, f"--turns: {turns:,} turns", "play fewer turns (heron-sim turns counts them without keeping them)")
    _set_threads(threads)
    out = np.zeros((turns, 3), dtype=np.int64)
    done = 0
    try:
        while done < turns and not stop_requested():
            n = min(TURN_CHUNK, turns - done)
            with _threads(threads):  # numba's threads for this call only
                play_turns(np.uint64(seed), first_turn + done, R, g, sid, sp_row, out[done:done + n])
            done += n
            if progress is not None:
                progress(n)
    except KeyboardInterrupt:
        pass
    return out[:done]


def count_turns(rules: Rules, turns: int, seed: int = 1, strategy: str = "greedy",
                guide: str | int = "loup", *, threads: int | None = None,
                progress: Callable[[int], None] | None = None) -> dict:
    """The JSON document of ``heron-sim turns``: counts of Ponds, Anxieties (rescued ones
    included), advances over the turns that are neither, and Pond push-backs, over ``turns``
    turns counted chunk by chunk (memory bounded by the chunk, whatever ``turns``);
    ``requested``, ``played`` and ``interrupted`` say how many were played."""
    g, sid, sp_row, R = _turns_setup(rules, turns, seed, strategy, guide)
    _set_threads(threads)
    pond = anxiety = 0
    adv = np.zeros(0, dtype=np.int64)
    push = np.zeros(0, dtype=np.int64)
    done = 0
    interrupted = False
    try:
        while done < turns:
            if stop_requested():
                interrupted = True
                break
            n = min(TURN_CHUNK, turns - done)
            out = np.zeros((n, 3), dtype=np.int64)
            with _threads(threads):  # numba's threads for this call only
                play_turns(np.uint64(seed), done, R, g, sid, sp_row, out)
            outcome, value = out[:, 0], out[:, 1]
            scored = outcome == L.OUT_SCORED
            is_pond = outcome == L.OUT_POND
            pond += int(is_pond.sum())
            anxiety += int(((outcome == L.OUT_ANXIETY) | (outcome == L.OUT_RESCUED)).sum())
            adv = _add_counts(adv, np.bincount(value[scored]))
            push = _add_counts(push, np.bincount(value[is_pond]))
            done += n
            if progress is not None:
                progress(n)
    except KeyboardInterrupt:
        interrupted = True
    return _turns_doc(rules, turns, done, interrupted, seed, strategy, guide, pond, anxiety, adv, push)


def _add_counts(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    n = max(len(a), len(b))
    out = np.zeros(n, dtype=np.int64)
    out[: len(a)] += a
    out[: len(b)] += b
    return out


def _turns_doc(rules, turns, played, interrupted, seed, strategy, guide, pond, anxiety, adv, push):
    return {
        "mode": rules.mode,
        "strategy": strategy,
        "guide": ANIMALS[animal_index(guide, "--guide")],
        "rolls": rules.rolls,
        "powers": rules.powers,
        "turns": int(played),
        "seed": int(seed),
        "pond": int(pond),
        "anxiety": int(anxiety),
        "advance": {str(k): int(c) for k, c in enumerate(adv) if c > 0},
        "pond_pushback": {str(k): int(c) for k, c in enumerate(push) if c > 0},
        "requested": int(turns),
        "played": int(played),
        "interrupted": bool(interrupted),
    }


class _KeepOldFile(Exception):
    """Stopped before the first batch: discard the temporary file, keep the old one."""


@dataclass
class StreamedRun:
    """What :func:`simulate_to_file` played: the summary columns of every game (one row per
    game, :data:`SUMMARY_COLUMNS` and the seats' guides and advances), the counts, and the
    error that stopped the writing, if any (the games went on; raise it after the summary)."""

    frame: pd.DataFrame | None
    requested: int
    played: int
    path: Path | None = None
    write_error: Exception | None = None

    @property
    def interrupted(self) -> bool:
        return self.played < self.requested

    @property
    def written(self) -> bool:
        """True when ``path`` holds this run's games."""
        return self.path is not None and self.write_error is None and (self.played > 0 or self.requested == 0)


def simulate_to_file(
    rules: Rules,
    games: int,
    seed: int = 1,
    strategies: str | list[str] = "greedy",
    out: str | Path | None = None,
    *,
    threads: int | None = None,
    progress: Callable[[int], None] | None = None,
    luck: bool = False,
    counts: bool = False,
) -> StreamedRun:
    """Play ``games`` games batch by batch, append each batch to ``out`` (a Parquet row group,
    or CSV rows) and keep in memory only the columns :func:`heron_sim.analysis.summarize` reads
    (with ``counts`` and a file without luck, only its sums: ``StreamedRun.frame`` is then a
    :class:`~heron_sim.analysis.summary.SummaryCounts`, memory flat in the games).

    The file is written atomically and labelled (``requested``, ``played``, ``interrupted``,
    ``seed``, ``mode``, the rules hash and the strategies, see :func:`heron_sim.io.read_meta`).
    A stop between batches (Ctrl-C/SIGTERM under the command line) keeps and labels the games
    played; a stop before the first batch keeps the old file. A write that fails stops the
    writing (temporary file removed, old file kept) but not the games: the error is returned in
    ``write_error`` so that the summary can be shown first.

    Examples
    --------
    >>> from heron_sim import Rules
    >>> run = simulate_to_file(Rules.build(mode="8d8", players=2), games=8, seed=3)
    >>> (run.requested, run.played, run.interrupted, len(run.frame))
    (8, 8, False, 8)
    """
    from .io import FrameWriter

    seating = parse_seating(strategies, rules.players)
    if out is None and not luck:  # its own memory check: the block of the summary's columns
        return _summary_run(rules, games, seed, seating, threads, progress)
    # Only the summary's columns stay in memory (~9 bytes per seat and 30 per game), twice
    # while they are joined at the end.
    check_memory(2 * games * (30 + 9 * rules.players), f"--games: {games:,} games",
                 "play fewer games per command (results on disk are streamed)")
    from .provenance import git_commit

    # one name per seat in seat order (the frame's column), whether one name or a list was given
    meta = {"requested": int(games), "seed": int(seed), "mode": rules.mode, "rules": rules.digest(),
            "strategies": ",".join(seating), "git_commit": git_commit(), "rules_table": rules.to_table()}
    writer = FrameWriter(out, meta, keep_on_stop=True) if out is not None else None
    if writer is not None and not luck:
        return _stream_to_file(rules, games, seed, seating, writer, threads, progress, counts)
    parts, played, error = [], 0, None
    try:
        with writer if writer is not None else contextlib.nullcontext():
            # the next batch plays while this thread keeps and writes the last one
            for batch in _ahead(lambda: simulate_batches(rules, games, seed, seating, threads=threads,
                                                         progress=progress, luck=luck)):
                parts.append(summary_columns(batch))
                played += len(batch)
                if writer is not None and error is None:
                    try:
                        writer.write(batch)
                    except OutputError as err:
                        error = err
            if writer is not None:
                _label(writer, played, games, error)
    except _KeepOldFile:  # no game played: leaving the writer by it kept the old file
        played = 0
    except OutputError as err:  # the file's close failed (or the error above)
        error = error or err
    frame = pd.concat(parts, ignore_index=True) if parts else None
    return StreamedRun(frame, int(games), played, Path(out) if out is not None else None, error)


def _label(writer, played: int, games: int, error) -> None:
    """Before the writer closes: label the file with the games played, or leave it by raising
    ``error`` (its temporary file is discarded) or :class:`_KeepOldFile` (no game played: the old
    file stays)."""
    writer.meta.update(played=played, interrupted=played < games)
    if error is not None:
        raise error
    if played == 0 and games > 0:
        raise _KeepOldFile


@dataclass
class CountedRun:
    """What :func:`simulate_counts` played: the summary's sums (heron_sim.analysis.summary.
    SummaryCounts), the games asked and played."""

    counts: object
    requested: int
    played: int


def simulate_counts(rules: Rules, games: int, seed: int = 1, strategies: str | list[str] = "greedy", *,
                    threads: int | None = None, progress: Callable[[int], None] | None = None) -> CountedRun:
    """Play ``games`` games and keep only the sums :func:`heron_sim.analysis.summarize` reads
    (``summarize(run.counts)``: the same figures as ``summarize`` of the games' frame): each
    thread adds the games it played as it plays them, so memory does not grow with the number
    of games (``simulate --json``). A stop (Ctrl-C under the command line) keeps the sums of the
    games played, every game before the first one not played."""
    from .row_counts import RowCounts

    seating, sids, sp, R = _prepare(rules, games, seed, strategies, DEFAULT_BATCH)
    width = L.n_columns(rules.finish)
    P = rules.players
    run = RowCounts(P, seating)
    with _threads(threads):
        done, _ = play_games(np.uint64(seed), 0, R, sids, sp, (games, width), DEFAULT_BATCH, progress,
                             stop_requested, run.add)
    return CountedRun(_summary_counts(run, P, done), int(games), int(done))


def _summary_counts(run, P: int, done: int):
    """The :class:`~heron_sim.analysis.summary.SummaryCounts` of a
    :class:`~heron_sim.row_counts.RowCounts` that added ``done`` games."""
    from .analysis.summary import SummaryCounts

    rounds = run.rounds
    wins, gd, gw, sums, pdealt, puses, bd, bu = run.total
    return SummaryCounts(
        players=P, games=int(done), finished=int(rounds.sum()), rounds=np.trim_zeros(rounds, "b"), wins=wins,
        guide_dealt=gd, guide_won=gw, played=int(sums[0]), ponds=int(sums[1]), anxieties=int(sums[2]),
        lion_rescues=int(sums[3]), lead_changes=int(sums[4]), advance=int(sums[5]), power_dealt=pdealt,
        power_uses=puses, strategies=run.names if done else (), by_dealt=bd if done else bd[:0],
        by_uses=bu if done else bu[:0])


def _ahead(make: Callable[[], Iterator], depth: int = 1) -> Iterator:
    """The items of ``make()``, made on a thread of their own at most ``depth`` items ahead of
    the caller, in order: the kernels play batch k + 1 while the caller turns batch k into a
    frame and writes it. The thread plays on as many numba threads as the caller's (numba's
    count is per thread); an error there is raised here; leaving the loop early (an error, a
    second Ctrl-C) lets the thread end after the item it is making (a daemon: it never holds
    the process)."""
    import queue
    import threading

    items: queue.Queue = queue.Queue(maxsize=depth)
    closed = threading.Event()
    threads = numba.get_num_threads()
    END = object()

    def put(x) -> bool:
        while not closed.is_set():
            try:
                items.put(x, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def run() -> None:
        numba.set_num_threads(threads)
        try:
            for x in make():
                if not put((x, None)):
                    return
        except BaseException as err:  # noqa: BLE001 - raised in the caller's thread
            put((END, err))
            return
        put((END, None))

    threading.Thread(target=run, name="heron-sim-batches", daemon=True).start()
    try:
        while True:
            x, err = items.get()
            if x is END:
                if err is not None:
                    raise err
                return
            yield x
    finally:
        closed.set()


#: The kernel's row columns :func:`summary_columns` keeps, by the frame's name (frame_spec's ``int``
#: columns), besides the seats' advances and the powers' uses.
_SUMMARY_INTS = ("winner", "rounds", "played_turns", "ponds", "anxieties", "lion_rescues", "lead_changes")


def _summary_run(rules: Rules, games: int, seed: int, seating: list[str], threads: int | None,
                 progress: Callable[[int], None] | None) -> StreamedRun:
    """:func:`simulate_to_file` with no file: one call of the kernels over every game (no batch
    waits for the main thread), each thread copying the summary's columns of the games it played
    into one block, and the frame of :func:`summary_columns` built once at the end: the same
    frame as the batches' (tests/test_results_frame.py), at a fraction of the main thread's
    work and of the memory (8 bytes a game and column read, about 25 columns at 4 players)."""
    seating, sids, sp, R = _prepare(rules, games, seed, seating, DEFAULT_BATCH)
    width = L.n_columns(rules.finish)
    P = rules.players
    # the block of 15 + 2 P int64 columns, then the frame's (41 + 6 P bytes a game)
    check_memory(games * (8 * (15 + 2 * P) + 41 + 6 * P), f"--games: {games:,} games",
                 "play fewer games per command, or stream them to a file (--out FILE.parquet)")
    spec = {name: what for name, how, what in frame_spec(rules, seating, width)[0] if how == "int"}
    names = (list(_SUMMARY_INTS) + [f"advance_{s}" for s in range(P)] + [f"power_{a}" for a in ANIMALS])
    offsets = np.asarray([spec[n] for n in names] + [L.C_GUIDE + s for s in range(P)] + [L.C_FINISHED],
                         dtype=np.int64)
    block = np.empty((offsets.size, games), dtype=np.int64)
    with _threads(threads):
        done, _ = play_games(np.uint64(seed), 0, R, sids, sp, (games, width), DEFAULT_BATCH, progress,
                             stop_requested, lambda a, b, rows: gather_into(rows, offsets, block, a))
    if done == 0:
        return StreamedRun(None, int(games), 0)
    col = dict(zip(names, block[:, :done]))
    guides = block[len(names): len(names) + P, :done]
    kinds = {"players": np.int8, "winner": np.int8, **{n: np.int32 for n in _SUMMARY_INTS[1:]}}
    data: dict = {"players": np.full(done, P, dtype=np.int8), "finished": block[-1, :done].astype(bool)}
    data.update({n: col[n].astype(kinds[n]) for n in _SUMMARY_INTS})
    frame = pd.DataFrame({c: data[c] for c in SUMMARY_COLUMNS})
    for s in range(P):
        frame[f"guide_{s}"] = pd.Categorical.from_codes(guides[s], dtype=_GUIDES)
    for s in range(P):
        frame[f"advance_{s}"] = col[f"advance_{s}"].astype(np.int32)
    for s in range(P):  # one name a seat, as the batches' string column made a category
        frame[f"strategy_{s}"] = pd.Series(string_column(np.zeros(done, dtype=np.int64), [seating[s]])).astype("category")
    for a in ANIMALS:
        frame[f"power_{a}"] = col[f"power_{a}"].astype(np.int16)
    return StreamedRun(frame, int(games), int(done))


def simulate_game(
    name: str,
    games: int,
    players: int | None = None,
    seed: int = 1,
    strategies: str | list[str] | None = None,
    rules_file: str | Path | None = None,
    out: str | Path | None = None,
    *,
    overrides: dict | None = None,
    progress: Callable[[int], None] | None = None,
) -> StreamedRun:
    """Play ``games`` games of the lighter game ``name`` (see :func:`heron_sim.games.available`)
    chunk by chunk and write them, labelled, to ``out`` (``.parquet`` or ``.csv``).

    ``players`` defaults to 4 within the game's range; ``strategies`` is one name or one per
    seat (default: the game's first); the rules are the game's defaults, then ``rules_file``,
    then ``overrides`` (keys of its ``data/defaults.toml``). Stopped between chunks
    (Ctrl-C/SIGTERM under the command line), the games played are kept and labelled.
    ``StreamedRun.frame`` is the whole frame. The file's metadata (:func:`heron_sim.io.read_meta`)
    holds the seed, players, strategies, the git commit, the rules' ``digest()`` as ``rules``
    and their full table as ``rules_table``: ``overrides=meta["rules_table"]`` with the same
    seed, players and strategies plays the same games again.
    """
    from . import games as registry
    from .games.base import MAX_SEED, simulate_chunks
    from .io import FrameWriter

    game = registry.get(name)
    n_players = max(game.min_players, min(game.max_players, 4)) if players is None else players
    if not game.min_players <= n_players <= game.max_players:
        raise HeronSimError(f"--players: {n_players}; allowed: {game.min_players}..{game.max_players}")
    if strategies is None:
        strategies = game.strategies[0]
    names = strategies.split(",") if isinstance(strategies, str) else list(strategies)
    names = [n.strip() for n in names]
    if len(names) == 1:
        names = names * n_players
    if len(names) != n_players:
        raise HeronSimError(f"--strategy: {len(names)} names for {n_players} players; give one name or one per seat")
    for s in names:
        if s not in game.strategies:
            raise HeronSimError(f"--strategy: {s!r}; allowed: {', '.join(game.strategies)}")
    if isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise HeronSimError(f"--seed: {seed}; allowed: 0..{MAX_SEED}")
    if games < 1:
        raise HeronSimError(f"--games: {games}; allowed: >= 1")
    game_rules = game.load_rules(str(rules_file) if rules_file else None, dict(overrides or {}))
    parts = []
    for df in simulate_chunks(game, game_rules, games, n_players, seed, names, progress):
        if not parts and len(df) < games:  # the first chunk gives the size of a game's row
            per_game = df.memory_usage(deep=True).sum() / max(len(df), 1)
            check_memory(2 * games * per_game, f"--games: {games:,} games", "play fewer games per command")
        parts.append(df)
    frame = pd.concat(parts, ignore_index=True) if parts else None
    played = 0 if frame is None else len(frame)
    error = None
    if out is not None and frame is not None:
        from .provenance import git_commit

        meta = {"requested": int(games), "seed": int(seed), "game": game.name, "players": n_players,
                "rules": game_rules.digest(), "strategies": ",".join(names), "seats": ",".join(names),
                "git_commit": git_commit(), "rules_table": game_rules.to_table(),
                "played": played, "interrupted": played < games}
        try:
            with FrameWriter(out, meta) as w:
                w.write(frame)
        except OutputError as err:
            error = err
    return StreamedRun(frame, int(games), played, Path(out) if out is not None else None, error)


#: Games of one window of :func:`_stream_to_file` (a Parquet row group, a CSV write): a multiple
#: of DEFAULT_BATCH (play_games's slices never straddle a batch, so never a window); two
#: windows of the frame's int64 columns are held (about 12 MB each at 4 players).
STREAM_WINDOW = 4 * DEFAULT_BATCH


class _Tables:
    """pyarrow Tables of :func:`frame_of_columns`'s frames (without luck) built straight from
    the columns' block, no pandas frame between: the schema (its pandas metadata included) and
    the guides' dictionary are those of the first window's table, made from its frame as
    :meth:`heron_sim.io.FrameWriter.write` makes it (tests/test_results_frame.py checks that the
    two tables are equal)."""

    def __init__(self, rules: Rules, seed: int, seating: list[str], width: int, first) -> None:
        import pyarrow as pa

        self.pa = pa
        self.schema = first.schema
        self.spec = frame_spec(rules, seating, width)[0]
        self.ints = [name for name, how, _ in self.spec if how == "int"]
        self.winner = self.ints.index("winner")
        self.P, self.seed = rules.players, seed
        self.guides = first.column("winner_guide").chunk(0).dictionary
        self.seats = pa.array(seating + [""], type=pa.large_string())
        self._strings: dict = {}  # (string, rows) -> the column (arrow arrays are immutable)

    def _string(self, what: str, n: int):
        key = (what, n)
        if key not in self._strings:
            pa = self.pa
            self._strings[key] = pa.DictionaryArray.from_arrays(
                pa.array(np.zeros(n, dtype=np.int32)), pa.array([what], type=pa.large_string())).cast(pa.large_string())
        return self._strings[key]

    def table(self, block: np.ndarray, n: int, first_game: int):
        """The table of games ``first_game ..`` from ``block[:, :n]`` (read before the block is
        reused: the int columns share its memory)."""
        pa, P = self.pa, self.P
        rest = block[len(self.ints):]
        winner = block[self.winner, :n]
        won = winner >= 0
        safe = np.where(won, winner, 0)
        wg = np.where(won, rest[safe, np.arange(n)], -1).astype(np.int8)
        made = {
            "seed": lambda: pa.array(np.full(n, self.seed, dtype=np.int64)),
            "game": lambda: pa.array(np.arange(first_game, first_game + n, dtype=np.int64)),
            "players": lambda: pa.array(np.full(n, P, dtype=np.int64)),
            "winner_guide": lambda: pa.DictionaryArray.from_arrays(pa.array(wg, mask=~won), self.guides),
            "winner_strategy": lambda: pa.DictionaryArray.from_arrays(
                pa.array(np.where(won, winner, P).astype(np.int32)), self.seats).cast(pa.large_string()),
            "finished": lambda: pa.array(rest[P, :n].astype(bool)),
        }
        arrays = []
        j = 0
        for _name, how, what in self.spec:
            if how == "int":
                arrays.append(pa.array(block[j, :n]))
                j += 1
            elif how == "str":
                arrays.append(self._string(what, n))
            elif how == "guide":
                arrays.append(pa.DictionaryArray.from_arrays(pa.array(rest[what, :n].astype(np.int8)), self.guides))
            else:
                arrays.append(made[what]())
        return pa.Table.from_arrays(arrays, schema=self.schema)


def _summary_parts(block: np.ndarray, n: int, names: list[str], P: int) -> dict:
    """The summary's columns of ``block[:, :n]`` (:func:`frame_spec`'s offsets) in their
    compact types (:func:`summary_columns`'s), copied."""
    ints = {name: j for j, name in enumerate(names)}
    rest = block[len(names):]
    kinds = {"winner": np.int8, **{c: np.int32 for c in _SUMMARY_INTS[1:]},
             **{f"advance_{s}": np.int32 for s in range(P)}, **{f"power_{a}": np.int16 for a in ANIMALS}}
    part = {c: block[ints[c], :n].astype(k) for c, k in kinds.items()}
    part["finished"] = rest[P, :n].astype(bool)
    for s in range(P):
        part[f"guide_{s}"] = rest[s, :n].astype(np.int8)
    return part


def _summary_frame(parts: list[dict], P: int, seating: list[str]) -> pd.DataFrame | None:
    """:func:`summary_columns` of the games whose parts (:func:`_summary_parts`) are given, joined."""
    if not parts:
        return None
    col = {c: np.concatenate([p[c] for p in parts]) for c in parts[0]}
    done = len(col["winner"])
    data = {"players": np.full(done, P, dtype=np.int8), **col}
    frame = pd.DataFrame({c: data[c] for c in SUMMARY_COLUMNS})
    for s in range(P):
        frame[f"guide_{s}"] = pd.Categorical.from_codes(col[f"guide_{s}"], dtype=_GUIDES)
    for s in range(P):
        frame[f"advance_{s}"] = col[f"advance_{s}"]
    for s in range(P):  # one name a seat, as the batches' string column made a category
        frame[f"strategy_{s}"] = pd.Series(string_column(np.zeros(done, dtype=np.int64), [seating[s]])).astype("category")
    for a in ANIMALS:
        frame[f"power_{a}"] = col[f"power_{a}"]
    return frame


def _stream_to_file(rules: Rules, games: int, seed: int, seating: list[str], writer, threads: int | None,
                    progress: Callable[[int], None] | None, counts: bool) -> StreamedRun:
    """:func:`simulate_to_file` with a file and no luck (``simulate --out``): one call of the
    kernels over every game (no batch waits for a frame: issue 61 item 1), each thread copying
    the frame's columns of the games it played into one of two windows of STREAM_WINDOW games;
    a thread of its own writes each window once whole, in order (a pyarrow table built from the
    columns, no pandas frame, for Parquet; the frame for CSV), and keeps its summary's columns
    (or, ``counts``, the threads add the summary's sums as they play). A thread whose window's
    buffer is still being written waits for it: memory is bounded by the two windows. The file
    holds the same rows, columns and types as the batches' frames written one by one.

    A stop (Ctrl-C/SIGTERM) ends the kernels between slices: the games played (every game
    before the first one not played) are written and labelled; none played keeps the old file."""
    from .row_counts import RowCounts

    seating, sids, sp, R = _prepare(rules, games, seed, seating, DEFAULT_BATCH)
    width = L.n_columns(rules.finish)
    P = rules.players
    spec, offs = frame_spec(rules, seating, width)
    offsets = np.asarray(offs, dtype=np.int64)
    names = [name for name, how, _ in spec if how == "int"]
    W = STREAM_WINDOW
    slots = np.empty((2, offsets.size, min(W, max(games, 1))), dtype=np.int64)
    sums = RowCounts(P, seating) if counts else None
    cond = threading.Condition()
    st = {"written": 0, "final": None, "closed": False, "error": None, "fatal": None, "played": 0}
    filled: dict[int, int] = {}
    parts: list[dict] = []

    def size(k: int) -> int:
        return min(W, games - k * W)

    def after(a: int, b: int, rows: np.ndarray) -> None:  # on the kernels' threads
        k = a // W
        with cond:
            while not st["closed"] and k >= st["written"] + 2:
                cond.wait()
            if st["closed"]:
                return
        gather_into(rows, offsets, slots[k % 2], a - k * W)
        if sums is not None:
            sums.add(a, b, rows)
        with cond:
            filled[k] = filled.get(k, 0) + b - a
            if filled[k] == size(k):
                cond.notify_all()

    def write_all() -> None:  # the writer's thread
        tables = None
        k = 0
        try:
            while k * W < games:
                with cond:
                    while filled.get(k, 0) < size(k) and st["final"] is None:
                        cond.wait()
                    final = st["final"]
                n = size(k) if final is None else min(size(k), final - k * W)
                if n <= 0:
                    break
                block = slots[k % 2]
                if st["error"] is None:
                    try:
                        if writer.fmt == "csv":
                            writer.write(frame_of_columns(block[:, :n], width, rules, seed, seating, k * W))
                        elif tables is None:  # the first window: its frame gives the schema
                            import pyarrow as pa

                            first = pa.Table.from_pandas(frame_of_columns(block[:, :n], width, rules, seed,
                                                                          seating, k * W), preserve_index=False)
                            writer.write(first)
                            tables = _Tables(rules, seed, seating, width, first)
                        else:
                            writer.write(tables.table(block, n, k * W))
                    except OutputError as err:
                        st["error"] = err  # the games go on; the error is raised after the summary
                if sums is None:
                    parts.append(_summary_parts(block, n, names, P))
                with cond:
                    st["played"] += n
                    st["written"] += 1
                    filled.pop(k, None)
                    cond.notify_all()
                k += 1
        except BaseException as err:  # noqa: BLE001 - raised on the caller's thread
            st["fatal"] = err
        finally:
            with cond:
                st["closed"] = True
                cond.notify_all()

    played, error, done, early = 0, None, 0, False
    try:
        with writer:
            thread = threading.Thread(target=write_all, name="heron-sim-writer", daemon=True)
            thread.start()
            try:
                with _threads(threads):
                    done, cut = play_games(np.uint64(seed), 0, R, sids, sp, (games, width), DEFAULT_BATCH, progress,
                                           lambda: stop_requested() or st["closed"], after)
            finally:
                with cond:
                    early = st["closed"]  # the writer's thread failed before the games ended
                    st["final"] = done
                    cond.notify_all()
                thread.join()
            if st["fatal"] is not None:
                raise st["fatal"]
            if cut and not stop_requested() and not early:
                # a KeyboardInterrupt from Python (no handlers), which play_games swallowed: the
                # games played are written; leaving the writer by it keeps and labels them
                raise KeyboardInterrupt
            played, error = st["played"], st["error"]
            _label(writer, played, games, error)
    except _KeepOldFile:  # no game played: leaving the writer by it kept the old file
        played = 0
    except OutputError as err:  # the file's close failed (or the error above)
        error = error or err
    frame = _summary_counts(sums, P, played) if sums is not None else _summary_frame(parts, P, seating)
    return StreamedRun(frame, int(games), played, Path(writer.path), error)
