"""``calibrate``: fit the human-like player to a turn log (docs/calibrate.md)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Optional

import typer

from ._app import Interrupted, JsonOpt, ModeOpt, RulesOpt, SetOpt, app, build_rules, dumps, log


@app.command("calibrate")
def calibrate_cmd(
    log_files: Annotated[list[Path], typer.Argument(metavar="LOG.csv", help="The decision log (docs/calibrate.md), or one or more tally sheets (docs/playtest/), told apart by their header.")],
    mode: ModeOpt = None,
    rules: RulesOpt = None,
    set_: SetOpt = None,
    player: Annotated[Optional[str], typer.Option("--player", help="Fit only the rows whose player column is this (default: every row).")] = None,
    lang: Annotated[str, typer.Option("--lang", help="Language of the words: fr (default) or en.")] = "fr",
    as_json: JsonOpt = False,
) -> None:
    """Fit the human-like player to a playtest. A decision log (one row per decision): temp,
    caution and forget by maximum likelihood (95 % profile likelihood intervals), the
    move-matching rate of the fit and of each rung, the player name to use. Tally sheets (one
    row per turn, docs/playtest/): the risk appetite (caution) and the seconds per turn only.
    Both say in words which rung your players resemble, the seconds per turn and what they
    change in the length verdict, and how many games a useful interval needs. The options are
    valued with the rules played (--mode, --rules, --set: give the rules of the games logged)."""
    from ..errors import HeronSimError
    from ..i18n import LANGS
    from ..interrupt import Stopped, signal_name
    from ..playtest import calibrate_files

    if lang not in LANGS:
        raise HeronSimError(f"--lang: {lang!r}; allowed: {', '.join(LANGS)}")
    from ..analysis.targets import load_targets

    load_targets()  # a bad targets file is one error line before minutes of work (the worth's build)
    r = build_rules(mode, rules, set_)
    try:
        doc = calibrate_files(log_files, r, player)
    except Stopped as err:
        # nothing to keep: the fit is all or nothing, and calibrate writes no file
        raise Interrupted(f"interrupted ({signal_name() or 'SIGINT'}): calibrate stopped while "
                          f"{getattr(err, 'stage', 'working')}; nothing was fitted or printed") from None
    if doc["kind"] == "tally":
        if len(doc["players_in_tally"]) > 1 and player is None:
            log(_("note: the tally holds {n} players; fitted together (--player NAME fits one)", lang)
                .format(n=len(doc["players_in_tally"])))
        typer.echo(dumps(doc) if as_json else words(doc, lang))
        return
    if len(doc["players_in_log"]) > 1 and player is None:
        log(_("note: the log holds {n} players ({names}); fitted together (--player NAME fits one)", lang)
            .format(n=len(doc["players_in_log"]), names=", ".join(doc["players_in_log"])))
    if doc["rules_of_log"] not in (None, doc["rules"]):
        log(_("note: {file} names the rules {log_rules}; fitted with the rules {rules} (give the rules the games "
              "were played with: --mode, --rules, --set)", lang)
            .format(file=log_files[0], log_rules=doc["rules_of_log"], rules=doc["rules"]))
    if as_json:
        typer.echo(dumps(doc))
        return
    typer.echo(words(doc, lang) + "\n\n" + _("Details (model terms):", lang) + "\n" + text(doc, lang))


@app.command("coach")
def coach_cmd(
    log_file: Annotated[Path, typer.Argument(metavar="LOG.csv", help="A decision log that records the table (docs/calibrate.md; simulate --log-turns writes one).")],
    game: Annotated[Optional[int], typer.Option("--game", help="The game to show (its number in the log's game column; default: the log's first).")] = None,
    seat: Annotated[Optional[int], typer.Option("--seat", help="Only this seat's decisions (0 for the first player; default: every seat).")] = None,
    opponents: Annotated[str, typer.Option("--opponents", help="The players the other seats are valued as (a strategy name: novice, casual, regular, expert, racer, ...; default regular). An assumption: say who sat at the table.")] = "regular",
    mode: ModeOpt = None,
    rules: RulesOpt = None,
    set_: SetOpt = None,
    lang: Annotated[str, typer.Option("--lang", help="Language of the words: fr (default) or en.")] = "fr",
    as_json: JsonOpt = False,
) -> None:
    """Replay a logged game decision by decision: at every decision to reroll or stop, each
    option's chance of winning the game as the champion values it (stop; reroll as the champion,
    with the dice it keeps; what the player chose), and the winning chance the choice lost; then
    each seat's mean loss per decision. The options are valued with the rules played (--mode,
    --rules, --set)."""
    from ..errors import HeronSimError
    from ..i18n import LANGS
    from ..interrupt import Stopped, signal_name
    from ..playtest import coach as C

    if lang not in LANGS:
        raise HeronSimError(f"--lang: {lang!r}; allowed: {', '.join(LANGS)}")
    r = build_rules(mode, rules, set_)
    try:
        doc = C.coach(log_file, r, game=game, seat=seat, opponents=opponents)
    except Stopped:
        raise Interrupted(f"interrupted ({signal_name() or 'SIGINT'}): coach stopped; nothing was printed") from None
    typer.echo(dumps(doc) if as_json else C.words(doc, lang, WHO[lang].get(opponents) or C.player_words(opponents, lang, True)))


# ---------------------------------------------------------------- in words (fr / en)
#: The ladder's rungs as the words name them (``{who}`` of "Your players play like {who}").
WHO = {
    "en": {"novice": "the novice rung", "casual": "the casual rung", "regular": "the regular rung",
           "expert": "the expert rung", "reckless": "the bold beginner (reckless)"},
    "fr": {"novice": "l'échelon débutant", "casual": "l'échelon occasionnel", "regular": "l'échelon habitué",
           "expert": "l'échelon expert", "reckless": "le débutant téméraire"},
}
VERDICT = {"within": "within the target", "too long": "too long", "too short": "too short", None: "no target"}
#: every English text the words use: fr.po holds their French (tests/test_calibrate_tally.py)
MESSAGES = (
    "Your players play like {who} (concordance {pct}).",
    "Concordance: the share of turns whose rerolls and outcome are that player's (1 − the distance between the two distributions).",
    "Concordance: the share of decisions where that player's most likely choice is the one logged.",
    "Risk appetite: caution {v}: they stop earlier than the expert (they want {c} more squares of expected advance before they reroll).",
    "Risk appetite: caution {v}: they reroll where the expert would stop (bold: even {c} squares of expected advance short).",
    "Risk appetite: caution {v}: as the expert, within the interval.",
    "The interval reaches the boldest value tried: they reroll nearly whenever they may.",
    "The interval reaches the most timid value tried: they stop nearly at once.",
    "Seconds per turn: {v} ({n} timed turns; median {m}).",
    "Seconds per turn: not timed; the length verdict keeps its assumed {a} s a turn (time each turn with a phone's timer: docs/playtest/).",
    "Length: at {s} s a turn instead of the assumed {a} s, a {p}-player game of about {r} rounds (played by {who}) lasts {m} minutes instead of {m0}.",
    "Length: at {s} s a turn instead of the targets' {a} s, a {p}-player game of about {r} rounds (played by {who}) lasts {m} minutes instead of {m0}.",
    "Against the length target ({lo}–{hi} minutes): {now} at the seconds measured; {before} at {a} s.",
    "To adopt the seconds measured: seconds_per_turn = {s} in experiments/targets.toml (assumed = false).",
    "A tally sheet measures the risk appetite and the seconds per turn; not the noise of the choices (temp), the powers forgotten (forget) nor which dice are kept: those need the full decision log (docs/calibrate.md).",
    "The full decision log measures everything: the noise of the choices (temp), the risk appetite (caution), the powers forgotten (forget), and the seconds per turn when timed.",
    "For a useful interval (risk appetite within ± {t} square: two neighbouring rungs told apart): about {n} turns, i.e. {g} games like these ({have} now).",
    "For a useful interval (risk appetite within ± {t} square: two neighbouring rungs told apart): reached with these {have} games.",
    "The risk appetite's interval reaches the end of the values tried: more games narrow it on its other side only.",
    "For the seconds per turn within ± {t} s: about {n} timed turns, i.e. {g} games ({have} now).",
    "For the seconds per turn within ± {t} s: reached.",
    "For a useful interval (temp and caution within ± 0.25, forget within ± 0.1: two neighbouring rungs told apart): about {n} turns, i.e. {g} games like these ({have} now).",
    "For a useful interval (temp and caution within ± 0.25, forget within ± 0.1: two neighbouring rungs told apart): reached with these {have} games.",
    "Powers used in {p} of the turns tallied (not fitted).",
    "Powers used: not tallied.",
    "Details (model terms): caution {v} (95 % profile likelihood, temp profiled: {t} at the top); forget assumed {f}; {n} turns, {g} games, {pl} players a game, {mode}.",
    "Details (model terms):",
    "Against the champion (the player that plays to win): your players lose {v} {u} of winning chance per decision to reroll or stop ({n} decisions, {g} games); {who} loses {r} in simulated games at the same table.",
    "Winning chance lost per decision: not measured, the log does not record the table (columns squares, guides, guides_ready: docs/calibrate.md; simulate --log-turns writes them).",
    "Winning chance lost per decision: not measured under rules by guide yet.",
    "within the target", "too long", "too short", "no target",
    # the full log's details (text)
    "{log}: {rows} rows, {games} games, {turns} turns ({mode}, rules {rules})",
    "decisions modelled: {list}", "not modelled: {list}",
    "| parameter | estimate | 95 % interval (profile likelihood) |",
    "| {p} | not estimated (no decision informs it) | |", " (at its lower bound)", " (at its upper bound)",
    "player to use: {strategy}",
    "move matching ({n} decisions; the share where the player's most likely choice is the one logged):",
    "| player | all |",
    "dice kept on a reroll (not in the likelihood): the best reroll's in {share} of {n} rerolls",
    "seconds per turn: not logged", "seconds per turn: mean {mean}, median {median} ({n} turns)",
)


def _(msgid: str, lang: str) -> str:
    from ..i18n import gettext

    return gettext(msgid, lang)


def _n(x, d, lang) -> str:
    from ..i18n import number

    return number(x, d, lang)


def _ci(v, lo, hi, d, lang, suffix="") -> str:
    from ..i18n import interval

    return interval(v, lo, hi, d, lang, suffix=suffix)


def _pct(x, lang) -> str:
    from ..i18n import NBSP

    return _n(100 * x, 0, lang) + NBSP + "%"


def words(doc: dict, lang: str = "fr") -> str:
    """What a designer reads first, in ``lang``: which rung the players resemble, their risk
    appetite, the seconds per turn and what they change in the length verdict, what the file
    can and cannot measure, and how many games a useful interval needs."""
    out = []
    tally = doc["kind"] == "tally"
    rung = doc.get("nearest_rung")
    if rung is not None:
        pct = doc["rungs"][rung]["concordance"] if tally else doc["move_matching"][rung]
        out.append(_("Your players play like {who} (concordance {pct}).", lang).format(
            who=WHO[lang].get(rung, rung), pct=_pct(pct, lang)))
        out.append(_("Concordance: the share of turns whose rerolls and outcome are that player's (1 − the distance "
                     "between the two distributions)." if tally else
                     "Concordance: the share of decisions where that player's most likely choice is the one logged.", lang))
    e = doc["estimates"]["caution"]
    if e is not None:
        v = _ci(e["estimate"], e["low"], e["high"], 2, lang)
        if e["low"] > 0:
            msg = ("Risk appetite: caution {v}: they stop earlier than the expert (they want {c} more squares of "
                   "expected advance before they reroll).")
        elif e["high"] < 0:
            msg = ("Risk appetite: caution {v}: they reroll where the expert would stop (bold: even {c} squares of "
                   "expected advance short).")
        else:
            msg = "Risk appetite: caution {v}: as the expert, within the interval."
        out.append(_(msg, lang).format(v=v, c=_n(abs(e["estimate"]), 2, lang)))
        if e.get("low_at_grid_end") and e["low"] < 0:
            out.append(_("The interval reaches the boldest value tried: they reroll nearly whenever they may.", lang))
        if e.get("high_at_grid_end") and e["high"] > 0:
            out.append(_("The interval reaches the most timid value tried: they stop nearly at once.", lang))
    if not tally:
        out.append(_loss_words(doc.get("loss_per_decision"), lang))
        if doc.get("biggest_losses"):
            from ..playtest.coach import line

            out.append(_("The decisions that cost the most winning chance:", lang))
            out += ["  " + line(d, lang, with_line=True) for d in doc["biggest_losses"]]
    s = doc["seconds_per_turn"]
    L = doc.get("length")
    if s is None:
        from ..analysis.targets import load_targets

        out.append(_("Seconds per turn: not timed; the length verdict keeps its assumed {a} s a turn (time each turn "
                     "with a phone's timer: docs/playtest/).", lang).format(
            a=_n(float(load_targets()["seconds_per_turn"]), 0, lang)))
    else:
        v = (_ci(s["mean"], s["low"], s["high"], 1, lang, " s") if s.get("low") is not None
             else _n(s["mean"], 1, lang) + " s")
        out.append(_("Seconds per turn: {v} ({n} timed turns; median {m}).", lang).format(
            v=v, n=_n(s["turns"], 0, lang), m=_n(s["median"], 1, lang) + " s"))
    if L is not None:
        msg = ("Length: at {s} s a turn instead of the assumed {a} s, a {p}-player game of about {r} rounds (played "
               "by {who}) lasts {m} minutes instead of {m0}." if L["targets_seconds_assumed"] else
               "Length: at {s} s a turn instead of the targets' {a} s, a {p}-player game of about {r} rounds (played "
               "by {who}) lasts {m} minutes instead of {m0}.")
        who = WHO[lang].get(L["strategy"], L["strategy"])
        out.append(_(msg, lang).format(s=_n(L["seconds_per_turn"], 1, lang), a=_n(L["targets_seconds_per_turn"], 0, lang),
                                       p=L["players"], r=_n(L["rounds"], 0, lang), who=who,
                                       m=_n(L["minutes"], 0, lang), m0=_n(L["minutes_at_targets_seconds"], 0, lang)))
        if L["verdict"] is not None:
            lo, hi = L["target_minutes"]
            out.append(_("Against the length target ({lo}–{hi} minutes): {now} at the seconds measured; {before} at {a} s.",
                         lang).format(lo=_n(lo, 0, lang), hi=_n(hi, 0, lang), now=_(VERDICT[L["verdict"]], lang),
                                      before=_(VERDICT[L["verdict_at_targets_seconds"]], lang),
                                      a=_n(L["targets_seconds_per_turn"], 0, lang)))
        out.append(_("To adopt the seconds measured: seconds_per_turn = {s} in experiments/targets.toml "
                     "(assumed = false).", lang).format(s=f"{L['seconds_per_turn']:.0f}"))
    if tally:
        out.append(_("Powers used: not tallied.", lang) if doc["power_use_rate"] is None else
                   _("Powers used in {p} of the turns tallied (not fitted).", lang).format(
                       p=_pct(doc["power_use_rate"], lang)))
        out.append(_("A tally sheet measures the risk appetite and the seconds per turn; not the noise of the choices "
                     "(temp), the powers forgotten (forget) nor which dice are kept: those need the full decision log "
                     "(docs/calibrate.md).", lang))
        need = doc["needed"]["caution"]
        have = _n(doc["games"], 0, lang)
        if need["turns"] is None:
            out.append(_("The risk appetite's interval reaches the end of the values tried: more games narrow it on its "
                         "other side only.", lang))
        elif need["turns"] <= doc["turns"]:
            out.append(_("For a useful interval (risk appetite within ± {t} square: two neighbouring rungs told apart): "
                         "reached with these {have} games.", lang).format(t=_n(need["target"], 2, lang), have=have))
        else:
            out.append(_("For a useful interval (risk appetite within ± {t} square: two neighbouring rungs told apart): "
                         "about {n} turns, i.e. {g} games like these ({have} now).", lang).format(
                t=_n(need["target"], 2, lang), n=_n(need["turns"], 0, lang), g=_n(need["games"], 0, lang), have=have))
        ns = doc["needed"].get("seconds")
        if ns is not None and ns["turns"] is not None:
            if ns["turns"] <= s["turns"]:
                out.append(_("For the seconds per turn within ± {t} s: reached.", lang).format(t=_n(ns["target"], 0, lang)))
            else:
                out.append(_("For the seconds per turn within ± {t} s: about {n} timed turns, i.e. {g} games ({have} now).",
                             lang).format(t=_n(ns["target"], 0, lang), n=_n(ns["turns"], 0, lang),
                                          g=_n(ns["games"], 0, lang), have=have))
        out.append(_("Details (model terms): caution {v} (95 % profile likelihood, temp profiled: {t} at the top); "
                     "forget assumed {f}; {n} turns, {g} games, {pl} players a game, {mode}.", lang).format(
            v=_ci(e["estimate"], e["low"], e["high"], 3, lang), t=_n(doc["temp_of_the_best_fit"], 2, lang),
            f=_n(doc["forget_assumed"], 1, lang), n=_n(doc["turns"], 0, lang), g=have,
            pl=doc["players_per_game"], mode=_mode(doc["mode"], lang)))
    else:
        out.append(_("The full decision log measures everything: the noise of the choices (temp), the risk appetite "
                     "(caution), the powers forgotten (forget), and the seconds per turn when timed.", lang))
        turns = _log_needed(doc)
        have = _n(doc["games"], 0, lang)
        if turns is not None:
            if turns <= doc["turns"]:
                out.append(_("For a useful interval (temp and caution within ± 0.25, forget within ± 0.1: two neighbouring "
                             "rungs told apart): reached with these {have} games.", lang).format(have=have))
            else:
                out.append(_("For a useful interval (temp and caution within ± 0.25, forget within ± 0.1: two neighbouring "
                             "rungs told apart): about {n} turns, i.e. {g} games like these ({have} now).", lang).format(
                    n=_n(turns, 0, lang), g=_n(math.ceil(turns / (doc["turns"] / max(doc["games"], 1))), 0, lang),
                    have=have))
    from ..i18n import counted

    return counted("\n".join(out), lang)  # « 0,82 case », « 1 partie »: the singular below 2


def _loss_words(loss: dict | None, lang: str) -> str:
    """The logged players' loss of winning chance per decision against the champion, beside
    the nearest rung's own (heron_sim.playtest._loss), or why it was not measured."""
    if loss is None or not loss["measured"]:
        if loss is not None and loss["why"] == "rules by guide":
            return _("Winning chance lost per decision: not measured under rules by guide yet.", lang)
        return _("Winning chance lost per decision: not measured, the log does not record the table (columns squares, "
                 "guides, guides_ready: docs/calibrate.md; simulate --log-turns writes them).", lang)
    ref = loss["rung_loss"]
    # French: "point" below 2 (0,42 point), English: "points" but for exactly 1
    unit = ("point" if abs(loss["points"]) < 2 else "points") if lang == "fr" else \
        ("point" if round(loss["points"], 2) == 1 else "points")
    return _("Against the champion (the player that plays to win): your players lose {v} {u} of winning chance "
             "per decision to reroll or stop ({n} decisions, {g} games); {who} loses {r} in simulated games at the "
             "same table.", lang).format(
        v=_ci(loss["points"], loss["low"], loss["high"], 2, lang), u=unit, n=_n(loss["decisions"], 0, lang),
        g=_n(loss["games"], 0, lang), who=WHO[lang].get(loss["rung"], loss["rung"]),
        r=_ci(ref["points"], ref["low"], ref["high"], 2, lang))


#: the half-widths of a useful interval of the full log's parameters
LOG_USEFUL = {"temp": 0.25, "caution": 0.25, "forget": 0.1}


def _log_needed(doc: dict) -> int | None:
    """Turns for every estimated parameter's interval within LOG_USEFUL (widths as 1/√turns)."""
    need = []
    for p, target in LOG_USEFUL.items():
        e = doc["estimates"].get(p)
        if e is None:
            continue
        half = (e["high"] - e["low"]) / 2
        if half > 0:
            need.append(doc["turns"] * (half / target) ** 2)
    return int(math.ceil(max(need))) if need else None


def _fmt(x) -> str:
    return "—" if x is None else f"{x:.3f}"


#: The model's words in the details, French (English: the keys themselves); a parameter's key
#: stays beside its French name, in code quotes: it is what --strategy human:… takes.
DETAIL_WORDS = {
    "fr": {"temp": "bruit des choix (`temp`)", "caution": "prudence (`caution`)", "forget": "oubli des pouvoirs (`forget`)",
           "keep": "relancer ou s'arrêter", "power": "pouvoir du Guide", "lion": "Lion (sauvetage)",
           "bull": "Taureau", "serpent": "Serpent", "eagle_face": "Aigle (face choisie)",
           "forced_stops": "arrêts forcés", "keeps_outside_the_tables": "relances hors des tables de l'expert",
           "powers_without_a_legal_use": "pouvoirs sans usage permis", "fit": "le joueur ajusté"},
}


def _word(key: str, lang: str) -> str:
    """A model's key in ``lang``'s words: its French name, a rung's name (« joueur occasionnel »);
    English: the key, its underscores as spaces where a list says it."""
    if lang == "en":
        return key
    from ..runner.panel import PLAYER_WORDS

    return DETAIL_WORDS[lang].get(key) or PLAYER_WORDS[lang].get(key, (key,))[0]


def _mode(mode: str, lang: str) -> str:
    """« 8 D8 » in French, the mode's name in English (8d8)."""
    from ..analysis.executive import MODE_NAMES

    return MODE_NAMES.get(mode, mode) if lang == "fr" else mode


def text(doc: dict, lang: str = "en") -> str:
    """The details of :func:`heron_sim.playtest.calibrate` (the model's terms), in ``lang``."""
    d = doc["decisions"]

    def num(x, digits=3) -> str:
        return "—" if x is None else (f"{x:.{digits}f}" if lang == "en" else _n(x, digits, lang))

    def count(x) -> str:
        return f"{x:,}" if lang == "en" else _n(x, 0, lang)

    listed = ", ".join  # "keep 3,442, power 262" / « relancer ou s'arrêter 3 442, pouvoir du Guide 262 »
    lines = [_("{log}: {rows} rows, {games} games, {turns} turns ({mode}, rules {rules})", lang).format(
                 log=doc["log"], rows=count(doc["rows"]), games=count(doc["games"]), turns=count(doc["turns"]),
                 mode=_mode(doc["mode"], lang), rules=doc["rules"]),
             _("decisions modelled: {list}", lang).format(list=listed(f"{_word(k, lang)} {count(v)}" for k, v in d.items())),
             _("not modelled: {list}", lang).format(list=listed(
                 f"{k.replace('_', ' ') if lang == 'en' else _word(k, lang)} {count(v)}" for k, v in doc["not_modelled"].items())),
             "",
             _("| parameter | estimate | 95 % interval (profile likelihood) |", lang),
             "|---|---|---|"]
    for p, e in doc["estimates"].items():
        if e is None:
            lines.append(_("| {p} | not estimated (no decision informs it) | |", lang).format(p=_word(p, lang)))
            continue
        edge = _(" (at its lower bound)", lang) if abs(e["estimate"] - e["low"]) <= 1e-6 else (
            _(" (at its upper bound)", lang) if abs(e["estimate"] - e["high"]) <= 1e-6 else "")
        ci = f"[{e['low']:.3f}, {e['high']:.3f}]" if lang == "en" else "[" + _ci(e["estimate"], e["low"], e["high"], 3, lang).partition("[")[2]
        lines.append(f"| {_word(p, lang)} | {num(e['estimate'])}{edge} | {ci} |")
    kinds = list(doc["move_matching_by_decision"]["fit"])
    lines += ["", _("player to use: {strategy}", lang).format(strategy=doc["strategy"]), "",
              _("move matching ({n} decisions; the share where the player's most likely choice is the one logged):",
                lang).format(n=count(doc["modelled_decisions"])),
              _("| player | all |", lang) + " " + " | ".join(_word(k, lang) for k in kinds) + " |",
              "|---|---|" + "---|" * len(kinds)]
    for name, rate in doc["move_matching"].items():
        by = doc["move_matching_by_decision"][name]
        lines.append(f"| {_word(name, lang)} | {num(rate)} | " + " | ".join(num(v) for v in by.values()) + " |")
    k = doc["kept_dice_matching"]
    share = num(k["rate"]) if lang == "en" or k["rate"] is None else _pct(k["rate"], lang)
    lines.append("\n" + _("dice kept on a reroll (not in the likelihood): the best reroll's in {share} of {n} rerolls",
                           lang).format(share=share, n=count(k["rerolls"])))
    s = doc["seconds_per_turn"]
    lines.append(_("seconds per turn: not logged", lang) if s is None else
                 _("seconds per turn: mean {mean}, median {median} ({n} turns)", lang).format(
                     mean=num(s["mean"], 1), median=num(s["median"], 1), n=count(s["turns"])))
    return "\n".join(lines)
