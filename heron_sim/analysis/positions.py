"""Every turn's starting position of sampled games, by replaying them slot by slot.

The engine records positions at mid-game and at the end only. As heron_sim.analysis.board does,
a game is played again from its own stream ``(seed, game)`` with the engine's own functions
(``reset_game``, ``deal_guides``, ``seat_compensation``, then ``play_scripted`` one turn slot at a
time: the calls ``play_game`` makes), and the state is read before every slot: each pawn's
square, each seat's Guide and whether its power is ready, and whose turn it is. The games are
the games ``simulate`` plays with the same seed (the engine is not changed); about 25 µs a slot.

A position is what the worth of positions (heron_sim.analysis.worth) is built from and checked
on: the state at the start of a turn slot, and the game's winner.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import HeronSimError


@dataclass
class TurnStarts:
    """The state at the start of every turn slot of ``games`` games.

    Per slot (row): ``game`` (its index among the sampled games), ``slot`` (its number in the
    game, 0 first), ``to_move`` (the seat whose slot it is), ``pos``/``guide``/``ready``
    (int[slots, players]: each seat's square, Guide card and power ready). Per game:
    ``winner`` (-1: unfinished at the round cap), ``final`` (int[games, players]: the squares at
    the game's end), ``seed``, ``number`` (its game number, the stream it draws from) and
    ``seating`` (the strategies by seat).
    """

    players: int
    finish: int
    game: np.ndarray
    slot: np.ndarray
    to_move: np.ndarray
    pos: np.ndarray
    guide: np.ndarray
    ready: np.ndarray
    winner: np.ndarray
    final: np.ndarray
    seed: int
    number: np.ndarray
    seating: tuple

    @property
    def games(self) -> int:
        return int(self.winner.size)

    def __len__(self) -> int:
        return int(self.game.size)

    def game_numbers(self) -> np.ndarray:
        """int64[games]: each game's index among the sampled games (0 ..)."""
        return np.arange(self.games, dtype=np.int64)

    def subset(self, keep) -> "TurnStarts":
        """The games where ``keep`` (bool[games]) is true, numbered again from 0."""
        keep = np.asarray(keep, dtype=bool)
        new = np.cumsum(keep) - 1
        rows = keep[self.game]
        return TurnStarts(self.players, self.finish, new[self.game[rows]].astype(np.int32), self.slot[rows],
                          self.to_move[rows], self.pos[rows], self.guide[rows], self.ready[rows],
                          self.winner[keep], self.final[keep], self.seed, self.number[keep], self.seating)

    def won(self) -> np.ndarray:
        """int8[slots, players]: 1 where the seat won the slot's game."""
        w = self.winner[self.game]
        return (w[:, None] == np.arange(self.players)[None, :]).astype(np.int8)


def trace_turn_starts(rules, seating, seed: int, games: int, first_game: int = 0,
                      stop=None, progress=None) -> TurnStarts:
    """Replay games ``first_game`` .. ``first_game + games - 1`` of ``seed`` (the seating's
    strategy names by seat, as ``simulate`` takes them) and record the state before every slot.

    ``stop``: an optional callable polled between games; when it returns true the games replayed
    so far are returned (``games`` is then their number). ``progress(k)``: called with the games
    replayed since its last call."""
    from ..engine import layout as L
    from ..engine.pack import new_workspace, pack_rules
    from ..engine.rng import new_state, stream_start
    from ..loop.batch import play_scripted
    from ..loop.game import deal_guides, reset_game, seat_compensation
    from ..strategies import memo_words, parse_seating, seat_arrays

    if games < 0 or first_game < 0:
        raise HeronSimError(f"games and first game must be 0 or more (got {games}, {first_game})")
    P = int(rules.players)
    seating = tuple(parse_seating(list(seating), P))
    sids, sp = seat_arrays(list(seating), rules)
    memo = memo_words(pack_rules(rules), sids)  # the seated strategies' words (the champion's scratch)
    R = pack_rules(rules)
    max_rounds = int(rules.max_rounds)
    parts, moves = [], []  # per game: its slots' states (int16[slots, 3 * players]), seats to move
    buf = np.empty((max_rounds * P + 1, 3 * P), dtype=np.int16)
    seat_of = np.empty(max_rounds * P + 1, dtype=np.int8)
    winners, finals = [], []
    rng = new_state()
    for g in range(games):
        if stop is not None and stop():
            break
        w = new_workspace(R, sids, memo=memo)
        stream_start(np.uint64(int(seed)), int(first_game + g), rng)
        reset_game(w)
        deal_guides(w, rng)
        seat_compensation(w, R)
        seat, rnd, winner, slot = 0, 1, -1, 0
        while rnd <= max_rounds:
            buf[slot, :P] = w[L.POS: L.POS + P]
            buf[slot, P: 2 * P] = w[L.GUIDE: L.GUIDE + P]
            buf[slot, 2 * P:] = w[L.READY: L.READY + P]
            seat_of[slot] = seat
            winner = int(play_scripted(seat, 1, w, R, rng, sp))
            slot += 1
            if winner >= 0:
                break
            seat += 1
            if seat == P:
                seat, rnd = 0, rnd + 1
        parts.append(buf[:slot].copy())
        moves.append(seat_of[:slot].copy())
        winners.append(winner)
        finals.append(w[L.POS: L.POS + P].copy())
        if progress is not None and (g + 1) % 100 == 0:
            progress(100)
    if progress is not None and len(winners) % 100:
        progress(len(winners) % 100)
    n_games = len(winners)
    sizes = np.array([len(m) for m in moves], dtype=np.int64)
    state = np.concatenate(parts) if parts else np.zeros((0, 3 * P), dtype=np.int16)
    starts = np.cumsum(sizes) - sizes
    return TurnStarts(
        players=P, finish=int(rules.finish),
        game=np.repeat(np.arange(n_games, dtype=np.int32), sizes),
        slot=(np.arange(int(sizes.sum())) - np.repeat(starts, sizes)).astype(np.int32),
        to_move=np.concatenate(moves) if moves else np.zeros(0, dtype=np.int8),
        pos=state[:, :P].copy(), guide=state[:, P: 2 * P].astype(np.int8),
        ready=state[:, 2 * P:].astype(np.int8),
        winner=np.array(winners, dtype=np.int8),
        final=np.array(finals, dtype=np.int16).reshape(-1, P), seed=int(seed),
        number=np.arange(first_game, first_game + n_games, dtype=np.int64), seating=seating)
