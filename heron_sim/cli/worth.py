"""``worth``: build the worth of positions of a rules file and table, and check it against games
it was not built from (docs/worth.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from ._app import Interrupted, JsonOpt, ModeOpt, PlayersOpt, RulesOpt, SetOpt, app, build_rules, dumps, log, strategy_names



def worth_built(r, seating, games=None, say: bool = True, interrupted: str = ""):
    """The worth of positions of rules ``r`` and ``seating`` (cached, else built with a progress
    bar; ``say``: one line says it is being built), and whether it was built now. Ctrl-C during
    the build is :class:`Interrupted` ("interrupted: …" + ``interrupted``)."""
    from ..analysis import worth as W
    from ..interrupt import stop_requested
    from ..progress import progress_bar

    worth = W.cached(r, seating, games)
    if worth is not None:
        return worth, False
    n = games or W.BUILD_GAMES
    if say:
        log(f"building the worth of positions of these rules at {r.players} players "
            f"({n:,} self-play games, once; cached)")
    try:
        with progress_bar(n, "worth of positions") as advance:
            return W.worth_of(r, seating, games, progress=advance, stop=stop_requested), True
    except W.BuildInterrupted as err:
        raise Interrupted(f"interrupted: {err}{interrupted}") from None

@app.command("worth")
def worth_cmd(
    mode: ModeOpt = None,
    players: PlayersOpt = None,
    strategy: Annotated[str, typer.Option("--strategy", help=f"One strategy for every seat, or a comma list, one per seat: the players whose games the worth is measured on ({strategy_names()}).")] = "expert",
    rules: RulesOpt = None,
    set_: SetOpt = None,
    build_games: Annotated[int, typer.Option("--build-games", help="Self-play games the worth is built from (seed 20261207; cached per rules, players, strategies and games).")] = 20_000,
    check: Annotated[int, typer.Option("--check", help="Held-out games (seed 77) on which the chances are compared with the winners, decile by decile; 0: no check.")] = 5_000,
    as_json: JsonOpt = False,
) -> None:
    """Build (or read from the cache) each seat's chance of winning from any turn start for these
    rules and players, then compare the chances with the winners of games it was not built from:
    the players' positions sorted by predicted chance in ten equal groups, each group's share of
    wins against its mean chance, with a 95 % interval (docs/worth.md). About 40 s to build at 4
    players, 2 min at 7, on 2 cores; once per rules file."""
    import time

    import numpy as np

    from ..analysis import worth as W
    from ..analysis.positions import trace_turn_starts
    from ..errors import HeronSimError
    from ..interrupt import stop_requested
    from ..progress import progress_bar
    from ..strategies import parse_seating

    if build_games < 100 or build_games > 10_000_000:
        raise HeronSimError(f"--build-games: {build_games}; allowed: 100 .. 10,000,000")
    if check < 0 or check > 10_000_000:
        raise HeronSimError(f"--check: {check}; allowed: 0 (no check) .. 10,000,000")
    r = build_rules(mode, rules, set_, players)
    seating = parse_seating(strategy, r.players)
    t0 = time.perf_counter()
    worth, built = worth_built(r, seating, build_games, say=False)
    seconds = time.perf_counter() - t0
    out = {"rules": r.digest(), "mode": r.mode, "players": r.players, "strategies": list(seating),
           "build_games": build_games, "built_now": built, "build_seconds": round(seconds, 1)}
    rel = None
    if check:
        with progress_bar(check, "held-out games") as advance:
            held = trace_turn_starts(r, seating, 77, check, progress=advance, stop=stop_requested)
        if held.games < check:
            raise Interrupted(f"interrupted: the check was stopped after {held.games:,} of {check:,} games "
                              "(the worth itself is built and cached)")
        rel = W.reliability(worth, held)
        out.update(check_games=check, positions=rel.positions, worst_decile=rel.worst(), brier=rel.brier,
                   deciles=rel.rows())
    if as_json:
        typer.echo(dumps(out))
        return
    how = f"built in {seconds:.0f} s" if built else "read from the cache"
    typer.echo(f"Worth of positions, {r.mode}, {r.players} players, {', '.join(seating)}: "
               f"{build_games:,} self-play games, {how}.")
    if rel is None:
        return
    typer.echo(f"Checked on {check:,} other games ({rel.positions:,} seat-positions), by decile of predicted chance:")
    typer.echo("| decile | chances | predicted | observed | observed − predicted [95 %] |")
    typer.echo("|---|---|---|---|---|")
    for d in rel.rows():
        typer.echo(f"| {d['decile']} | {100 * d['lowest']:.1f}–{100 * d['highest']:.1f} % | {100 * d['predicted']:.2f} % | "
                   f"{100 * d['observed']:.2f} % | {100 * d['error']:+.2f} pt [{100 * d['error_low']:+.2f}, "
                   f"{100 * d['error_high']:+.2f}] |")
    err = np.abs(rel.error)
    b = int(np.argmax(err))
    if err[b] <= 0.01:
        verdict = "within the 1-point target"
    elif rel.low[b] <= 0.01 and rel.high[b] >= -0.01:
        verdict = "not told apart from the 1-point target with these games (raise --check)"
    else:
        verdict = "beyond the 1-point target, decisively"
    log(f"worst decile: {100 * err[b]:.2f} points, {verdict}")


@app.command("story")
def story_cmd(
    mode: ModeOpt = None,
    players: PlayersOpt = None,
    strategy: Annotated[str, typer.Option("--strategy", help=f"One strategy for every seat, or a comma list, one per seat ({strategy_names()}).")] = "expert",
    rules: RulesOpt = None,
    set_: SetOpt = None,
    seed: Annotated[int, typer.Option("--seed", help="Master seed: the game is simulate's game of this seed.")] = 1,
    game: Annotated[int, typer.Option("--game", help="Which game of the seed (0 = the first game simulate plays).")] = 0,
    as_json: JsonOpt = False,
) -> None:
    """One game told turn by turn in winning chances: each turn's player, its square before and
    after, every player's chance of winning after the turn and the change the turn made to the
    mover's; then the turn that did the most for the winner. The game is the one `simulate` plays
    with the same seed, rules and players (game 0 first); the chances come from the worth of
    positions of these rules (docs/worth.md; built the first time, about a minute)."""
    from ..analysis import worth as W
    from ..analysis.drama import story_of_game, trace_games
    from ..errors import HeronSimError
    from ..interrupt import stop_requested
    from ..progress import progress_bar
    from ..strategies import parse_seating

    if game < 0 or game > 10**12:
        raise HeronSimError(f"--game: {game}; allowed: 0 .. 1,000,000,000,000")
    r = build_rules(mode, rules, set_, players)
    seating = parse_seating(strategy, r.players)
    worth, _ = worth_built(r, seating)
    from ..analysis.positions import trace_turn_starts
    from ..analysis.drama import chances_of, trace_frame

    trace = trace_turn_starts(r, seating, seed, 1, first_game=game)
    frame = trace_frame(trace, chances_of(trace, worth))
    turns, winner, key = story_of_game(frame, game)
    if as_json:
        typer.echo(dumps({"seed": seed, "game": game, "players": r.players, "strategies": list(seating),
                          "winner": winner, "key_turn": key, "turns": turns.to_dict(orient="records")}))
        return
    P = r.players
    typer.echo(f"Game {game} of seed {seed}, {r.mode}, {P} players ({', '.join(seating)}): "
               + (f"player {winner} wins after {int(turns['round'].iloc[-1])} rounds." if winner else "unfinished."))
    typer.echo("| round | player | square | its chance | " + " | ".join(f"P{s + 1}" for s in range(P)) + " |")
    typer.echo("|---|---|---|---|" + "---|" * P)
    for i, t in enumerate(turns.to_dict(orient="records")):
        mark = " ◀" if i == key else ""
        typer.echo(f"| {t['round']} | {t['player']} | {t['square_before']} → {t['square_after']} | "
                   f"{100 * t['change']:+.1f} pt{mark} | "
                   + " | ".join(f"{100 * t[f'chance_{s + 1}']:.0f} %" for s in range(P)) + " |")
    if key >= 0:
        k = turns.to_dict(orient="records")[key]
        typer.echo(f"The turn that did the most for the winner: round {k['round']}, player {k['player']} "
                   f"({k['square_before']} → {k['square_after']}), {100 * k['change']:+.1f} points for the mover.")
