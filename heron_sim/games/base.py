"""The small interface every lighter game shares with the Héron engine.

A lighter game is a module under ``heron_sim/games/<name>/`` whose package ``__init__`` builds
one :class:`LightGame` and registers it with :func:`heron_sim.games.register`. The command
``heron-sim game <name> simulate`` and the reports only use this interface. The shared pieces
a game is built from lie beside this module, one idea each: :mod:`.tables` (its rules table:
defaults, ``--rules`` file, overrides, merged and checked), :mod:`.driver` (its ``simulate``
from a declared kernel call and outputs), :mod:`.sections` (its summary's common sections and
a default summary), :mod:`.declare` (a whole game from one declaration: a package of two files).

Contract (the same as the Héron engine's):
- rules: an immutable, validated object built from the game's defaults, an optional TOML file
  and overrides (``load_rules(rules_file, overrides)``); bad input raises
  :class:`heron_sim.errors.RulesError` with a one-line message naming the field and the allowed
  values. It is a :class:`LightRules`: ``to_table()`` gives the designer's table (the shape and
  key names of the game's ``data/defaults.toml``, every key) from which ``load_rules`` rebuilds
  equal rules, and ``digest()`` its short hash (:func:`table_digest`), which the result files'
  metadata and the run manifests carry; :func:`heron_sim.games.register` refuses a game whose
  rules are not;
- reproducible batches: game ``i`` of a run with master seed ``s`` draws only from its own
  stream ``heron_sim.engine.rng.stream_start(s, i, state)``, so results are bit-identical
  whatever the threads or batch split;
- results: one row per game in a pandas DataFrame whose first columns are
  :data:`CORE_COLUMNS`, then game-specific columns.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np
import pandas as pd
from numba import njit

from ..engine.rng import below, stream_start
from ..errors import HeronSimError

MAX_SEED = 2**63 - 1
#: The most games per call of a game's ``simulate`` when :func:`simulate_chunks` drives it: the
#: stop flag (Ctrl-C, SIGTERM) is read between chunks.
GAME_CHUNK = 20_000
#: The first chunk's games, and the fewest of any chunk.
FIRST_CHUNK = 200
#: Seconds a chunk aims to last: the chunk after each is sized from the games per second just
#: measured, so that a stop acts within about this long, however slow the game, the strategy or
#: the machine (a 20,000-game chunk of Rampage took 51 s on a loaded machine).
CHUNK_SECONDS = 0.5

#: Seconds between two reads of the stop flag while a chunk plays (:func:`simulate_chunks`).
STOP_POLL = 0.05
#: Seconds a stop waits for the chunk in flight before it leaves it, its games dropped: a chunk
#: that ends within them is kept. A chunk lasts about CHUNK_SECONDS, but the first one of a run
#: compiles the game's kernels when their cache is cold (after any edit of the engine's or the
#: game's sources: 50 to 75 s on a loaded two-core machine, numba cannot be interrupted), and a
#: loaded machine can stretch any chunk: neither delays a stop by more than this.
STOP_GRACE = 1.0


def play_slices(games: int, chunk: int, play: Callable[[int, int], None],
                progress: Callable[[int], None] | None = None) -> None:
    """Call ``play(a, b)`` for the slices ``a..b-1`` of ``range(games)`` (at most ``chunk``
    games each), on ``numba.get_num_threads()`` threads at once: the games' kernels release the
    GIL (``nogil=True``) and write disjoint rows, and game ``i`` draws from its own stream, so
    the results are the same for any number of threads. ``progress`` is called in this thread,
    in slice order.

    The threads are daemons, started for the call: a chunk that :func:`simulate_chunks` left
    after a stop (its kernels compiling, say) never holds the process at exit, as the workers of
    a ``ThreadPoolExecutor`` would (they are joined at exit). An error in a slice, or a
    KeyboardInterrupt in this thread, starts no further slice and is raised here."""
    import numba

    threads = numba.get_num_threads()
    if threads > 1 and games > 1:
        chunk = max(1, min(chunk, -(-games // (2 * threads))))
    bounds = [(a, min(games, a + chunk)) for a in range(0, games, chunk)]
    if threads <= 1 or len(bounds) <= 1:
        for a, b in bounds:
            play(a, b)
            if progress is not None:
                progress(b - a)
        return
    import itertools
    import threading

    ended = [threading.Event() for _ in bounds]
    failed: list[BaseException] = []
    order = itertools.count()  # next() is atomic: each slice is taken by one thread
    quit_ = threading.Event()

    def worker() -> None:
        while not quit_.is_set():
            i = next(order)
            if i >= len(bounds):
                return
            try:
                play(*bounds[i])
            except BaseException as err:  # noqa: BLE001 - raised in the calling thread
                failed.append(err)
                quit_.set()
                for e in ended:  # the caller may wait on a slice no thread will take now
                    e.set()
                return
            ended[i].set()

    for _ in range(min(threads, len(bounds))):
        threading.Thread(target=worker, name="heron-sim-game", daemon=True).start()
    try:
        for (a, b), e in zip(bounds, ended):
            e.wait()
            if failed:
                raise failed[0]
            if progress is not None:
                progress(b - a)
    finally:
        quit_.set()


def _chunk_on_thread(call: Callable, progress: Callable[[int], None] | None):
    """``call(advance)`` (one chunk of games) on a daemon thread while this one reads the stop
    flag every :data:`STOP_POLL` seconds and forwards ``advance(n)`` to ``progress`` (here, in
    order). Returns what ``call`` returned (or raises what it raised), or ``None`` when a stop
    was requested and the chunk did not end within :data:`STOP_GRACE` seconds: it is left to end
    on its own (its games are not kept, a daemon never holds the process at exit). The thread
    plays on as many numba threads as this one."""
    import threading
    from collections import deque

    import numba

    from ..interrupt import stop_requested

    threads = numba.get_num_threads()
    box: dict[str, Any] = {}
    counts: deque = deque()
    ended = threading.Event()

    def run() -> None:
        try:
            numba.set_num_threads(threads)
            box["value"] = call(counts.append if progress is not None else None)
        except BaseException as err:  # noqa: BLE001 - raised in the calling thread
            box["error"] = err
        finally:
            ended.set()

    def forward() -> None:
        while counts:
            progress(counts.popleft())

    threading.Thread(target=run, name="heron-sim-chunk", daemon=True).start()
    deadline = None
    while not ended.wait(STOP_POLL):
        forward()
        if stop_requested():
            now = time.monotonic()
            deadline = deadline if deadline is not None else now + STOP_GRACE
            if now >= deadline:
                return None
    forward()
    if "error" in box:
        raise box["error"]
    return box["value"]


@runtime_checkable
class LightRules(Protocol):
    """What a lighter game's rules object provides beside its fields (checked at registration)."""

    def to_table(self) -> dict:
        """The designer's table: every key of the game's ``data/defaults.toml``, in its shape and
        order, with these rules' values (JSON-able: lists, not tuples; numbers where the default
        is a number). ``load_rules(None, table)``, or a TOML file of it, rebuilds equal rules."""
        ...

    def digest(self) -> str:
        """``table_digest(self.to_table())``: a short hash that identifies these rules."""
        ...


def table_digest(table: dict) -> str:
    """A short hash (12 hex digits of the SHA-256 of the canonical JSON: sorted keys, ASCII) of
    a rules table, as :meth:`heron_sim.rules.Rules.digest` computes Héron's."""
    blob = json.dumps(table, sort_keys=True, ensure_ascii=True).encode()
    return hashlib.sha256(blob).hexdigest()[:12]


#: Columns every per-game result table starts with.
#: seed (int), game (index, int), players (int), seats (str, the strategy of each seat in seat
#: order, e.g. "greedy,random,greedy"), strategies (str, the same: one name per seat in seat
#: order, as the column of the same name in Héron's frames; format 2 on, the sorted unique names
#: before), winner (seat index, -1 if none), length (rounds or turns, say which in the game's
#: doc), finished (bool).
CORE_COLUMNS: tuple[str, ...] = (
    "seed", "game", "players", "seats", "strategies", "winner", "length", "finished",
)


@dataclass(frozen=True)
class LightGame:
    """One lighter game, as the command line and the reports see it."""

    name: str                      # command-line name, e.g. "fire-mountain"
    title: str                     # e.g. "La Colère de la Montagne de Feu"
    strategies: tuple[str, ...]    # names accepted by --strategy; the first is the default
    min_players: int
    max_players: int
    #: load_rules(rules_file: str | None, overrides: dict) -> rules object (a :class:`LightRules`)
    load_rules: Callable[..., Any]
    #: simulate(rules, games: int, players: int, seed: int, strategies: list[str],
    #:          progress: Callable[[int], None] | None = None) -> DataFrame (CORE_COLUMNS first)
    simulate: Callable[..., pd.DataFrame]
    #: summarize(df) -> Markdown text answering the game's questions, with intervals
    summarize: Callable[[pd.DataFrame], str]
    doc: str = ""                  # path of docs/games/<name>.md, relative to the repository
    extra: dict = field(default_factory=dict)
    #: the real players (heuristics, not random), the default first: every seat finding is
    #: measured with each alone and with the first two mixed (``runner.kinds.games``); empty:
    #: the first strategy alone
    heuristics: tuple[str, ...] = ()
    #: the game's package (where its ``data/`` files lie); empty: the package of ``simulate``'s
    #: module (a game whose ``simulate`` is a :class:`~heron_sim.games.driver.Driver`'s names it)
    package: str = ""

    def real_players(self) -> tuple[str, ...]:
        """:attr:`heuristics`, or the first strategy alone when the game declares none."""
        return tuple(self.heuristics) or self.strategies[:1]


# ---------------------------------------------------------------- the shared scaffolding
#: Words of a game's random stream state (``heron_sim.engine.rng``: counter, buffered word, flag).
STREAM_WORDS = 3


@njit(cache=True)
def start_stream(seed, game, state):
    """Start in ``state`` (uint64[STREAM_WORDS]) the stream of game ``game`` under master
    ``seed`` (:func:`heron_sim.engine.rng.stream_start`); a state of another size raises
    ValueError instead of drawing from a wrong-sized array."""
    if state.size != STREAM_WORDS:
        raise ValueError("a game's stream state must be uint64[3]")
    stream_start(seed, game, state)


@njit(cache=True)
def game_stream(seed, game):
    """A new uint64[STREAM_WORDS] state started on game ``game``'s stream under ``seed``."""
    state = np.zeros(STREAM_WORDS, np.uint64)
    stream_start(seed, game, state)
    return state


@njit(cache=True)
def keep_tied(n_tied, state):
    """Reservoir step of a uniformly random tie-break: the ``n_tied``-th candidate tied for best
    replaces the current pick with probability 1 / n_tied (draws from the game's stream)."""
    return below(state, n_tied) == 0


def stream(seed: int, game: int, state: np.ndarray | None = None) -> np.ndarray:
    """Python side of :func:`start_stream`: the stream state of game ``game`` under ``seed``
    (a new one, or ``state`` restarted). ``state`` must be a writable uint64[3] array, else
    :class:`HeronSimError` (a one-line message), never a silent draw from a wrong array."""
    if state is None:
        state = np.zeros(STREAM_WORDS, np.uint64)
    if not isinstance(state, np.ndarray) or state.dtype != np.uint64 or state.shape != (STREAM_WORDS,):
        got = f"{state.dtype}{list(state.shape)}" if isinstance(state, np.ndarray) else type(state).__name__
        raise HeronSimError(f"stream state: {got}; allowed: a uint64[{STREAM_WORDS}] array")
    if not 0 <= int(seed) <= MAX_SEED or not 0 <= int(game) <= MAX_SEED:
        raise HeronSimError(f"seed, game: {seed}, {game}; allowed: 0..{MAX_SEED}")
    stream_start(np.uint64(seed), np.int64(game), state)
    return state


def rules_layers(rules_file, overrides: dict | None) -> list[dict]:
    """The tables a game's rules are merged from after its defaults: the ``--rules`` TOML file
    (when given), then ``overrides`` (when not empty)."""
    from ..tomlfile import read_toml

    layers = [read_toml(rules_file, "--rules")] if rules_file is not None else []
    if overrides:
        layers.append(dict(overrides))
    return layers


def merge_flat(values: dict, layers: list[dict], known, strings: bool = True) -> dict:
    """Merge flat ``layers`` over the defaults ``values`` (changed in place, returned): an
    unknown key, a non-list for a list, a non-string for a string (``strings``: else the rules'
    own validation says it) raise
    :class:`~heron_sim.errors.RulesError` (one line); an integer given for a float is made a
    float."""
    from ..errors import RulesError

    for layer in layers:
        for key, value in layer.items():
            if key not in known:
                raise RulesError(f"{key}: unknown rules key; allowed: {', '.join(sorted(known))}")
            default = values[key]
            if isinstance(default, list) and not isinstance(value, list):
                raise RulesError(f"{key}: {value!r}; allowed: a list (see defaults.toml)")
            if strings and isinstance(default, str) and not isinstance(value, str):
                raise RulesError(f"{key}: {value!r}; allowed: a string (see defaults.toml)")
            if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            values[key] = value
    return values


def merge_tables(base: dict, over: dict, where: str = "") -> dict:
    """A copy of the nested table ``base`` with ``over``'s keys (tables merged key by key); an
    unknown key or a value for a table raises :class:`~heron_sim.errors.RulesError` (one line)."""
    import copy

    from ..errors import RulesError

    out = copy.deepcopy(base)
    for key, value in over.items():
        if key not in base:
            raise RulesError(f"{where}{key}: unknown key; allowed: {', '.join(base) if base else '(none)'}")
        if isinstance(base[key], dict):
            if not isinstance(value, dict):
                raise RulesError(f"{where}{key}: expected a table; allowed: keys {', '.join(base[key])}")
            out[key] = merge_tables(base[key], value, f"{where}{key}.")
        else:
            out[key] = value
    return out


def core_frame(seed: int, first_game: int, players: int, names, winner, length, finished, **columns) -> pd.DataFrame:
    """A result frame: :data:`CORE_COLUMNS` from one run's arrays (``winner``, ``length``: int64[n],
    ``finished``: bool or int[n]; ``names``: the strategy of each seat), then ``columns`` in order."""
    n = len(winner)
    seats = ",".join(names)
    cols = {
        "seed": np.full(n, seed, dtype=np.int64),
        "game": np.arange(first_game, first_game + n, dtype=np.int64),
        "players": np.full(n, players, dtype=np.int64),
        "seats": seats,
        "strategies": seats,
        "winner": winner, "length": length, "finished": np.asarray(finished).astype(bool),
        **columns,
    }
    return pd.DataFrame(cols)


def seat_strategies(strategies, players: int, ids: dict[str, int], min_players: int,
                    max_players: int, games: int = 0, seed: int = 0,
                    first_game: int = 0) -> tuple[list[str], np.ndarray]:
    """Validate a run's arguments; return the strategy name and id of each seat
    (``list[str]``, ``int64[players]``).

    ``strategies`` is one name per seat, or one name for every seat (None: the first of ``ids``).
    Raises :class:`~heron_sim.errors.HeronSimError` with a one-line message otherwise.
    """
    if not min_players <= players <= max_players:
        raise HeronSimError(f"players: {players}; allowed: {min_players}..{max_players}")
    if games < 0 or seed < 0 or first_game < 0:
        raise HeronSimError("games, seed, first_game: negative; allowed: integers >= 0")
    if seed > MAX_SEED or first_game + games > MAX_SEED:
        raise HeronSimError(f"seed: {seed}; allowed: 0..{MAX_SEED} (and game indices below it)")
    names = list(strategies) if strategies else [next(iter(ids))] * players
    if len(names) == 1:
        names = names * players
    if len(names) != players or any(n not in ids for n in names):
        raise HeronSimError(f"strategies: {names!r}; allowed: {players} names among {', '.join(ids)}")
    return names, np.array([ids[n] for n in names], np.int64)


def check_core_columns(df: pd.DataFrame) -> None:
    """Raise AssertionError unless ``df`` starts with the core columns."""
    head = tuple(df.columns[: len(CORE_COLUMNS)])
    assert head == CORE_COLUMNS, f"result columns must start with {CORE_COLUMNS}, got {head}"


def simulate_chunks(game: LightGame, rules, games: int, players: int, seed: int, strategies,
                    progress: Callable[[int], None] | None = None, first_game: int = 0,
                    chunk: int = GAME_CHUNK):
    """Yield ``game.simulate`` frames of at most ``chunk`` games (indices ``first_game ..``),
    stopping between chunks once a stop was requested (Ctrl-C or SIGTERM under the command
    line). Game ``i`` draws from its own stream, so the chunks join into the frame one call
    would give.

    The chunks adapt to the speed measured: the first holds :data:`FIRST_CHUNK` games, each
    later one the games the last ran at in :data:`CHUNK_SECONDS` (at most twice the last
    chunk, at most ``chunk``), so that a stop acts within about a second whatever the game.
    Each chunk plays on its own thread while this one reads the stop flag
    (:func:`_chunk_on_thread`): a stop that comes while a chunk plays keeps it if it ends within
    :data:`STOP_GRACE` seconds, else leaves it (a cold cache's compilation, a machine so loaded
    that the chunk runs long), so that no chunk delays a stop by more than that."""
    from ..interrupt import stop_requested

    if not 0 <= seed <= MAX_SEED:
        raise HeronSimError(f"--seed: {seed}; allowed: 0..{MAX_SEED}")
    done = 0
    size = min(chunk, FIRST_CHUNK)
    while done < games and not stop_requested():
        n = min(size, games - done)
        t0 = time.perf_counter()
        start = first_game + done
        frame = _chunk_on_thread(
            lambda advance, n=n, start=start: game.simulate(rules, games=n, players=players, seed=seed,
                                                            strategies=list(strategies), progress=advance,
                                                            first_game=start), progress)
        if frame is None:  # stopped, the chunk still playing: left (its games not kept)
            return
        elapsed = time.perf_counter() - t0
        done += n
        rate = n / max(elapsed, 1e-6)
        size = int(max(min(FIRST_CHUNK, chunk), min(chunk, 2 * n, rate * CHUNK_SECONDS)))
        yield frame


def light_summary(df: pd.DataFrame) -> dict:
    """The headline figures of a lighter game's run as plain JSON-ready values, in the key style
    of ``heron-sim simulate --json`` (:func:`heron_sim.analysis.summarize`).

    Keys: games, finished, unfinished (games - finished), decided (finished with at least one winner), shared (decided games
    with several co-winners), length_mean, length_median, length_p90 (finished games, the
    game's unit), win_rate_by_seat (win shares over decided games; a shared win counts 1/k to
    each of k co-winners), win_rate_by_seat_ci (95 % Wilson), win_rate_by_seat_p_holm (against
    the fair 1/players, Holm over the seats), fair, and when several strategies played
    win_rate_by_strategy, win_rate_by_strategy_ci (per seat played).
    """
    from ..analysis.metrics import light_length_table, light_seat_table, light_strategy_table, light_win_shares

    n = len(df)
    sh = light_win_shares(df) if n else np.zeros((0, 0))
    dec = sh.sum(axis=1) > 0.5 if n else np.zeros(0, bool)
    lt = light_length_table(df)
    st = light_seat_table(df)
    P = int(df["players"].iloc[0]) if n else 0
    out = {
        "games": n,
        "finished": int(df["finished"].sum()) if n else 0,
        "unfinished": n - (int(df["finished"].sum()) if n else 0),
        "decided": int(dec.sum()),
        "shared": int(((sh > 0) & (sh < 1)).any(axis=1).sum()) if n else 0,
        "length_mean": lt["mean"], "length_median": lt["median"], "length_p90": lt["p90"],
        "win_rate_by_seat": [float(x) for x in st["win_rate"]],
        "win_rate_by_seat_ci": [[float(a), float(b)] for a, b in zip(st["low"], st["high"])],
        "win_rate_by_seat_p_holm": [float(x) for x in st["p_holm"]] if len(st) else [],
        "fair": 1 / P if P else float("nan"),
    }
    if n and df["seats"].astype(str).str.split(",").map(lambda s: len(set(s))).max() > 1:
        stt = light_strategy_table(df)
        alls = stt[stt["seat"].astype(str) == "all"]
        out["win_rate_by_strategy"] = {r.strategy: float(r.win_rate) for r in alls.itertuples()}
        out["win_rate_by_strategy_ci"] = {r.strategy: [float(r.low), float(r.high)] for r in alls.itertuples()}
    return out


# ---------------------------------------------------------------- tidy frames for the report
def _rules(game: LightGame, overrides: dict | None):
    return game.load_rules(None, dict(overrides or {}))


def run_frame(game: LightGame, players: int, games: int, seed: int, overrides: dict | None = None,
              strategies: list[str] | None = None) -> pd.DataFrame:
    """One run's per-game frame (every seat the game's first strategy unless ``strategies``)."""
    names = strategies or [game.strategies[0]] * players
    return game.simulate(_rules(game, overrides), games=games, players=players, seed=seed, strategies=names)


def seat_rows(df: pd.DataFrame, **labels) -> pd.DataFrame:
    """Tidy seat shares of one run (:func:`heron_sim.analysis.metrics.light_seat_table`: a
    shared win counts 1/k to each co-winner; fair 1/players; Holm over the seats), with the
    ``labels`` as leading columns."""
    from ..analysis.metrics import light_seat_table

    t = light_seat_table(df)
    for i, (k, v) in enumerate(labels.items()):
        t.insert(i, k, v)
    return t


def length_rows(df: pd.DataFrame, **labels) -> pd.DataFrame:
    """One tidy row of a run's length and balance: games, finished, decided, shared, mean
    length (t interval), median, p10, p90 (finished games, the game's unit), ``balance`` (1 -
    the largest gap between two seats' shares), ``max_seat_share`` and its Holm p."""
    from ..analysis.metrics import light_length_table, light_seat_table, light_win_shares

    lt = light_length_table(df)
    st = light_seat_table(df)
    sh = light_win_shares(df)
    row = {**labels, "games": lt["games"], "finished": lt["finished"],
           "decided": int((sh.sum(axis=1) > 0.5).sum()), "shared": int(((sh > 0) & (sh < 1)).any(axis=1).sum()),
           "length_mean": lt["mean"], "length_low": lt["mean_low"], "length_high": lt["mean_high"],
           "length_median": lt["median"], "length_p10": lt["p10"], "length_p90": lt["p90"],
           "balance": 1.0 - float(st["win_rate"].max() - st["win_rate"].min()) if len(st) else np.nan,
           "max_seat_share": float(st["win_rate"].max()) if len(st) else np.nan,
           "min_p_holm": float(st["p_holm"].min()) if len(st) else np.nan}
    return pd.DataFrame([row])


def seat_frame(game: LightGame, games: int, seed: int, players=None, overrides: dict | None = None,
               label: str = "default") -> pd.DataFrame:
    """Seat shares at every player count the game allows (or ``players``): one row per
    (players, seat), every seat the game's first strategy."""
    ps = list(players or range(game.min_players, game.max_players + 1))
    return pd.concat([seat_rows(run_frame(game, P, games, seed, overrides), game=game.name, variant=label,
                                players=P) for P in ps], ignore_index=True)


def variants_frames(game: LightGame, variants: dict[str, dict], games: int, seed: int,
                    players=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Seat shares and length of each rules variant (label -> overrides; {} the defaults) at
    every player count, on the same seeds: (seat rows, length rows)."""
    ps = list(players or range(game.min_players, game.max_players + 1))
    seats, lengths = [], []
    for label, over in variants.items():
        for P in ps:
            df = run_frame(game, P, games, seed, over)
            seats.append(seat_rows(df, game=game.name, variant=label, players=P))
            lengths.append(length_rows(df, game=game.name, variant=label, players=P))
    return pd.concat(seats, ignore_index=True), pd.concat(lengths, ignore_index=True)


def strategy_frame(game: LightGame, games: int, seed: int, players=None, overrides: dict | None = None) -> pd.DataFrame:
    """Win share per seat played of the game's first two strategies at every player count:
    the second strategy takes each seat in turn (games / players games each), the first the
    other seats; rows of :func:`heron_sim.analysis.metrics.light_strategy_table` ("all" and
    per seat), with ``players``."""
    from ..analysis.metrics import light_strategy_table

    if len(game.strategies) < 2:
        return pd.DataFrame()
    a, b = game.strategies[:2]
    ps = list(players or range(game.min_players, game.max_players + 1))
    out = []
    for P in ps:
        per = max(1, games // P)
        parts = [run_frame(game, P, per, seed, overrides, [b if i == s else a for i in range(P)])
                 .assign(game=lambda d, s=s: d["game"] + s * per) for s in range(P)]
        t = light_strategy_table(pd.concat(parts, ignore_index=True))
        t.insert(0, "players", P)
        t.insert(0, "game", game.name)
        out.append(t)
    return pd.concat(out, ignore_index=True)


def pct_text(rate: float, low: float, high: float) -> str:
    """A share with its interval in a summary's words, "12.3 % [11.0, 13.6]" (the interval's
    rounding noise clipped: a Wilson bound of -1e-17 would print as -0.0)."""
    return f"{100 * rate:.1f} % [{max(0.0, 100 * low):.1f}, {min(100.0, 100 * high):.1f}]"


def tidy_frames(game: Callable[[], "LightGame"], readings: dict[str, dict], players: tuple[int, ...]):
    """The tidy frames a game's summary module offers the report, for the game ``game()`` gives
    (called when a frame is asked for: the game's package registers it after its summary module
    is imported): ``(seat_shares, readings, strategies)``, functions of
    ``(games=4000, seed=1, players=players)`` giving :func:`seat_frame` (every seat the first
    strategy, default rules), :func:`variants_frames` over ``readings`` (label -> overrides, same
    seeds) and :func:`strategy_frame` (the first two strategies, the second rotated over the seats)."""
    def seat_shares(games: int = 4000, seed: int = 1, players=players) -> pd.DataFrame:
        """Seat win shares (every seat the first strategy, default rules) at every player count:
        one row per (players, seat) with wins, shared, win_rate, low, high, fair, p, p_holm."""
        return seat_frame(game(), games, seed, players)

    def readings_frames(games: int = 4000, seed: int = 1, players=players) -> tuple[pd.DataFrame, pd.DataFrame]:
        """What each reading of the seed does (same seeds): (seat rows, length rows)."""
        return variants_frames(game(), readings, games, seed, players)

    def strategies(games: int = 4000, seed: int = 1, players=players) -> pd.DataFrame:
        """The first strategy against the second, the second taking each seat in turn."""
        return strategy_frame(game(), games, seed, players)

    return seat_shares, readings_frames, strategies


def seat_markdown(df: pd.DataFrame, extra: dict | None = None) -> list[str]:
    """Markdown lines of the seat-share table of one run (shared wins as fractions); seats are
    numbered from 1 (seat 1 plays first), as on every page of the report."""
    from ..analysis.stats import format_p

    t = seat_rows(df)
    P = int(df["players"].iloc[0]) if len(df) else 0
    n = int(t["games"].iloc[0]) if len(t) else 0
    from ..analysis.metrics import light_win_shares

    sh = light_win_shares(df) if len(df) else np.zeros((0, 0))
    shared = int(((sh > 0) & (sh < 1)).any(axis=1).sum()) if len(df) else 0
    cols = list((extra or {}).keys())
    out = [f"Win share per seat over {n} decided games (a shared win counts 1/k to each of its k "
           f"co-winners, so the fair share is 1/{P} = {100 / P:.1f} %); 95 % Wilson interval; p against "
           f"fair, Holm over the seats.", "",
           "| seat | " + "".join(f"{c} | " for c in cols) + "wins | shared | win share [95 %] | p (Holm) |",
           "|---|" + "---|" * len(cols) + "---|---|---|---|"]
    for r in t.itertuples():
        ex = "".join(f"{extra[c][r.seat]} | " for c in cols)
        wins = f"{r.wins:.0f}" if float(r.wins).is_integer() else f"{r.wins:.1f}"
        out.append(f"| {r.seat + 1} | {ex}{wins} | {r.shared} | {100 * r.win_rate:.1f} % "
                   f"[{100 * max(0.0, r.low):.1f}, {100 * min(1.0, r.high):.1f}] | {format_p(r.p_holm)} |")
    if shared:
        out.append("")
        out.append(f"{shared} of {n} decided games ended in a shared win; each of its k co-winners counts 1/k "
                   "(column *shared*: the games a seat shared).")
    return out


# ---------------------------------------------------------------- a game's words (the lab's sheets)
def game_package(game: LightGame) -> str:
    """The package a game lives in (``heron_sim.games.rampage``): where its ``data/`` files are."""
    return game.package or game.simulate.__module__.rsplit(".", 1)[0]


def _default_comments(package: str) -> dict[str, str]:
    """Each key of the package's ``data/defaults.toml`` (dotted under its table) -> its comment:
    the inline one, else the comment lines above it (a comment block describes the keys that
    follow it up to the next blank line), else its table's comment with the key's name."""
    import re
    from importlib import resources

    try:
        text = resources.files(package).joinpath("data/defaults.toml").read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError):
        return {}
    out, section, section_words, block, after_key = {}, "", "", [], False
    for line in text.splitlines():
        s = line.strip()
        m = re.fullmatch(r"\[([A-Za-z0-9_.]+)\]\s*(#.*)?", s)
        if m:
            section = m.group(1) + "."
            section_words = " ".join(block) or out.get(m.group(1), "") or section_words
            block, after_key = [], False
            continue
        if s.startswith("#"):
            c = s.lstrip("#").strip()
            if after_key:
                block, after_key = [], False
            if c.startswith("---"):  # a section's rule line names no key
                block = []
            elif c:
                block.append(c)
            continue
        m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$", s)
        if m:
            value, inline = m.group(2), ""
            for i, ch in enumerate(value):
                if ch == "#" and value[:i].count('"') % 2 == 0:
                    inline = value[i + 1:].strip()
                    break
            words = inline or " ".join(block) or (f"{section_words} ({m.group(1)})" if section_words else "")
            if words:
                out[section + m.group(1)] = re.sub(r"\s+", " ", words).strip()
            after_key = True
            continue
        if not s:
            block, after_key = [], False
    return out


def rules_words(game: LightGame) -> dict[str, dict[str, str]]:
    """What each rules key of ``game`` means, in French and English, for the lab's rule sheets:
    ``{dotted key: {"fr": ..., "en": ...}}``. The game declares them in its package's
    ``data/words.toml`` (``[rules."key"]`` tables with ``fr`` and ``en``; also ``[game]`` with its
    ``fr`` and ``en`` names); a key it does not describe takes its comment in ``defaults.toml``
    (English) in both languages, so that a new game needs no words to be studied."""
    from ..tomlfile import package_toml

    package = game_package(game)
    try:
        declared = package_toml(package, "data/words.toml").get("rules", {})
    except (FileNotFoundError, ModuleNotFoundError):
        declared = {}
    comments = _default_comments(package)
    out = {}
    for key in set(comments) | set(declared):
        d = declared.get(key, {})
        en = d.get("en") or comments.get(key) or key
        out[key] = {"en": en, "fr": d.get("fr") or en}
    return out


def game_words(game: LightGame) -> dict[str, str]:
    """The game's name in French and English (``[game]`` of its ``data/words.toml``; else its title)."""
    from ..tomlfile import package_toml

    try:
        g = package_toml(game_package(game), "data/words.toml").get("game", {})
    except (FileNotFoundError, ModuleNotFoundError):
        g = {}
    return {"fr": g.get("fr", game.title), "en": g.get("en", game.title)}
