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
    lang: Annotated[str, typer.Option("--lang", help="Language of the words: fr (default) or en.")] = "fr",
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

    from ..i18n import LANGS

    if game < 0 or game > 10**12:
        raise HeronSimError(f"--game: {game}; allowed: 0 .. 1,000,000,000,000")
    if lang not in LANGS:
        raise HeronSimError(f"--lang: {lang!r}; allowed: {', '.join(LANGS)}")
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
    typer.echo(story_words(turns, winner, key, game=game, seed=seed, mode=r.mode, seating=list(seating), lang=lang))


#: every English text of the story: fr.po holds their French (tests/test_worth.py)
STORY_MESSAGES = (
    "Game {game} of seed {seed}, {mode}, {n} players ({seating}): player {winner} wins after {rounds} rounds.",
    "Game {game} of seed {seed}, {mode}, {n} players ({seating}): unfinished.",
    "| round | player | square | its chance |", "P{seat}",
    "The turn that did the most for the winner: round {round}, player {player} ({before} → {after}), {change} points "
    "for the mover.",
)


def story_words(turns, winner, key: int, *, game: int, seed: int, mode: str, seating: list[str], lang: str = "fr") -> str:
    """``story``'s game in words (heron_sim.analysis.drama.story_of_game's turns, winner and key
    turn), in ``lang``: the head line, a table row a turn, the turn that did the most for the
    winner."""
    from ..i18n import NBSP, counted, gettext, number

    def _(msgid: str) -> str:
        return gettext(msgid, lang)

    def num(x: float, d: int, sign: bool = False) -> str:
        return (f"{x:+.{d}f}" if sign else f"{x:.{d}f}") if lang == "en" else number(x, d, lang, sign=sign)

    pct = " %" if lang == "en" else NBSP + "%"
    if lang == "fr":
        from ..analysis.executive import MODE_NAMES
        from ..playtest.coach import player_words

        mode, seating = MODE_NAMES.get(mode, mode), [player_words(s, lang) for s in seating]
    P = len(seating)
    head = dict(game=game, seed=seed, mode=mode, n=P, seating=", ".join(seating))
    out = [(_("Game {game} of seed {seed}, {mode}, {n} players ({seating}): player {winner} wins after {rounds} rounds.")
            .format(**head, winner=winner, rounds=int(turns["round"].iloc[-1])) if winner else
            _("Game {game} of seed {seed}, {mode}, {n} players ({seating}): unfinished.").format(**head)),
           _("| round | player | square | its chance |") + " " + " | ".join(_("P{seat}").format(seat=s + 1) for s in range(P))
           + " |",
           "|---|---|---|---|" + "---|" * P]
    rows = turns.to_dict(orient="records")
    for i, t in enumerate(rows):
        mark = " ◀" if i == key else ""
        out.append(f"| {t['round']} | {t['player']} | {t['square_before']} → {t['square_after']} | "
                   f"{num(100 * t['change'], 1, True)} pt{mark} | "
                   + " | ".join(num(100 * t[f"chance_{s + 1}"], 0) + pct for s in range(P)) + " |")
    if key >= 0:
        k = rows[key]
        out.append(_("The turn that did the most for the winner: round {round}, player {player} ({before} → {after}), "
                     "{change} points for the mover.").format(round=k["round"], player=k["player"],
                                                              before=k["square_before"], after=k["square_after"],
                                                              change=num(100 * k["change"], 1, True)))
    return counted("\n".join(out), lang)
