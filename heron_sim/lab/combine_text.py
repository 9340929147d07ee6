"""« Règles, 2e édition »: the combined answers as a booklet with its evidence (issue 58 item 6).

:func:`rulebook_markdown` writes, in French (the designer's language) or English: the answers in
brief (each problem, the change proposed, what the other changes do to it), the booklet's blocks
the changes touch rewritten with the changes in place (:func:`heron_sim.lab.booklet.booklet_blocks`,
the changed sentences in bold), then the evidence: each study's goal under the base, its answer
alone and the combined rules at each of its tables, with intervals, and the combined rules' side
effects at every table. Rules in sentences (:mod:`heron_sim.lab.phrases`), tables in words
(:func:`heron_sim.runner.panel.table_words`), never an id or a list. :func:`write_rulebook` writes the
pages, the rules file and ``summary.json`` into a folder.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from ..i18n import NBSP, interval, number, typography
from ..rules import Rules

_DECISION = {"fr": {"passes": "atteint", "fails (decisive)": "manqué (net)", "undecided (underpowered)": "indécis",
                    "likely fails (not decisive)": "probablement manqué", "undecided (no margin)":
                    "indécis (aucune marge donnée)", "undecided (no interval)": "indécis"},
             "en": {}}
_KIND = {"fr": {"fix": "elle atteint chaque objectif de son étude avec 95 % de confiance",
                "closest": "la plus proche de l'objectif, sans l'atteindre à chaque table",
                "given": "une variante de son étude, nommée par son fichier (pas la réponse de l'étude)"},
         "en": {"fix": "it meets every goal of its study with 95 % confidence",
                "closest": "the closest to the goal, not met at every table", "given": "the proposal named"}}
_SKIP = {"fr": {"no change needed": "les règles actuelles atteignent déjà chaque objectif",
                "keep the rulings": "aucune variante ne fait mieux que les règles actuelles",
                "infeasible": "sa meilleure variante enfreint une contrainte",
                "no answer": "pas de proposition", "no fix": "pas de correction qui atteigne chaque objectif",
                "another game": "un autre jeu", "another base": "d'autres règles de départ"},
         "en": {"no change needed": "the rulings already meet every goal",
                "keep the rulings": "no variant does better than the rulings",
                "infeasible": "its best variant breaks a constraint", "no answer": "no proposal",
                "no fix": "no change that meets every goal", "another game": "another game",
                "another base": "other base rules"}}
_INTER = {"fr": {"kept": "les règles réunies font aussi bien que la proposition seule ({d}, pas d'écart net)",
                 "weakened": "les autres changements affaiblissent cette proposition sans la défaire ({d})",
                 "undone": "les autres changements défont cette proposition : réunies, les règles ne font plus "
                           "nettement mieux que les règles actuelles ({d})",
                 "strengthened": "les autres changements renforcent cette proposition ({d})",
                 "no interval": "l'écart ne peut pas être mesuré"},
          "en": {"kept": "the combined rules do as well as the proposal alone ({d}, no clear difference)",
                 "weakened": "the other changes weaken this proposal without undoing it ({d})",
                 "undone": "the other changes undo this proposal: combined, the rules are no longer clearly "
                           "better than the rulings ({d})",
                 "strengthened": "the other changes strengthen this proposal ({d})",
                 "no interval": "the difference cannot be measured"}}
T = {
    "fr": {"intro": "Les blocs du livret que changent les propositions des études, réunies en un seul jeu de règles, "
                    "réécrits avec les changements en place (en gras). Les autres blocs ne changent pas.",
           "brief": "En bref", "left": "Laissées de côté", "evidence": "Ce que montrent les parties",
           "games": "{n} nouvelles parties par table, jouées avec les règles actuelles, chaque proposition seule et "
                    "les règles réunies, sur les mêmes parties (mêmes dés), à {t} tables : {w}.",
           "proposal": "Proposition", "goal": "Objectif", "table": "Table", "target": "Cible",
           "base": "Règles actuelles", "alone": "Proposition seule", "combined": "Règles réunies",
           "panel": "Sur ses {n} tables (ce que l'étude réduit : {agg})", "worst": "la pire table",
           "mean": "la moyenne des tables", "diff": "réunies moins seule : {x}",
           "cons": "Contrainte « {c} » : tenue par la proposition seule, pas par les règles réunies{at}.",
           "side": "Effets de bord des règles réunies, à chaque table",
           "side_intro": "Règles actuelles → règles réunies, et l'écart [95 %] sur les mêmes parties.",
           "length": "Durée (tours de table)", "dead_turn_rate": "Tours morts", "anxiety_rate": "Angoisse par tour",
           "comeback": "Remontées (le dernier à mi-partie gagne)", "skill": "Part de l'expert contre le débutant",
           "guides": "Chaque Guide : taux de victoire quand il est distribué, en points d'écart à la part équitable "
                     "(règles actuelles → règles réunies ; en gras : un changement net)",
           "seats": "Chaque joueur : taux de victoire, en points d'écart à la part équitable (règles actuelles → "
                    "règles réunies ; en gras : un changement net ; le joueur 1 joue le premier)",
           "seat": "joueur {k}", "seat_fail": "Un joueur que les règles réunies éloignent de sa part équitable "
                                            "au-delà de la marge :",
           "rules": "Les règles réunies", "rule": "Règle", "now": "Aujourd'hui", "new": "2e édition",
           "from": "Proposée par", "note": "{r} (proposé par « {s} ») : dans les règles réunies, la règle de tous "
                                          "les joueurs est déjà celle-là ; ce n'est plus une exception.",
           "file": "Le fichier de ces règles : {f} (à jouer avec {c}).", "none": "Aucune règle ne change.",
           "rounds": "tours de table", "pt": "point", "pct_of_target": "% de la cible"},
    "en": {"intro": "The booklet's blocks the studies' proposals change, combined into one set of rules, rewritten "
                    "with the changes in place (in bold). The other blocks are unchanged.",
           "brief": "In brief", "left": "Left out", "evidence": "What the games show",
           "games": "{n} fresh games a table, played with the current rules, each proposal alone and the combined "
                    "rules, on the same games (the same dice), at {t} tables: {w}.",
           "proposal": "Proposal", "goal": "Goal", "table": "Table", "target": "Target",
           "base": "Current rules", "alone": "Proposal alone", "combined": "Combined rules",
           "panel": "Over its {n} tables (what the study reduces: {agg})", "worst": "the worst table",
           "mean": "the mean of the tables", "diff": "combined minus alone: {x}",
           "cons": "Constraint \"{c}\": held by the proposal alone, not by the combined rules{at}.",
           "side": "Side effects of the combined rules, at every table",
           "side_intro": "Current rules → combined rules, and the difference [95 %] on the same games.",
           "length": "Length (rounds)", "dead_turn_rate": "Dead turns", "anxiety_rate": "Anxiety per turn",
           "comeback": "Comebacks (the player last at mid-game wins)", "skill": "The expert's share against the novice",
           "guides": "Each guide: win rate when dealt, in points from the fair share (current rules → combined "
                     "rules; in bold: a clear change)",
           "seats": "Each seat: win rate, in points from the fair share (current rules → combined rules; in bold: "
                    "a clear change; seat 1 plays first)",
           "seat": "seat {k}", "seat_fail": "A seat the combined rules move away from its fair share past the "
                                            "margin:",
           "rules": "The combined rules", "rule": "Rule", "now": "As it stands", "new": "2nd edition",
           "from": "Proposed by", "note": "{r} (proposed by \"{s}\"): under the combined rules every player's rule "
                                          "is already that one; it is no exception any more.",
           "file": "The rules file: {f} (play it with {c}).", "none": "No rule changes.",
           "rounds": "rounds", "pt": "points", "pct_of_target": "% of the target"},
}


# ---------------------------------------------------------------- figures
def _finite(*xs) -> bool:
    return all(isinstance(x, (int, float)) and math.isfinite(x) for x in xs)


def _unit(m: str) -> str:
    from .metrics import METRICS

    return METRICS[m].unit if m in METRICS else "count"


def cell(m: str, fig, lang: str) -> str:
    """A figure at a table with its 95 % interval, in the metric's unit: « 13,1 % [12,8 ; 13,6] »."""
    if not fig or not _finite(fig[0]):
        return "—"
    v, lo, hi = fig
    u = _unit(m)
    if not _finite(lo, hi):
        lo = hi = v
    if u == "rate":
        return interval(100 * v, 100 * lo, 100 * hi, 1, lang, " %")
    if u == "points":
        return interval(100 * v, 100 * lo, 100 * hi, 1, lang, " pt", sign=True)
    if u == "share":
        return interval(v, lo, hi, 3, lang)
    return interval(v, lo, hi, 1 if u == "rounds" else 2, lang)


def _loss_unit(o: dict, lang: str) -> tuple[float, int, str]:
    """How an objective's loss (what the study reduces) is written: (scale, decimals, unit)."""
    u = _unit(o["metric"])
    if o["relative"] and o["direction"] not in ("minimize", "maximize"):
        return 100.0, 1, " " + T[lang]["pct_of_target"]
    if u in ("rate", "points"):
        return 100.0, 1, (" %" if u == "rate" and o["direction"] in ("minimize", "maximize") else " pt")
    if u == "rounds":
        return 1.0, 1, " " + T[lang]["rounds"]
    return 1.0, 2, ""


def loss_cell(o: dict, x: dict, lang: str) -> str:
    if not _finite(x.get("loss")):
        return "—"
    k, d, suf = _loss_unit(o, lang)
    lo, hi = (x["low"], x["high"]) if _finite(x.get("low"), x.get("high")) else (x["loss"], x["loss"])
    s = interval(k * x["loss"], k * lo, k * hi, d, lang, suf)
    dec = x.get("decision")
    if dec:
        s += (" : " if lang == "fr" else ": ") + _DECISION[lang].get(dec, dec)
    return s


def diff_words(o: dict, lang: str) -> str:
    x = o["interaction"]
    if not _finite(x["diff"]):
        return "—"
    k, d, suf = _loss_unit(o, lang)
    lo, hi = (x["low"], x["high"]) if _finite(x["low"], x["high"]) else (x["diff"], x["diff"])
    return T[lang]["diff"].format(x=interval(k * x["diff"], k * lo, k * hi, d, lang, suf, sign=True))


def target_cell(o: dict, t, lang: str) -> str:
    if t is None or not _finite(t):
        return "—"
    u = _unit(o["metric"])
    if u == "rate":
        return number(100 * t, 1, lang) + NBSP + "%"
    if u == "points":
        return number(100 * t, 1, lang, sign=True) + NBSP + "pt"
    return number(t, 1 if u == "rounds" else 2, lang)


def _pts(x: float, lang: str) -> str:
    return number(100 * x, 1, lang, sign=True) if _finite(x) else "—"


def _side_cell(x: dict | None, lang: str) -> str:
    if x is None or not _finite(x["base"], x["variant"]):
        return "—"
    u = _unit(x["metric"])
    lo, hi = (x["low"], x["high"]) if _finite(x["low"], x["high"]) else (x["diff"], x["diff"])
    if u == "rate":
        return (f"{number(100 * x['base'], 1, lang)}{NBSP}% → {number(100 * x['variant'], 1, lang)}{NBSP}% "
                f"({interval(100 * x['diff'], 100 * lo, 100 * hi, 1, lang, ' pt', sign=True)})")
    return (f"{number(x['base'], 1, lang)} → {number(x['variant'], 1, lang)} "
            f"({interval(x['diff'], lo, hi, 1, lang, sign=True)})")


# ---------------------------------------------------------------- words
def _study_title(a: dict, lang: str) -> str:
    return " ".join(str(a.get("title_fr") or a["title"]).split()) if lang == "fr" else " ".join(a["title"].split())


def _rules_words(changes: list[dict], lang: str) -> str:
    """The rules an answer changes as one sentence in the booklet's words, « ; » between them."""
    from .phrases import phrase

    said = [phrase(c["key"], c["new"], lang)[1].rstrip(".") for c in changes]
    said = [x if k == 0 else x[:1].lower() + x[1:] for k, x in enumerate(said)]
    return (" ; " if lang == "fr" else "; ").join(said) or T[lang]["none"].rstrip(".")


def _left_words(skipped: list[dict], lang: str) -> str:
    """The studies left out, grouped by why, by their titles (another game's or box's: counted)."""
    from ..i18n import gettext

    groups: dict = {}
    for x in skipped:
        groups.setdefault(x["why"], []).append(x)
    out = []
    for why, xs in groups.items():
        if why == "another game":
            n = len(xs)
            out.append({"fr": f"{n} étude{'s' if n > 1 else ''} d'un autre jeu",
                        "en": f"{n} stud{'ies' if n > 1 else 'y'} of another game"}[lang])
            continue
        if why == "another base":
            modes = ", ".join(sorted({str(x.get("mode", "")).upper().replace("D", " D") for x in xs}))
            n = len(xs)
            out.append({"fr": f"{n} étude{'s' if n > 1 else ''} d'autres dés ({modes}), pour une autre boîte",
                        "en": f"{n} stud{'ies' if n > 1 else 'y'} of other dice ({modes}), for another box"}[lang])
            continue
        titles = [" ".join(str(x.get("title") or x["study"]).split()) for x in xs]
        if lang == "fr":
            titles = [gettext(t, "fr") for t in titles]
        q = ("« {} »" if lang == "fr" else "\"{}\"")
        out.append(", ".join(q.format(t) for t in titles) + f" ({_SKIP[lang].get(why, why)})")
    return (" ; " if lang == "fr" else "; ").join(out)


def _metric_words(m: str, lang: str) -> str:
    from .heldout import _metric_words as words

    return words(m, lang)


def _goal_words(o: dict, lang: str) -> str:
    from ..i18n import numbers_in
    from .sheets import _goal

    return numbers_in(_goal(o, lang), lang)


def _constraint_words(label: str, lang: str) -> str:
    """A constraint's label in words: « durée moyenne à ±3 % près des règles actuelles », « parties
    terminées ≥ 99,5 % », the seven powers' constraint as the catalogue says it."""
    import re

    from ..i18n import gettext

    m = re.fullmatch(r"([a-z_0-9]+) within ±([\d.]+) % of (base|reference)", label)
    if m:
        what, pct = _metric_words(m.group(1), lang), number(float(m.group(2)), 0, lang)
        of = {"fr": {"base": "des règles actuelles", "reference": "de la référence"},
              "en": {"base": "of the current rules", "reference": "of the reference"}}[lang][m.group(3)]
        return f"{what} à ±{pct}{NBSP}% près {of}" if lang == "fr" else f"{what} within ±{pct} % {of}"
    m = re.fullmatch(r"([a-z_0-9]+) (>=|<=) ([-\d.]+)", label)
    if m:
        v = float(m.group(3))
        u = _unit(m.group(1))
        fig = (number(100 * v, 1, lang) + NBSP + "%") if u == "rate" else number(v, 2, lang)
        return f"{_metric_words(m.group(1), lang)} {'≥' if m.group(2) == '>=' else '≤'} {fig}"
    return gettext(label, lang) if lang == "fr" else label


def _sentence(s: str) -> str:
    s = s.strip()
    return (s[:1].upper() + s[1:]).rstrip(".") + "."


def _rule_row(c: dict, base: Rules, combined: Rules, lang: str) -> tuple[str, str, str]:
    """A rule as it stands and in the 2nd edition, in the booklet's words (a count without its
    own rule: the rule of every count applies; a guide's holder: the rule of every player, then
    the holder's exception where there is one, :func:`heron_sim.lab.sheets.holder_rule`)."""
    from .phrases import phrase
    from .sheets import holder_rule

    old, new = c["old"], c["new"]
    title, was = phrase(c["key"], old, lang)
    _, now = phrase(c["key"], new, lang)
    if c["key"].startswith("guide."):
        was, now = holder_rule(c["key"], base, old, lang), holder_rule(c["key"], combined, new, lang)
    return title, was, now


def _esc(s: str) -> str:
    return str(s).replace("|", "/").replace("\n", " ")


def rulebook_markdown(res: dict, combined: Rules, base: Rules, lang: str) -> str:
    """The rulebook with its evidence as Markdown (``lang``: fr or en)."""
    from ..animals import NAMES
    from ..rules.words import GUIDES
    from .booklet import changed_blocks
    from .heldout import seat_figure
    from .sheets import objective_words

    t = T[lang]
    words = {x["name"]: x["words"][lang] for x in res["tables"]}
    by_study = {a["study"]: a for a in res["answers"]}
    lines = [f"# {res['title'][lang]}", "", t["intro"], "", f"## {t['brief']}", ""]
    sep = " ; " if lang == "fr" else "; "
    for g in res["goals"]:
        a = by_study[g["study"]]
        inter = sep.join(f"{_metric_words(o['metric'], lang)}{' :' if lang == 'fr' else ':'} "
                         + _INTER[lang][o["interaction"]["verdict"]].format(d=diff_words(o, lang))
                         for o in g["objectives"])
        held = ""
        if a.get("held_out"):
            held = " " + _sentence(("Seule, elle " if lang == "fr" else "Alone, it ") + a["held_out"]["words"][lang])
        lines.append(f"- **{_study_title(a, lang)}** — {_sentence(_rules_words(a['changes'], lang))} "
                     f"{_sentence(_KIND[lang][a['kind']])}{held} {_sentence(inter)}")
    if res["skipped"]:
        left = _left_words(res["skipped"], lang)
        lines += ["", f"{t['left']} : {left}." if lang == "fr" else f"{t['left']}: {left}."]
    lines.append("")
    lines += changed_blocks(base, combined, lang, t["none"])
    # ------------------------------------------------------------ the rules, one by one
    lines += [f"## {t['rules']}", "", f"| {t['rule']} | {t['now']} | {t['new']} | {t['from']} |", "|---|---|---|---|"]
    for c in res["rules"]:
        title, was, now = _rule_row(c, base, combined, lang)
        who = ", ".join(_study_title(by_study[s], lang) for s in c["studies"] if s in by_study) or "—"
        lines.append(f"| {_esc(title)} | {_esc(was)} | {_esc(now)} | {_esc(who)} |")
    lines.append("")
    for n in res["notes"]:
        from .phrases import phrase

        lines += [t["note"].format(r=phrase(n["key"], n["new"], lang)[1].rstrip("."),
                                   s=", ".join(_study_title(by_study[s], lang) for s in n["studies"])), ""]
    lines += [t["file"].format(f="`rules.toml`", c="`heron-sim simulate --rules rules.toml`"), ""]
    # ------------------------------------------------------------ the evidence
    n_games = number(res["games"], 0, lang)
    all_words = (", " if lang == "en" else " ; ").join(words.values())
    lines += [f"# {t['evidence']}", "", t["games"].format(n=n_games, t=len(words), w=all_words), ""]
    for g in res["goals"]:
        a = by_study[g["study"]]
        lines += [f"## {_study_title(a, lang)}", "",
                  f"**{t['proposal']}** : {_sentence(_rules_words(a['changes'], lang))} {_sentence(_KIND[lang][a['kind']])}"
                  if lang == "fr" else
                  f"**{t['proposal']}**: {_sentence(_rules_words(a['changes'], lang))} {_sentence(_KIND[lang][a['kind']])}",
                  ""]
        for o in g["objectives"]:
            goal = ""
            if o["goal"] is not None:
                goal = f" — {'but' if lang == 'fr' else 'goal'} {_goal_words(o, lang)}"
            what = objective_words(o, lang)
            lines += [(f"**{t['goal']}** : {what}{goal}" if lang == "fr" else f"**{t['goal']}**: {what}{goal}"), "",
                      f"| {t['table']} | {t['target']} | {t['base']} | {t['alone']} | {t['combined']} |",
                      "|---|---|---|---|---|"]
            for r in o["tables"]:
                lines.append(f"| {words[r['table']]} | {target_cell(o, r['target'], lang)} | "
                             f"{cell(o['metric'], r['base'], lang)} | {cell(o['metric'], r['alone'], lang)} | "
                             f"{cell(o['metric'], r['combined'], lang)} |")
            agg = t["worst"] if o["aggregate"] == "worst" else t["mean"]
            lines.append(f"| {t['panel'].format(n=len(o['tables']), agg=agg)} | | {loss_cell(o, o['base'], lang)} | "
                         f"{loss_cell(o, o['alone'], lang)} | {loss_cell(o, o['combined'], lang)} |")
            lines += ["", _sentence(_INTER[lang][o["interaction"]["verdict"]].format(d=diff_words(o, lang))), ""]
        for ca, cc in zip(g["constraints"]["alone"], g["constraints"]["combined"]):
            if ca["holds"] and not cc["holds"]:
                at = ", ".join(words.get(x, x) for x in cc["fails_at"])
                at = (f" ({'à' if lang == 'fr' else 'at'} {at})" if at else "")
                lines += [t["cons"].format(c=_constraint_words(ca["constraint"], lang), at=at), ""]
    # ------------------------------------------------------------ side effects
    side: dict = {}
    for x in res["side_effects"]:
        side.setdefault(x["table"], {})[x["metric"]] = x
    lines += [f"## {t['side']}", "", t["side_intro"], "",
              f"| {t['table']} | {t['length']} | {t['dead_turn_rate']} | {t['anxiety_rate']} | {t['comeback']} |",
              "|---|---|---|---|---|"]
    skill = []
    for name, r in side.items():
        if "skill_gap" in r:
            skill.append((name, r["skill_gap"]))
            continue
        lines.append(f"| {words[name]} | " + " | ".join(_side_cell(r.get(m), lang) for m in
                                                         ("length", "dead_turn_rate", "anxiety_rate", "comeback")) + " |")
    for name, x in skill:
        lines += ["", f"{t['skill']} ({words[name]}) : {_side_cell(x, lang)}" if lang == "fr"
                  else f"{t['skill']} ({words[name]}): {_side_cell(x, lang)}"]
    lines += ["", f"**{t['guides']}**", "", f"| {t['table']} | " + " | ".join(GUIDES[lang][g] for g in NAMES) + " |",
              "|---|" + "---|" * len(NAMES)]

    def share(x, players):
        if x is None or not _finite(x["base"], x["variant"]):
            return "—"
        s = f"{_pts(x['base'] - 1 / players, lang)} → {_pts(x['variant'] - 1 / players, lang)}"
        return f"**{s}**" if x["differs"] else s

    players = {x["name"]: x["players"] for x in res["tables"]}
    for name, r in side.items():
        if "skill_gap" in r:
            continue
        lines.append(f"| {words[name]} | " + " | ".join(share(r.get(f"guide_{g}_win_rate"), players[name])
                                                         for g in NAMES) + " |")
    most = max((players[n] for n, r in side.items() if "skill_gap" not in r), default=2)
    lines += ["", f"**{t['seats']}**", "",
              f"| {t['table']} | " + " | ".join(t["seat"].format(k=k + 1) for k in range(most)) + " |",
              "|---|" + "---|" * most]
    for name, r in side.items():
        if "skill_gap" in r:
            continue
        lines.append(f"| {words[name]} | " + " | ".join(share(r.get(f"seat_{k}_win_rate"), players[name])
                                                         if k < players[name] else "" for k in range(most)) + " |")
    bad = [x for x in res["seat_checks"] if x["fails"]]
    if bad:
        lines += ["", t["seat_fail"], ""]
        lines += [f"- {words[x['table']]} : {seat_figure(x, lang)}" if lang == "fr"
                  else f"- {words[x['table']]}: {seat_figure(x, lang)}" for x in bad]
    text = "\n".join(lines).rstrip() + "\n"
    if lang == "fr":
        return typography(text, "fr")
    from ..i18n import game_words

    return game_words(text)


# ---------------------------------------------------------------- the brief's line
_HEAD = {
    "fr": {"lead": "Réunies en «\u00a0{title}\u00a0» et jouées ensemble à {t} tables, les {n} propositions",
           "clash": "se gênent", "fine": "tiennent ensemble : chacune fait aussi bien que seule",
           "undone": "les autres changements défont celle sur {m}", "weakened": "affaiblissent celle sur {m}",
           "weakened_only": "les autres changements affaiblissent celle sur {m}",
           "cons": "les règles réunies ne respectent plus {c}", "and": " et ", "nor": " ni "},
    "en": {"lead": "Combined into \"{title}\" and played together at {t} tables, the {n} proposals",
           "clash": "get in each other's way", "fine": "hold together: each does as well as alone",
           "undone": "the other changes undo the one on {m}", "weakened": "weaken the one on {m}",
           "weakened_only": "the other changes weaken the one on {m}",
           "cons": "the combined rules no longer keep {c}", "and": " and ", "nor": " nor "},
}
#: A goal's measure with its article, in French (« celle sur l'écart entre Guides »).
_ARTICLE_FR = {"guide_spread": "l'écart entre Guides", "comeback": "les remontées", "comeback_own":
               "les remontées face à la chance propre du joueur", "first_player_advantage":
               "l'avantage du premier joueur", "length": "la durée moyenne", "dead_turn_rate": "les tours morts",
               "anxiety_rate": "l'Angoisse", "seat_gap": "l'écart entre les joueurs"}


def _measure(metric: str, lang: str) -> str:
    if lang == "fr":
        return _ARTICLE_FR.get(metric) or f"« {_metric_words(metric, lang)} »"
    return _metric_words(metric, lang)


def headline(res: dict, lang: str) -> str:
    """The rulebook in one sentence for the brief's first screen: how many proposals it plays
    together and at how many tables, which of them the others undo or weaken (each study's first
    goal), and the constraints the combined rules break that each answer alone kept."""
    from ..i18n import number

    h = _HEAD[lang]
    undone, weakened, broken = [], [], []
    for g in res.get("goals", []):
        o = (g.get("objectives") or [None])[0]
        if o is not None:
            verdict = (o.get("interaction") or {}).get("verdict")
            if verdict in ("undone", "weakened"):
                (undone if verdict == "undone" else weakened).append(_measure(o["metric"], lang))
        cons = g.get("constraints") or {}
        for a, c in zip(cons.get("alone", []), cons.get("combined", [])):
            if a.get("holds") and not c.get("holds"):
                w = _constraint_words(c["constraint"], lang)
                broken.append(f"«\u00a0{w}\u00a0»" if lang == "fr" else f'"{w}"')
    undone, weakened, broken = (list(dict.fromkeys(x)) for x in (undone, weakened, broken))
    said = []
    if undone:
        said.append(h["undone"].format(m=h["and"].join(undone)))
    if weakened:
        said.append(h["weakened" if undone else "weakened_only"].format(m=h["and"].join(weakened)))
    clauses = [h["and"].join(said)] if said else []
    if broken:
        clauses.append(h["cons"].format(c=h["nor"].join(broken)))
    colon = " : " if lang == "fr" else ": "
    text = h["lead"].format(title=res["title"][lang], t=number(len(res.get("tables", [])), 0, lang),
                            n=number(len(res.get("answers", [])), 0, lang)) + " "
    text += (h["clash"] + colon + (" ; " if lang == "fr" else "; ").join(clauses)) if clauses else h["fine"]
    text += "."
    return typography(text, "fr") if lang == "fr" else text


# ---------------------------------------------------------------- the folder
def write_rulebook(res: dict, combined: Rules, base: Rules, folder: Path) -> dict:
    """``rulebook.fr.md``, ``rulebook.en.md``, ``rulebook.html`` (French), ``rulebook.en.html``,
    ``rules.toml`` and ``summary.json`` into ``folder``; returns their paths."""
    from ..io import write_text
    from .changes import changes_text
    from .outputs import _clean, rules_toml
    from .sheets import sheet_html

    folder = Path(folder)
    files = {}
    for lang in ("fr", "en"):
        md = rulebook_markdown(res, combined, base, lang)
        p = folder / f"rulebook.{lang}.md"
        write_text(p, md)
        files[f"{lang}.md"] = p
        p = folder / ("rulebook.html" if lang == "fr" else "rulebook.en.html")
        write_text(p, sheet_html(md, lang))
        files[f"{lang}.html"] = p
    studies = ", ".join(f"{a['study']} ({a['id']})" for a in res["answers"])
    header = [f"Rules, 2nd edition: the answers of {studies} combined (heron-sim tune --combine); base rules "
              f"{res['base']['digest']}.", f"Changes ({len(res['rules'])} rules): {changes_text(base, combined)}",
              "Use: heron-sim simulate --rules rules.toml"]
    p = folder / "rules.toml"
    write_text(p, rules_toml(combined, header))
    files["rules"] = p
    p = folder / "summary.json"
    write_text(p, json.dumps(_clean(res), indent=1, ensure_ascii=False))
    files["summary"] = p
    return files


__all__ = ["rulebook_markdown", "write_rulebook", "cell", "headline"]
