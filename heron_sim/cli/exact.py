"""Commands that compute without sampling: ``exact`` (figures by enumeration) and ``rules``
(the effective rules)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._app import JsonOpt, ModeOpt, PlayersOpt, RulesOpt, SetOpt, app, build_rules, dumps, log


@app.command("exact")
def exact_cmd(
    mode: ModeOpt = None,
    rules: RulesOpt = None,
    set_: SetOpt = None,
    guide: Annotated[str, typer.Option("--guide", help="Guide of the greedy turn law.")] = "loup",
    optimal: Annotated[bool, typer.Option(
        "--optimal", help="Also the optimal turn with powers off (the expert's programme; with "
        "dice that differ, as 10d6, an exact upper bound instead, ~25 s).")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Exact figures by enumeration: P(Pond), the Pond's push-back law, first-roll Anxiety,
    and the greedy turn's law (no sampling)."""
    from ..exact import exact_figures

    r = build_rules(mode, rules, set_)
    doc = exact_figures(r, guide, optimal=optimal)
    if as_json:
        typer.echo(dumps(doc))
        return
    typer.echo(f"{r.mode}: P(Pond) = {100 * doc['p_pond']:.4f} %, P(first-roll Anxiety) = {100 * doc['p_first_roll_anxiety']:.4f} %")
    typer.echo("Pond push-back (given a Pond): " + ", ".join(f"{k}: {100 * v:.2f} %" for k, v in doc["pond_pushback"].items()))
    g = doc["greedy_turn"]
    typer.echo(f"greedy turn (guide {guide}): P(Pond) {100 * g['p_pond']:.3f} %, P(Anxiety) {100 * g['p_anxiety']:.3f} %, E[advance] {g['expected_advance']:.4f}")
    if optimal:
        o = doc["optimal_turn"]
        what = "optimal turn" if o["exact"] else "optimal turn <= (exact upper bound, dice differ)"
        typer.echo(f"{what} (guide {guide}, powers off): E[advance] {o.get('value', o.get('upper_bound')):.4f}")


@app.command("rules")
def rules_cmd(
    mode: ModeOpt = None,
    players: PlayersOpt = None,
    rules: RulesOpt = None,
    set_: SetOpt = None,
    booklet: Annotated[Optional[str], typer.Option(
        "--booklet", metavar="fr|en",
        help="Print instead the booklet's blocks these rules change against the rulings of their mode, "
             "rewritten with the change in place (Markdown).")] = None,
) -> None:
    """Print the effective rules (defaults + file + overrides) as JSON, and their hash; with
    --booklet fr (or en), the booklet's text of the blocks they change, in the booklet's words."""
    r = build_rules(mode, rules, set_, players)
    if booklet is not None:
        from ..errors import HeronSimError
        from ..lab.booklet import booklet_text
        from ..rules import Rules

        if booklet not in ("fr", "en"):
            raise HeronSimError(f"--booklet: {booklet!r}; allowed: fr, en")
        typer.echo(booklet_text(Rules.build(mode=r.mode, players=r.players), r, booklet), nl=False)
        return
    typer.echo(dumps(r.to_table(), indent=2, ensure_ascii=False))
    log(f"# rules hash {r.digest()}")
