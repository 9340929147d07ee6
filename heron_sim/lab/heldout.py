"""The held-out check before "fix" (issue 58 item 2): a proposal replayed at tables its search
never saw.

A study's answer is chosen on its panel. Before it is called a fix, :func:`held_out_check` plays
it against the study's base rules on fresh games (game indices from :data:`HELD_OUT_FIRST`, past
every index a study or a replay draws) at the held-out tables
(:data:`heron_sim.runner.panel.HELD_OUT`: mixed skill at 2 to 7 players, none of them in the
default panel — 2 regulars and 1 casual player, 2 regulars and 2 casual players, 2 experts and 2
regulars, 1 expert and 4 novices, a club table of six, 2 experts and 5 novices, and the champion
against a regular (left out where the rules are by guide: the champion does not play them yet) —
less any table the study's panel holds), and judges:

- **each goal of the study at each held-out table**, as an equivalence test at the designer's
  margin (the goal's tolerance is the larger of the study's goal and the designer's margin for
  that figure in ``experiments/targets.toml``: ``share_margin`` for a win rate or a gap to fair,
  ``length_margin`` for a relative length), one-sided where the goal is (``at_least`` /
  ``at_most``): *passes* when the 95 % interval lies within the tolerance, *fails (decisive)* when
  it lies wholly past it, else *undecided* with the games a table that would decide it — by the
  labs' one goal test (:func:`heron_sim.lab.decide.goal_test`, a target within ± the tolerance as
  a goal of two sides; issue 62 item 1);
- **comebacks at a mixed table**: the study's ``comeback`` goal (the player last at mid-game wins
  at least ``comeback_floor`` × the fair share) is read as ``comeback_own`` (that player's wins
  against its own chance: the win rate of its kind of player at that table over all games) at
  least ``comeback_floor``: the same goal at a table of equal players, and one that means
  something at a family table, where the player last at mid-game is most often the novice (a
  study that already reads ``comeback_own``, as the comebacks study does, is checked on it as it is);
- **every seat's share** against the margin with its interval (:func:`heron_sim.lab.replay.seat_checks`).

The answer: "holds at the held-out tables", or "holds on its panel only: fails at <table in
words> (<figure with its interval>)" (or "not shown at ...", with the games that would decide it).
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Callable

from ..errors import HeronSimError

#: First game index of the held-out check: past every index a study (search from 0, racing rungs at
#: multiples of 1e9) or a replay (9e11) draws.
HELD_OUT_FIRST = 800_000_000_000
#: Games a held-out table plays (base and proposal on the same games): a seat's share then has a
#: 95 % half-width of 0.23-0.29 point at 3 to 6 players, so a seat within ±0.7 point of fair is
#: shown within the designer's ±1 point, and a comeback ratio about ±0.03.
DEFAULT_GAMES = 100_000


def _margin(metric: str, relative: bool, targets) -> float:
    from .spec import margin_of

    name = margin_of(metric, relative)
    return float(targets[name]) if name else 0.0


def held_out_data(data: dict, spec, seed: int, targets=None, *, by_guide: bool = False
                  ) -> tuple[dict, list[str], list]:
    """The study's tune table made into the held-out check's: the held-out tables as its panel,
    each goal at the designer's margin, ``comeback`` read as ``comeback_own``. ``by_guide``: the
    study's rules or its answer's are rules by guide, which the champion does not play yet (its
    table is left out, with a note). Returns (table, notes, the tables)."""
    from ..analysis.targets import load_targets
    from ..runner.panel import held_out_tables

    t = targets if targets is not None else load_targets()
    tables = held_out_tables(spec.panel)
    notes, objs = [], []

    def seats_champion(sc) -> bool:
        return any(n.split(":")[0] == "champion" for n in sc.strategies)

    if by_guide and any(map(seats_champion, tables)):
        tables = tuple(sc for sc in tables if not seats_champion(sc))
        notes.append("the champion's table is not checked: the champion does not play rules by guide yet (its "
                     "worth of positions is that of one set of rules)")
    if not tables:
        raise HeronSimError("held-out check: the study's panel holds every held-out table; nothing is held out")
    counts = {sc.players for sc in tables}
    out = copy.deepcopy(dict(data))
    out["seed"] = seed
    for k in ("panel", "players", "seating"):
        out.pop(k, None)
    out["scenario"] = [{"name": sc.name, "players": sc.players, "seating": list(sc.strategies)} for sc in tables]
    base_players = spec.panel[0].players if spec.panel else spec.players
    for raw in data.get("objective", []) or []:
        o = dict(raw)
        if o.get("players") is not None and o["players"] not in counts:
            notes.append(f"the goal on {o.get('metric')} at {o['players']} players is not checked: no held-out "
                         f"table of {o['players']} players")
            continue
        side = next((k for k in ("target", "at_most", "at_least") if k in o), None)
        rel = bool(o.get("relative", False))
        if o.get("metric") == "comeback":
            o["metric"] = "comeback_own"
            v = o.get(side) if side else None
            if v == "targets":
                o[side] = float(t["comeback_floor"])
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                o[side] = float(v) * base_players  # a rate at the study's first table, as a share of its fair 1 / players
            notes.append("comebacks are judged against each player's own chance at the table (comeback_own: "
                         "the player last at mid-game's wins over that kind of player's wins over all games)")
        if side:  # the goal's tolerance: the study's, or the designer's margin where larger
            goal = o.get("goal")
            g0 = float(goal) if isinstance(goal, (int, float)) and not isinstance(goal, bool) else 0.0
            o["goal"] = max(g0, _margin(o["metric"], rel, t))
        objs.append(o)
    if not objs:
        raise HeronSimError("held-out check: no goal of the study can be checked at the held-out tables")
    out["objective"] = objs
    return out, notes, tables


def _table_decision(direction: str, goal: float, s: dict, games: int) -> dict:
    """One goal at one table, judged by the labs' one goal test (:func:`heron_sim.lab.decide.goal_test`;
    issue 62 item 1): on the table's figure (its signed distance to the target for target /
    at_most / at_least, its value for minimize / maximize), with the goal's sides as bounds:
    ``target`` within ± ``goal`` (a goal of two sides: ``floor`` = −goal), ``at_most`` at most
    ``goal``, ``at_least`` at least −``goal`` and ``maximize`` at least ``goal`` (a floor only),
    ``minimize`` at most ``goal``. A decided test says the games it was decided on, as the Héron
    lab's do (:func:`heron_sim.lab.study.goal_decision`)."""
    from .decide import FAILS, NO_INTERVAL, PASSES, goal_test

    if direction in ("minimize", "maximize"):
        est, lo, hi = s["value"], s["low"], s["high"]
    else:
        est, lo, hi = s["distance"], s["distance_low"], s["distance_high"]
    if est is None or lo is None or hi is None:
        return {"decision": NO_INTERVAL, "games_needed": None, "passes": False, "fails": False}
    top, floor = {"target": (goal, -goal), "at_most": (goal, -math.inf), "minimize": (goal, -math.inf),
                  "at_least": (math.inf, -goal), "maximize": (math.inf, goal)}[direction]
    d = goal_test(est, lo, hi, top, games, floor=floor)
    decided = d["decision"] in (PASSES, FAILS)
    return {**d, "games_needed": games if decided else d["games_needed"], "passes": d["decision"] == PASSES,
            "fails": d["decision"] == FAILS}


def held_out_check(tune_file: str | Path, variant_file: str | Path, *, seed: int | None = None,
                   games: int = DEFAULT_GAMES, scheduler: str | None = None, executor=None, cache_dir=None,
                   log: Callable[[str], None] = lambda s: None, data: dict | None = None, spec=None,
                   variant_rules=None) -> dict:
    """Play ``variant_file`` against the study's base at the held-out tables on fresh games of
    ``seed`` (default: the study's) and judge it (module docstring). ``data``/``spec``: the study's
    tune table and parsed study when already read. Returns the replay's result
    (:func:`heron_sim.lab.replay.replay_spec`) with ``goals`` (each goal at each table),
    ``held_out`` (true: it holds there), ``failures``, ``tables_words`` and ``notes``."""
    from ..runner.panel import table_words
    from .replay import replay_spec
    from .spec import parse_spec, read_tune_table

    if isinstance(games, bool) or not isinstance(games, int) or games < 10:
        raise HeronSimError(f"--games: {games!r}; allowed: an integer >= 10")
    path = Path(tune_file)
    if data is None:
        data = dict(read_tune_table(path))
    if spec is None:
        spec = parse_spec(data, path)
    seed = spec.seed if seed is None else seed
    variant = variant_rules
    if variant is None and Path(variant_file).is_file():
        from .replay import check_variant

        variant = check_variant(Path(variant_file), spec.base)
    by_guide = bool(getattr(spec.base, "guides", ())) or bool(getattr(variant, "guides", ()))
    hdata, notes, tables = held_out_data(data, spec, seed, by_guide=by_guide)
    hspec = parse_spec(hdata, path)
    log(f"held-out check: {games:,} fresh games a table at {len(tables)} tables the study never saw: "
        + "; ".join(table_words(sc) for sc in tables))
    res = replay_spec(hspec, variant_file, seed=seed, games=games, scheduler=scheduler, log=log, luck=False,
                      tune_file=tune_file, first_game=HELD_OUT_FIRST, executor=executor, cache_dir=cache_dir,
                      variant_rules=variant_rules)
    goals = []
    for o, e in zip(hspec.objectives, res["evidence"]["objectives"]):
        if o.goal is None:  # a value minimised or maximised with no goal: nothing to hold
            notes.append(f"{o.metric} has no goal in the study: not judged at the held-out tables")
            continue
        for s in e["scenarios"]:
            d = _table_decision(o.direction, float(o.goal or 0.0), s, games)
            goals.append({"table": s["scenario"], "metric": o.metric, "direction": o.direction, "goal": o.goal,
                          "of": o.target if isinstance(o.target, str) else None, "base": s["base"],
                          "target": s["target"], "value": s["value"], "low": s["low"], "high": s["high"],
                          "distance": s["distance"], "distance_low": s["distance_low"],
                          "distance_high": s["distance_high"], "relative": o.relative, **d})
    words = {sc.name: {"fr": table_words(sc, "fr"), "en": table_words(sc, "en")} for sc in tables}
    fails = [g for g in goals if g["fails"]] + [x for x in res["seat_checks"] if x["fails"]]
    unsure = [g for g in goals if not g["passes"] and not g["fails"]]
    res.update(goals=goals, tables_words=words, notes=notes, failures=fails, undecided=unsure,
               held_out=not fails and not unsure and not res.get("degenerate"),
               margin_of_seats=res["seat_checks"][0]["margin"] if res["seat_checks"] else None)
    return res


# ---------------------------------------------------------------- words
_METRIC_WORDS = {
    "comeback_own": ("comebacks against the player's own chance", "remontées face à la chance propre du joueur"),
    "comeback": ("comebacks", "remontées"),
    "first_player_advantage": ("first-player advantage", "avantage du premier joueur"),
    "guide_spread": ("guide spread", "écart entre Guides"),
    "length": ("mean length", "durée moyenne"),
    "seat_balance": ("seat balance", "équilibre entre joueurs"),
    "dead_turn_rate": ("dead-turn rate", "tours sans effet"),
    "completion": ("completion", "parties terminées"),
}


def _metric_words(m: str, lang: str) -> str:
    if m in _METRIC_WORDS:
        return _METRIC_WORDS[m][lang == "fr"]
    if m.startswith("seat_") and m.endswith("_win_rate"):
        k = int(m.split("_")[1]) + 1
        return {"fr": f"victoires du joueur {k}", "en": f"seat {k}'s win rate"}[lang]
    if m.startswith("guide_") and m.endswith("_win_rate"):
        from .phrases import guide_word

        g = guide_word(m.split("_")[1], lang)
        return {"fr": f"victoires du Guide {g}", "en": f"the {g} guide's win rate"}[lang]
    from .metrics import METRICS

    return METRICS[m].label.split(" (")[0] if m in METRICS else m


def goal_figure(g: dict, lang: str = "en") -> str:
    """One goal at one table with its interval, in words: "comebacks against the player's own
    chance 0.41 [0.38, 0.44] against the floor 0.50" / « remontées face à la chance propre du joueur
    0,41 [0,38 ; 0,44] pour un plancher de 0,50 »."""
    from ..i18n import interval, number
    from .metrics import METRICS

    m = g["metric"]
    unit = METRICS[m].unit if m in METRICS else "count"
    name = _metric_words(m, lang)
    if g["relative"] and g["direction"] not in ("minimize", "maximize"):
        fig = interval(100 * g["distance"], 100 * g["distance_low"], 100 * g["distance_high"], 1, lang, " %", sign=True)
        tol = number(100 * g["goal"], 0, lang)
        who = {"base": ("the rulings", "les règles actuelles"), "reference": ("the reference", "la référence")}.get(
            g.get("of") or "", ("the target", "la cible"))[lang == "fr"]
        bound = {"at_most": ("at most +{t} %", "au plus +{t} %"), "at_least": ("at least −{t} %", "au moins −{t} %"),
                 "target": ("within ±{t} %", "à ±{t} % près")}[g["direction"]][lang == "fr"].format(t=tol)
        if lang == "fr":
            return f"{name} {fig} par rapport {('aux ' + who[4:]) if who.startswith('les ') else ('à ' + who)} ({bound})"
        return f"{name} {fig} against {who} ({bound})"
    if unit in ("rate", "points"):
        k, suf = 100.0, (" pt" if unit == "points" else " %")
        d = 1
    else:
        k, suf, d = 1.0, "", 2
    sign = unit == "points"
    fig = interval(k * g["value"], k * g["low"], k * g["high"], d, lang, suf, sign=sign)
    if g["direction"] in ("minimize", "maximize"):
        bound = {"minimize": ("at most", "au plus"), "maximize": ("at least", "au moins")}[g["direction"]][lang == "fr"]
        return f"{name} {fig} ({bound} {number(k * g['goal'], d, lang)}{suf.replace(' ', chr(160))})"
    t = g["target"]
    tol = number(k * g["goal"], d, lang)
    if g["direction"] == "at_least":
        what = ("against the floor", "pour un plancher de")[lang == "fr"]
        tt = number(k * (t - g["goal"]), d, lang) if g["goal"] else number(k * t, d, lang)
        return f"{name} {fig} {what} {tt}{suf.replace(' ', chr(160))}"
    if g["direction"] == "at_most":
        what = ("against the ceiling", "pour un plafond de")[lang == "fr"]
        return f"{name} {fig} {what} {number(k * (t + g['goal']), d, lang)}{suf.replace(' ', chr(160))}"
    what = ("against", "pour")[lang == "fr"]
    return f"{name} {fig} {what} {number(k * t, d, lang)} ± {tol}{suf.replace(' ', chr(160))}"


def seat_figure(x: dict, lang: str = "en") -> str:
    """A seat's share from fair with its interval and the paired change, in words."""
    from ..i18n import interval, number

    f = x["fair"]
    fig = interval(100 * (x["variant"] - f), 100 * (x["low"] - f), 100 * (x["high"] - f), 1, lang, sign=True)
    ch = interval(100 * x["diff"], 100 * x["diff_low"], 100 * x["diff_high"], 1, lang, sign=True)
    m = number(100 * x["margin"], 0, lang)
    if lang == "fr":
        return (f"joueur {x['seat']} à {fig} points de sa part équitable (±{m} permis ; changement {ch} points)")
    return f"seat {x['seat']} {fig} points from its fair share (±{m} allowed; change {ch} points)"


def verdict_words(res: dict, lang: str = "en") -> str:
    """The check's answer in one sentence: holds at the held-out tables, or holds on its panel
    only, with the failing table in words and its figure."""
    from ..i18n import number

    words = res["tables_words"]
    n = len(words)
    if res["held_out"]:
        return {"en": f"holds at the held-out tables: every goal passes at the designer's margin and every seat "
                      f"stays within it, at the {n} tables the search never saw "
                      f"({res['games']:,} fresh games a table).",
                "fr": f"tient aux tables mises de côté : chaque objectif est atteint à la marge du concepteur et "
                      f"chaque joueur y reste, aux {n} tables que la recherche n'a jamais vues "
                      f"({number(res['games'], 0, 'fr')} parties neuves par table)."}[lang]
    if res.get("degenerate"):
        return {"en": "holds on its panel only: no game finished at some held-out table.",
                "fr": "ne tient que sur son panel : aucune partie ne s'achève à une table mise de côté."}[lang]
    parts, by_table = [], {}
    for x in res["failures"]:  # one clause a table, its failing figures together
        by_table.setdefault(x["table"], []).append(seat_figure(x, lang) if "seat" in x else goal_figure(x, lang))
    for table, figs in list(by_table.items())[:4]:
        where = words[table][lang]
        fig = ("; " if lang == "en" else " ; ").join(figs)
        parts.append({"en": f"fails at {where} ({fig})", "fr": f"échoue à la table de {where} ({fig})"}[lang])
    if not parts:
        for x in res["undecided"][:3]:
            where = words[x["table"]][lang]
            need = x.get("games_needed")
            more = ({"en": f"; about {need:,} games a table would decide it",
                     "fr": f" ; environ {number(need, 0, 'fr')} parties par table le décideraient"}[lang]
                    if need else "")
            parts.append({"en": f"not shown at {where} ({goal_figure(x, lang)}{more})",
                          "fr": f"non démontré à la table de {where} ({goal_figure(x, lang)}{more})"}[lang])
    extra = (len(by_table) if by_table else len(res["undecided"])) - len(parts)
    tail = ({"en": f"; and {extra} more", "fr": f" ; et {extra} de plus"}[lang] if extra > 0 else "")
    head = {"en": "holds on its panel only: ", "fr": "ne tient que sur son panel : "}[lang]
    return head + ("; " if lang == "en" else " ; ").join(parts) + tail + "."


def rules_words(res: dict, lang: str) -> str:
    """The rules the proposal changes, in the booklet's words (heron_sim.lab.phrases), never as
    keys; the changes' text where a key has no phrase."""
    from .phrases import phrase

    rc = res.get("rule_changes") or (res.get("evidence") or {}).get("rule_changes") or []
    try:
        said = [phrase(c["key"], c["new"], lang)[1].rstrip(".") for c in rc]
    except (HeronSimError, KeyError, TypeError, ValueError):
        said = []
    return ("; " if lang == "en" else " ; ").join(said) if said else str(res.get("changes", ""))


def check_text(res: dict, lang: str = "en") -> str:
    """The held-out check as a designer reads it: the tables in words, each goal at each table,
    the seats moved, and the verdict."""
    from .changes import changes_text  # noqa: F401  (the changes come with the replay)

    words = res["tables_words"]
    name = Path(res["variant"]).name
    if lang == "fr":
        from ..i18n import number

        lines = [f"Contrôle de la proposition {Path(res['variant']).stem.rsplit('-', 1)[-1]} "
                 f"({rules_words(res, 'fr')}) aux tables mises de côté : {number(res['games'], 0, 'fr')} "
                 f"parties neuves par table, jouées avec les règles actuelles sur les mêmes parties "
                 f"(graine {res['seed']}) :"]
    else:
        lines = [f"Held-out check of {name} ({res['changes']}): {res['games']:,} fresh games a table, paired with "
                 f"the study's base rules (seed {res['seed']}), at {len(words)} tables the search never saw:"]
    lines += [f"  - {w[lang]}" for w in words.values()]
    lines += [f"  ({n})" for n in res.get("notes", [])] if lang == "en" else []
    for g in res["goals"]:
        dec = g["decision"] if lang == "en" else {
            "passes": "atteint", "fails (decisive)": "manqué (net)", "undecided (underpowered)": "indécis",
            "likely fails (not decisive)": "probablement manqué (pas net)",
            "undecided (no interval)": "indécis"}.get(g["decision"], g["decision"])
        b = g.get("base")
        rulings = ""
        if b is not None and math.isfinite(b) and g["direction"] not in ("minimize", "maximize") \
                and not g["relative"]:
            from ..i18n import number
            from .metrics import METRICS

            unit = METRICS[g["metric"]].unit
            k = 100.0 if unit in ("rate", "points") else 1.0
            suf = {"points": " pt", "rate": "\u00a0%"}.get(unit, "")
            fig = number(k * b, 1 if k == 100 else 2, lang, sign=unit == "points") + suf
            rulings = f" (règles actuelles : {fig})" if lang == "fr" else f" (rulings: {fig})"
        lines.append(f"{words[g['table']][lang]} : {goal_figure(g, lang)}{rulings} : {dec}" if lang == "fr" else
                     f"{words[g['table']][lang]}: {goal_figure(g, lang)}{rulings}: {dec}")
    for x in res["seat_checks"]:
        if x["fails"]:
            lines.append(f"{words[x['table']][lang]} : {seat_figure(x, lang)}" if lang == "fr"
                         else f"{words[x['table']][lang]}: {seat_figure(x, lang)}")
    lines.append(("Verdict : " if lang == "fr" else "Verdict: ") + verdict_words(res, lang))
    return "\n".join(lines)


def summary_of(res: dict) -> dict:
    """What summary.json keeps of the check (no rules object, no replicate)."""
    keep = ("variant", "seed", "games", "table_names", "tables_words", "changes", "goals", "seat_checks",
            "held_out", "notes", "degenerate")
    out = {k: res.get(k) for k in keep}
    out["rule_changes"] = (res.get("evidence") or {}).get("rule_changes") or res.get("rule_changes") or []
    out["first_game"] = HELD_OUT_FIRST
    out["failures"] = [{k: v for k, v in x.items()} for x in res["failures"]]
    out["undecided"] = res["undecided"]
    out["words"] = {"en": verdict_words(res, "en"), "fr": verdict_words(res, "fr")}
    return out


__all__ = ["DEFAULT_GAMES", "HELD_OUT_FIRST", "check_text", "goal_figure", "held_out_check", "held_out_data",
           "seat_figure", "summary_of", "verdict_words"]
