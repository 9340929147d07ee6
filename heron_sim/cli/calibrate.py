"""``calibrate``: fit the human-like player to a turn log (docs/calibrate.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ._app import Interrupted, JsonOpt, ModeOpt, RulesOpt, SetOpt, app, build_rules, dumps, log


@app.command("calibrate")
def calibrate_cmd(
    log_file: Annotated[Path, typer.Argument(metavar="LOG.csv", help="The turn log (docs/calibrate.md).")],
    mode: ModeOpt = None,
    rules: RulesOpt = None,
    set_: SetOpt = None,
    player: Annotated[Optional[str], typer.Option("--player", help="Fit only the rows whose player column is this (default: every row).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Fit human's temp, caution and forget to the decisions of a turn log by maximum
    likelihood (95 % profile likelihood intervals); print the move-matching rate of the fit and
    of each rung, the seconds per turn when logged, and the player name to use. The options of
    each decision are valued with the expert's tables of the rules played (--mode, --rules,
    --set: give the rules of the games logged)."""
    from ..interrupt import Stopped, signal_name
    from ..playtest import calibrate

    r = build_rules(mode, rules, set_)
    try:
        doc = calibrate(log_file, r, player)
    except Stopped as err:
        # nothing to keep: the fit is all or nothing, and calibrate writes no file
        raise Interrupted(f"interrupted ({signal_name() or 'SIGINT'}): calibrate stopped while "
                          f"{getattr(err, 'stage', 'working')}; nothing was fitted or printed") from None
    if len(doc["players_in_log"]) > 1 and player is None:
        log(f"note: the log holds {len(doc['players_in_log'])} players "
            f"({', '.join(doc['players_in_log'])}); fitted together (--player NAME fits one)")
    if doc["rules_of_log"] not in (None, doc["rules"]):
        log(f"note: {log_file} names the rules {doc['rules_of_log']}; fitted with the rules {doc['rules']} "
            "(give the rules the games were played with: --mode, --rules, --set)")
    if as_json:
        typer.echo(dumps(doc))
        return
    typer.echo(text(doc))


def _fmt(x) -> str:
    return "—" if x is None else f"{x:.3f}"


def text(doc: dict) -> str:
    """The plain report of :func:`heron_sim.playtest.calibrate`."""
    d = doc["decisions"]
    lines = [f"{doc['log']}: {doc['rows']:,} rows, {doc['games']:,} games, {doc['turns']:,} turns "
             f"({doc['mode']}, rules {doc['rules']})",
             "decisions modelled: " + ", ".join(f"{k} {v:,}" for k, v in d.items()),
             "not modelled: " + ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in doc["not_modelled"].items()),
             "",
             "| parameter | estimate | 95 % interval (profile likelihood) |",
             "|---|---|---|"]
    for p, e in doc["estimates"].items():
        if e is None:
            lines.append(f"| {p} | not estimated (no decision informs it) | |")
            continue
        edge = " (at its lower bound)" if abs(e["estimate"] - e["low"]) <= 1e-6 else (
            " (at its upper bound)" if abs(e["estimate"] - e["high"]) <= 1e-6 else "")
        lines.append(f"| {p} | {e['estimate']:.3f}{edge} | [{e['low']:.3f}, {e['high']:.3f}] |")
    lines += ["", f"player to use: {doc['strategy']}", "",
              f"move matching ({doc['modelled_decisions']:,} decisions; the share where the player's most likely "
              "choice is the one logged):",
              "| player | all | " + " | ".join(doc["move_matching_by_decision"]["fit"]) + " |",
              "|---|---|" + "---|" * len(doc["move_matching_by_decision"]["fit"])]
    for name, rate in doc["move_matching"].items():
        by = doc["move_matching_by_decision"][name]
        lines.append(f"| {name} | {_fmt(rate)} | " + " | ".join(_fmt(v) for v in by.values()) + " |")
    k = doc["kept_dice_matching"]
    lines.append(f"\ndice kept on a reroll (not in the likelihood): the best reroll's in {_fmt(k['rate'])} "
                 f"of {k['rerolls']:,} rerolls")
    s = doc["seconds_per_turn"]
    lines.append("seconds per turn: not logged" if s is None else
                 f"seconds per turn: mean {s['mean']:.1f}, median {s['median']:.1f} ({s['turns']:,} turns)")
    return "\n".join(lines)
