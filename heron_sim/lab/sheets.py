"""Rule sheets: a proposal in the game's words, French (like the seed) and English.

:func:`rule_sheet` turns a variant into a short printable sheet: each rule it changes as it
stands and as proposed, in sentences a designer can paste into the booklet (never key names),
then the evidence at each table of the panel with 95 % intervals, then the side effects (length
in rounds and minutes, dead turns, the Étang, the Angoisse, each power's use). The sentences come
from :data:`PHRASES`, one entry per rules key and language; a key without a phrase is an error
(a test checks that every key of the rules has one in both languages).

    >>> from heron_sim.rules import Rules
    >>> print(rule_sheet(Rules.build(), Rules.build(overrides={"rolls": 4}), None, "en").splitlines()[6])
    | Rolls per turn | Each player rolls up to 3 times per turn. | Each player rolls up to 4 times per turn. |
"""

from __future__ import annotations

import html
import math

from ..glossary import table_ids_in_words
from ..i18n import numbers_in
from ..errors import HeronSimError
from ..rules import Rules
from ..rules.words import GUIDES, LANGS
from .changes import Change, rule_changes

from .phrases import PHRASES, Phrase, guide_word, phrase, phrase_key  # noqa: F401  (the sheets' phrases)


# ---------------------------------------------------------------- the sheet
T = {
    "fr": {"title": "Proposition de règle", "rule": "Règle", "now": "Aujourd'hui", "proposed": "Proposé",
           "none": "Aucune règle ne change.", "evidence": "Ce que montrent les parties",
           "table": "Table", "side": "Effets de bord", "length": "Durée", "rounds": "tours de table",
           "minutes": "min", "dead": "Tours morts", "pond": "Étang Paisible par tour", "anx": "Angoisse par tour",
           "powers": "Pouvoirs utilisés par partie (Guide distribué)", "base": "règles actuelles",
           "variant": "proposition", "diff": "écart [95 %]",
           "games": "{n} nouvelles parties par table, jouées aussi avec les règles actuelles (mêmes dés).",
           "minnote": "Minutes : {s} s par tour de joueur (hypothèse en attendant une partie chronométrée).",
           "changes": "Règles modifiées : {n}", "obj": "Objectif",
           "luck": "† corrigé de la chance aux dés de chaque joueur (docs/luck.md) : sur les mêmes parties, un "
                   "intervalle plus étroit que l'intervalle brut."},
    "en": {"title": "Rule proposal", "rule": "Rule", "now": "As it stands", "proposed": "Proposed",
           "none": "No rule changes.", "evidence": "What the games show", "table": "Table",
           "side": "Side effects", "length": "Length", "rounds": "rounds", "minutes": "min", "dead": "Dead turns",
           "pond": "Peaceful Pond per turn", "anx": "Anxiety per turn",
           "powers": "Powers used per game (guide dealt)", "base": "current rules", "variant": "proposal",
           "diff": "difference [95 % CI]",
           "games": "{n} games a table on fresh seeds, paired with the current rules.",
           "minnote": "Minutes: {s} s per player turn (an assumption until a timed playtest).",
           "changes": "{n} rule(s) changed", "obj": "Objective",
           "luck": "† luck-adjusted: each player's dice luck taken out (docs/luck.md); on the same games, a "
                   "narrower interval than the plain one."},
}


def _pct(x):
    return "n/a" if not isinstance(x, (int, float)) or not math.isfinite(x) else f"{100 * x:.1f} %"


def _pts(x):
    return "n/a" if not isinstance(x, (int, float)) or not math.isfinite(x) else f"{100 * x:+z.1f}"


def rule_sheet(base: Rules, variant: Rules, evidence: dict | None, lang: str, *, name: str | None = None) -> str:
    """The sheet of ``variant`` against ``base`` as Markdown, in ``lang`` ("fr" or "en").

    ``evidence``: one finalist of a study (heron_sim.lab.study.evidence), or None for the rules
    alone. Any dict with ``games`` and ``effects`` (metric, base, variant, diff, low, high: the
    explorer's paired figures) is evidence too: its side effects are shown for its one table;
    ``objectives`` and ``effects_by_scenario`` are optional."""
    from ..runner.kinds.common import SECONDS_PER_TURN, minutes

    if lang not in LANGS:
        raise HeronSimError(f"lang: {lang!r}; allowed: {', '.join(LANGS)}")
    t = T[lang]
    changes = rule_changes(base, variant)
    head = f"# {t['title']}" + (f" `{name}`" if name else "")
    lines = [head, "", t["changes"].format(n=len(changes)) + ".", ""]
    if not changes:
        lines += [t["none"], ""]
    else:
        lines += [f"| {t['rule']} | {t['now']} | {t['proposed']} |", "|---|---|---|"]
        for c in changes:
            title, old = phrase(c.key, c.old, lang)
            _, new = phrase(c.key, c.new, lang)
            if c.key.startswith("guide."):  # the rule of every player, then the holder's exception
                old, new = holder_rule(c.key, base, c.old, lang), holder_rule(c.key, variant, c.new, lang)
            lines.append(f"| {title} | {old} | {new} |")
        lines.append("")
    if evidence:
        lines += _evidence_md(evidence, lang, t)
        lines += _side_md(evidence, lang, t, minutes, SECONDS_PER_TURN)
    text = numbers_in("\n".join(lines) + "\n", lang)  # « 26,8 tours de table », « −6,4 »
    return table_ids_in_words(text, lang) if lang == "fr" else text  # « 4 joueurs occasionnels »


def holder_rule(key: str, rules: Rules, value, lang: str) -> str:
    """A guide holder's rule ``guide.NAME.KEY`` of ``value`` under ``rules``, as a sheet's cell
    states it: the rule of every player (KEY's value in ``rules``), then the holder's exception
    when there is one (``value`` not None): « Chaque joueur lance jusqu'à 3 fois par tour.
    Exception pour le joueur qui a le Guide Héron : il lance jusqu'à 4 fois par tour. »; with no
    exception, the rule of every player alone (never an exception that restates it)."""
    every = key.rsplit(".", 1)[1]
    if not hasattr(rules, every):
        return phrase(key, value, lang)[1]
    normal = phrase(every, getattr(rules, every), lang)[1]
    return normal if value is None else f"{normal} {phrase(key, value, lang)[1]}"


#: The objective metrics in the booklet's words.
METRIC_WORDS = {
    "fr": {"guide_spread": "écart des Guides (plus grand écart entre le taux de victoire d'un Guide et la part équitable)",
           "first_player_advantage": "avantage du premier joueur (taux de victoire du joueur 1 − part équitable)",
           "length": "durée moyenne (tours de table)", "dead_turn_rate": "tours morts (tours qui ne font bouger personne)",
           "lead_changes": "changements de tête par partie", "pushback": "recul dû à l'Étang par partie (cases)",
           "comeback": "remontées (le dernier à mi-partie gagne)",
           "completion": "parties terminées", "seat_balance": "équilibre des places",
           "pond_rate": "Étang Paisible par tour", "anxiety_rate": "Angoisse par tour",
           "advance_per_turn": "avance par tour (cases)"},
    "en": {"guide_spread": "guide spread (largest gap between a guide's win rate and the fair share)",
           "first_player_advantage": "first-player advantage (seat 1's win rate − the fair share)",
           "length": "mean length (rounds)", "dead_turn_rate": "dead turns (turns that move nobody)",
           "lead_changes": "lead changes per game", "pushback": "Pond push-back per game (squares)",
           "comeback": "comebacks (the player last at mid-game wins)",
           "completion": "games finished", "seat_balance": "seat balance", "pond_rate": "Peaceful Pond per turn",
           "anxiety_rate": "Anxiety per turn", "advance_per_turn": "advance per turn (squares)"},
}


def _unit(m: str, lang: str) -> str:
    """The metric's unit after a figure, in the sheet's language (rounds: "tours de table")."""
    from .metrics import unit_suffix

    u = unit_suffix(m)
    return f" {T[lang]['rounds']}" if u == " rounds" else u


def _distance_words(o, x, lang) -> str:
    from .metrics import METRICS, format_value

    m = o["metric"]
    d = x["distance"]
    if "relative" in o["objective"]:
        dist = f"{100 * d:+z.1f} %"
    elif METRICS[m].unit in ("rate", "points"):
        dist = f"{100 * d:+z.1f} " + ("pt" if lang == "fr" else "points")
    else:
        dist = f"{format_value(m, d, True)}{_unit(m, lang)}"
    tgt = f"{format_value(m, x['target'])}{_unit(m, lang)}"
    if o.get("scale"):  # a relative goal: the target is a factor of a figure, said so (issue 58)
        of = {"fr": {"base": "les règles actuelles", "reference": "la référence", "targets": "la cible du créateur"},
              "en": {"base": "the current rules", "reference": "the reference", "targets": "the designer's target"}}
        scale = f"{o['scale']:g}".replace(".", ",") if lang == "fr" else f"{o['scale']:g}"
        tgt += f" ({scale} × {of[lang].get(o['of'], o['of'])})"
    elif o.get("of") == "fair":
        tgt += " (part équitable)" if lang == "fr" else " (the fair share)"
    return f"cible {tgt} : {dist}" if lang == "fr" else f"target {tgt}: {dist}"


def objective_words(o: dict, lang: str) -> str:
    """An objective's figure in the booklet's words: one guide's or one seat's win rate too, and
    the player count it is measured at ("taux de victoire du Guide Serpent, à 4 joueurs")."""
    m = o["metric"]
    if m.startswith("guide_") and m.endswith("_win_rate"):
        g = guide_word(m[len("guide_"):-len("_win_rate")], lang)
        what = (f"taux de victoire du joueur qui a le Guide {g}" if lang == "fr"
                else f"win rate of the player holding the {g} guide")
    elif m.startswith("seat_") and m.endswith("_win_rate"):
        k = int(m.split("_")[1]) + 1
        what = (f"taux de victoire du {'premier' if k == 1 else f'{k}e'} joueur" if lang == "fr"
                else f"win rate of the player in seat {k}")
    else:
        what = METRIC_WORDS[lang].get(m, m)
    n = o.get("players")
    if n:
        what += f", à {n} joueurs" if lang == "fr" else f", at {n} players"
    return what


def _evidence_md(e: dict, lang: str, t: dict) -> list[str]:
    from .metrics import format_value

    lines = [f"## {t['evidence']}", "", t["games"].format(n=f"{e['games']:,}".replace(",", " " if lang == "fr" else ",")), ""]
    for o in e.get("objectives") or []:
        m = o["metric"]
        what = objective_words(o, lang)
        goal = ""
        if o["goal"] is not None:
            ok = o["goal_met_95"]
            goal = {"fr": f" — but {_goal(o, lang)} : {'atteint avec 95 % de confiance' if ok else 'pas atteint avec 95 % de confiance'}",
                    "en": f" — goal {_goal(o, lang)}: {'met with 95 % confidence' if ok else 'not met with 95 % confidence'}"}[lang]
        lines += [f"**{t['obj']}** : {what}{goal}" if lang == "fr" else f"**{t['obj']}**: {what}{goal}", "",
                  f"| {t['table']} | {t['base']} | {t['variant']} [95 %] |", "|---|---|---|"]
        luck = " †" if o.get("estimate") == "luck-adjusted" else ""
        for x in o.get("scenarios", []):
            v = (f"{format_value(m, x['value'])} [{format_value(m, x['low'])}, {format_value(m, x['high'])}]"
                 f"{_unit(m, lang)}{luck}")
            if x["distance"] is not None:
                v += f" — {_distance_words(o, x, lang)}"
            lines.append(f"| {x['scenario']} | {format_value(m, x['base'])}{_unit(m, lang)} | {v} |")
        lines.append("")
        if luck:
            lines += [t["luck"], ""]
    return lines


def _goal(o, lang) -> str:
    from .metrics import METRICS

    g = o["goal"]
    if "relative" in o["objective"]:
        size = f"{100 * g:g} %"
    elif METRICS[o["metric"]].unit in ("rate", "points"):
        size = f"{100 * g:g} pt"
    else:
        size = f"{g:g}"
    side = next((w for w in ("no more than", "no less than") if w in o["objective"]), None)
    if side is not None:  # one-sided: the goal is the excess allowed past the target, 0 by default
        words = {("fr", "no more than"): "pas plus que sa cible", ("fr", "no less than"): "pas moins que sa cible",
                 ("en", "no more than"): "no more than its target", ("en", "no less than"): "no less than its target"}
        sign = "+" if side == "no more than" else "−"
        return words[lang, side] + (f" {sign} {size}" if g else "")
    return f"± {size}" if "relative" in o["objective"] else size


def _side_md(e: dict, lang: str, t: dict, minutes, spt) -> list[str]:
    from ..animals import NAMES

    lines = [f"## {t['side']}", "",
             f"| {t['table']} | {t['length']} | {t['dead']} | {t['pond']} | {t['anx']} |", "|---|---|---|---|---|"]
    tables = e.get("effects_by_scenario") or ({"—": e["effects"]} if e.get("effects") else {})
    for scen, rows in tables.items():
        r = {x["metric"]: x for x in rows}
        P = sum(1 for k in r if k.startswith("seat_") and k.endswith("_win_rate"))
        ln = r.get("length")
        if ln is None or not all(isinstance(ln.get(k), (int, float)) for k in ("base", "variant", "diff", "low", "high")):
            cell_len = "n/a"
        else:
            cell_len = (f"{ln['base']:.1f} → {ln['variant']:.1f} {t['rounds']} "
                        f"({ln['diff']:+z.1f} [{ln['low']:+z.1f}, {ln['high']:+z.1f}])")
            if P:
                cell_len += f"; ≈ {minutes(ln['base'], P):.0f} → {minutes(ln['variant'], P):.0f} {t['minutes']}"
        cells = [cell_len]
        for m in ("dead_turn_rate", "pond_rate", "anxiety_rate"):
            x = r.get(m)
            cells.append("n/a" if x is None else
                         f"{_pct(x['base'])} → {_pct(x['variant'])} ({_pts(x['diff'])} [{_pts(x['low'])}, {_pts(x['high'])}] pt)")
        lines.append(f"| {scen} | " + " | ".join(cells) + " |")
    lines += ["", t["minnote"].format(s=spt), "", f"**{t['powers']}**", "",
              f"| {t['table']} | " + " | ".join(GUIDES[lang][g] for g in NAMES) + " |", "|---|" + "---|" * len(NAMES)]
    for scen, rows in tables.items():
        r = {x["metric"]: x for x in rows}
        cells = []
        for g in NAMES:
            x = r.get(f"power_{g}_use") or r.get(f"power_{g}")  # the lab's name, the explorer's
            if x is None or not isinstance(x.get("base"), (int, float)) or not math.isfinite(x["base"]) \
                    or not isinstance(x.get("variant"), (int, float)):
                cells.append("n/a")
            else:
                cells.append(f"{x['base']:.2f} → {x['variant']:.2f}")
        lines.append(f"| {scen} | " + " | ".join(cells) + " |")
    return lines + [""]


def sheet_html(markdown: str, lang: str = "fr") -> str:
    """A self-contained HTML page of a sheet (headings, tables, paragraphs; no network)."""
    body, table, items = [], [], []

    def flush_items():
        if items:
            body.append("<ul>" + "".join(f"<li>{_inline(x)}</li>" for x in items) + "</ul>")
            items.clear()

    def flush():
        if table:
            rows = [r for r in table if not set(r.replace("|", "").strip()) <= set("-")]
            out = ["<table>"]
            for k, r in enumerate(rows):
                cells = [c.strip() for c in r.strip().strip("|").split("|")]
                tag = "th" if k == 0 else "td"
                out.append("<tr>" + "".join(f"<{tag}>{_inline(c)}</{tag}>" for c in cells) + "</tr>")
            out.append("</table>")
            body.append("\n".join(out))
            table.clear()

    for line in markdown.splitlines():
        if line.startswith("|"):
            flush_items()
            table.append(line)
            continue
        flush()
        if line.startswith("- "):
            items.append(line[2:])
            continue
        flush_items()
        if line.startswith("## "):
            body.append(f"<h2>{_inline(line[3:])}</h2>")
        elif line.startswith("# "):
            body.append(f"<h1>{_inline(line[2:])}</h1>")
        elif line.strip():
            body.append(f"<p>{_inline(line)}</p>")
    flush()
    flush_items()
    style = ("body{font-family:Georgia,serif;max-width:60em;margin:2em auto;padding:0 1em}"
             "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #999;padding:.2em .5em;"
             "vertical-align:top}th{background:#eee}@media print{body{margin:0}}")
    return (f"<!doctype html>\n<html lang=\"{lang}\"><head><meta charset=\"utf-8\"><title>"
            f"{html.escape(markdown.splitlines()[0].lstrip('# '))}</title><style>{style}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _inline(text: str) -> str:
    import re

    s = html.escape(text)
    s = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", s)
    s = re.sub(r"`(.+?)`", r"<code>\1</code>", s)
    return s


def write_sheets(spec, finalists: list[dict], out, limit: int, note: dict | None = None) -> list:
    """``sheet-<variant>.fr.md``, ``.en.md`` and ``.html`` (French and English on one page) for
    each of the first ``limit`` finalists; returns the paths. ``note``: a paragraph by language put
    under each sheet's and booklet text's title (a study that advises keeping the rulings says so)."""
    from pathlib import Path

    from ..io import write_text

    out = Path(out)
    paths = []
    for old in [*out.glob("sheet-*.md"), *out.glob("sheet-*.html"), *out.glob("booklet-*.md"), *out.glob("booklet-*.html")]:
        old.unlink()
    for e in finalists[:limit]:
        md = {lang: _noted(rule_sheet(spec.base, e["rules"], e, lang, name=e["id"]), note, lang) for lang in LANGS}
        for lang in LANGS:
            p = out / f"sheet-{e['id']}.{lang}.md"
            write_text(p, md[lang])
            paths.append(p)
        page = sheet_html(md["fr"] + "\n" + md["en"], "fr")
        p = out / f"sheet-{e['id']}.html"
        write_text(p, page)
        paths.append(p)
        # The booklet's blocks with the change in place (issue 30 item 7), French then English.
        from .booklet import booklet_text

        book = {lang: _noted(booklet_text(spec.base, e["rules"], lang, name=e["id"]), note, lang) for lang in LANGS}
        for lang in LANGS:
            p = out / f"booklet-{e['id']}.{lang}.md"
            write_text(p, book[lang])
            paths.append(p)
        p = out / f"booklet-{e['id']}.html"
        write_text(p, sheet_html(book["fr"] + "\n" + book["en"], "fr"))
        paths.append(p)
    return paths


def _noted(md: str, note: dict | None, lang: str) -> str:
    """``md`` with ``note[lang]`` as its first paragraph, under its title line, and the title's
    words ``note["retitle"][lang]`` (old, new) replaced (a close variant is not titled a proposal)."""
    if not note:
        return md
    title, _, rest = md.partition("\n")
    for old, new in note.get("retitle", {}).get(lang, ()):  # the first that the title holds
        if old in title:
            title = title.replace(old, new)
            break
    return f"{title}\n\n{note[lang]}\n{rest}"


__all__ = ["rule_sheet", "sheet_html", "phrase", "PHRASES", "write_sheets", "Change"]
