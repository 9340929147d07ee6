"""The lab's page (``lab-proposed-rule-changes.html``, French; ``.en.html``, English): the rule
changes the tuning lab proposes, in the game's words (issue 33, item 6).

Drawn from the studies' data (:func:`heron_sim.lab.outputs.proposed_changes`), not from the lab's
Markdown: every rules key is named by the rule's title (heron_sim.rules.keys), every metric by
its words in the page's language (the catalogue heron_sim/locale/fr.po), every number written
the language's way (« 25,8 % [25,5 ; 26,1] »), and each toggle counts what it really holds. The
study's own title and problem are the tune file's words and are shown as written.
"""

from __future__ import annotations

import html
import math
import re
from pathlib import Path

from ..i18n import FIELD_LABELS, game_words, gettext, number
from ..rules.keys import KEYS
from ..rules.words import GUIDES

PAGE = "lab-proposed-rule-changes"
#: The page's file in each language: French is the designers' language, the default.
FILES = {"fr": f"{PAGE}.html", "en": f"{PAGE}.en.html"}

#: The metrics' words (English message ids; French in the catalogue). Seats, guides and powers
#: are written from templates.
METRIC_WORDS = {
    "guide_spread": "guide spread (largest gap between a guide's win rate and the fair share)",
    "first_player_advantage": "first-player advantage (win rate of the player who starts, minus a fair share)",
    "length": "length (rounds, finished games)",
    "dead_turn_rate": "dead turns (played turns after which nobody is closer to the finish)",
    "lead_changes": "lead changes per game",
    "comeback": "comebacks (the player last at mid-game wins)",
    "pushback": "Étang push-back per game (squares)",
    "completion": "games with a winner",
    "seat_balance": "seat balance (1 − the largest seat gap)",
    "pond_rate": "Étang Paisible per played turn",
    "anxiety_rate": "Angoisse du Héron per played turn",
    "advance_per_turn": "advance per played turn (squares)",
    "skill_gap": "skill gap (an expert's wins against a beginner)",
    "stuck_3_share": "players who do not move for 3 of their turns in a row",
    "longest_dead_streak": "longest run of dead turns per player (turns)",
}
#: The page's own texts (English message ids).
TEXTS = (
    "Rule changes the lab proposes", "The tuning lab's proposals, measured on the same games as the rulings.",
    "Each variant below was played against the rulings on fresh games with the same dice (paired): "
    "the difference and its 95 % interval say what the change does.",
    "Generated from git commit {commit}; {games} games played in the run.", "All pages", "This page in English",
    "This page in French", "What was found", "Constraints", "holds", "violated",
    "Best variant {id}: {changes}.", "{n} rules changed", "1 rule changed", "the rulings (no change)",
    "{games} fresh games per table, paired with the rulings.",
    "{metric}: distance to the goal {loss} against {base} for the rulings ({verdict})",
    "worst table: {table}", "goal met with 95 % confidence", "goal not met", "no goal",
    "better", "worse", "no clear difference", "unclear", "metric", "rulings", "variant", "difference [95 %]",
    "Variant {id}", "rules file", "rule sheets",
    "all seven powers in play (no power switched off or made inert)", "{n} players", "(rotated)",
    "{guide}: wins when dealt", "{guide}: power uses per game dealt", "seat {n}: wins",
    "Tables and figures ({tables} tables, {figures} figures)",
    "yes", "no",
    "The answer", "No change needed: the rulings already meet every goal with 95 % confidence.",
    "Smallest change that meets every goal with 95 % confidence: {id} ({rules}).",
    "No change in this space meets every goal with 95 % confidence; the closest: {id} ({rules}).",
    "booklet text", "Measured at {n} tables: {tables}.",
    "No variant is shown better than the rulings on any objective: on this evidence, keep the rulings.",
)


def _t(msgid: str, lang: str, **kw) -> str:
    text = gettext(msgid, lang)
    return text.format(**kw) if kw else text


def msgids() -> list[str]:
    """Every text of the lab page to translate (tests/test_explore_i18n.py checks the catalogue)."""
    return list(dict.fromkeys(list(METRIC_WORDS.values()) + list(TEXTS)))


def metric_words(metric: str, lang: str) -> str:
    """A lab metric in words (``dead_turn_rate`` -> « tours blancs (…) »)."""
    m = re.fullmatch(r"seat_(\d+)_win_rate", metric)
    if m:
        return _t("seat {n}: wins", lang, n=int(m.group(1)) + 1)
    m = re.fullmatch(r"guide_([a-z]+)_win_rate", metric)
    if m:
        return _t("{guide}: wins when dealt", lang, guide=GUIDES["fr"].get(m.group(1), m.group(1)))
    m = re.fullmatch(r"power_([a-z]+)_use", metric)
    if m:
        return _t("{guide}: power uses per game dealt", lang, guide=GUIDES["fr"].get(m.group(1), m.group(1)))
    return _t(METRIC_WORDS[metric], lang) if metric in METRIC_WORDS else metric.replace("_", " ")


def key_words(key: str, lang: str) -> str:
    """A rules key as the rule's title (``anxiety_threshold`` -> « L'Angoisse du Héron »);
    ``combinations.advance[2]`` -> the field's words and the set's size."""
    m = re.fullmatch(r"guide\.([a-z]+)\.(\w+)", key)
    if m:  # a rule for one guide's holder: « Lancers par tour (Guide Héron) »
        from ..lab.phrases import guide_word

        g = guide_word(m.group(1), lang)
        return f"{key_words(m.group(2), lang)} " + (f"(Guide {g})" if lang == "fr" else f"({g} guide)")
    m = re.fullmatch(r"seats\.(\d)\.(\w+)", key)
    if m:  # a rule for one player count: « Cases de départ (à 3 joueurs) »
        n = m.group(1)
        return f"{key_words(m.group(2), lang)} " + (f"(à {n} joueurs)" if lang == "fr" else f"(with {n} players)")
    m = re.fullmatch(r"board\.square\.(\d+)", key)
    if m:
        return f"Case {m.group(1)}" if lang == "fr" else f"Square {m.group(1)}"
    m = re.fullmatch(r"([a-z_.]+)(?:\[(\d+)\])?", key)
    base, idx = (m.group(1), m.group(2)) if m else (key, None)
    if base in KEYS:
        words = KEYS[base].title(lang)
        words = words if lang == "fr" else game_words(words)
    elif base in FIELD_LABELS:
        words = gettext(FIELD_LABELS[base], lang)
    else:
        return key
    if idx is not None:
        words += " (" + (f"série de {idx}" if lang == "fr" else f"set of {idx}") + ")"
    return words


def _value(v, lang: str) -> str:
    if isinstance(v, bool):
        return _t("yes" if v else "no", lang)
    if isinstance(v, float):
        return number(v, 3, lang).rstrip("0").rstrip(",.")
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x, lang) for x in v) + "]"
    return str(v)


def changes_words(changes: dict, lang: str) -> str:
    if not changes:
        return _t("the rulings (no change)", lang)
    if lang == "fr":  # each rule in the booklet's sentence (issue 60: never « clé = [0, 0, 1, 1] »)
        from ..lab.phrases import phrase

        def said(k, v):
            try:
                return phrase(k, v, "fr")[1].rstrip(".")
            except Exception:  # a key without a sentence keeps its title and value
                return f"{key_words(k, lang)} : {_square(v, lang) if k.startswith('board.square.') else _value(v, lang)}"
        # the rules of one guide's holder said once: « Exception pour le joueur qui a le Guide Héron :
        # dès qu'il cumule 4 Hérons …, et il lance jusqu'à 4 fois par tour », not the exception twice
        parts: list = []
        held: dict[str, list[str]] = {}
        for k, v in changes.items():
            text = said(k, v)
            head, sep, rule = text.partition(" : ")
            if sep and head.startswith("Exception pour le joueur qui a le Guide "):
                if head not in held:
                    held[head] = []
                    parts.append(head)
                held[head].append(rule)
            else:
                parts.append(text)
        said_parts = [f"{p} : {', et '.join(held[p])}" if p in held else p for p in parts]
        # after « ; » a clause starts in lower case (« … réussie ; exception pour le joueur … »)
        return " ; ".join(t if i == 0 or not t.startswith("Exception ") else "e" + t[1:]
                          for i, t in enumerate(said_parts))
    return (" ; " if lang == "fr" else "; ").join(f"{key_words(k, lang)} = {_square(v, lang) if k.startswith('board.square.') else _value(v, lang)}"
                                                  for k, v in changes.items())


def _square(effect, lang: str) -> str:
    """A square's effect by its name on the board (« Aigle : échange de position avec un adversaire »)."""
    from ..rules.words import SQUARES

    return SQUARES[lang].get(effect, str(effect))


def _unit(metric: str) -> str:
    from ..lab.metrics import METRICS

    return METRICS[metric].unit if metric in METRICS else "count"


def fmt(metric: str, v, lang: str, diff: bool = False) -> str:
    """A metric's value in its reader's unit (rates in %, points in points), the language's way."""
    if v is None or not math.isfinite(v):
        return "n/a" if lang == "en" else "s.o."
    unit = _unit(metric)
    if unit in ("rate", "points"):
        return number(100 * v, 2, lang, sign=diff) + ("\u00a0pt" if diff or unit == "points" else "\u00a0%")
    d = 4 if unit == "share" else 3
    return number(v, d, lang, sign=diff)


def interval(metric: str, d, lo, hi, lang: str) -> str:
    sep = "\u00a0; " if lang == "fr" else ", "
    return f"{fmt(metric, d, lang, True)} [{fmt(metric, lo, lang, True)}{sep}{fmt(metric, hi, lang, True)}]"


def _loss(o: dict, key: str, lang: str) -> str:
    v = o.get(key)
    if "relative distance" in o.get("objective", ""):
        return "s.o." if v is None else number(100 * v, 1, lang) + "\u00a0%"
    return fmt(o["metric"], v, lang)


def _describe(panel: list[dict], name: str, lang: str) -> str:
    for sc in panel:
        if sc.get("name") == name:
            d = sc.get("description") or name
            if lang == "fr":
                from ..glossary import table_words
                from ..runner.panel import PLAYER_WORDS

                if not name.startswith("mix-") and table_words(name, lang) != name:
                    return table_words(name, lang)  # « 4 joueurs occasionnels », never casual-4
                d = re.sub(r"\b(?:novice|casual|regular|expert)\b", lambda m: PLAYER_WORDS["fr"][m.group(0)][0], d)
                d = re.sub(r"^(\d+) players", lambda m: _t("{n} players", lang, n=m.group(1)), d)
                d = d.replace(" (rotated)", " " + _t("(rotated)", lang)).replace(": ", " : ")
            return d
    return name


def _constraint(c: dict, lang: str) -> str:
    m = re.fullmatch(r"([a-z_0-9]+) (>=|<=) ([-\d.]+)", c["constraint"])
    if m:
        what = f"{metric_words(m.group(1), lang)} {'≥' if m.group(2) == '>=' else '≤'} {_value(float(m.group(3)), lang)}"
    else:
        what = _t(c["constraint"], lang)
    return f"{what} : {_t('holds' if c.get('holds') else 'violated', lang)}" if lang == "fr" else \
        f"{what}: {_t('holds' if c.get('holds') else 'violated', lang)}"


def _study(text: str, lang: str, own: str | None = None) -> str:
    """A study's own words (its tune file's title or problem) after the tag's name: in French,
    the study's own French (``own``: ``title_fr``/``description_fr`` of its summary.json) when it
    has one, else the catalogue's entry keyed by the English words, else as written, marked as
    English (``lang="en"``)."""
    key = " ".join(str(text).split())
    words = " ".join(str(own).split()) if own and lang != "en" else gettext(key, lang)
    mark = ' lang="en"' if lang != "en" and words == key else ""
    return f"{mark}>{_e(words)}"


def tables_words(names, lang: str) -> str:
    """A study's tables in words, never their ids (issue 60 item 1): ``casual-4, rungs-2`` ->
    « 4 joueurs occasionnels et 2 joueurs de tous niveaux »."""
    from ..glossary import table_words

    groups: dict = {}  # the same players at several counts said once: « 2, 3, 5, 6 et 7 joueurs de tous niveaux »
    for n in map(str, names):
        m = re.fullmatch(r"([a-z]+)-(\d)", n)
        key = m.group(1) if m and table_words(f"{m.group(1)}-2", lang).startswith("2 ") else n
        groups.setdefault(key, []).append(m.group(2) if key != n else n)
    words = []
    for key, items in groups.items():
        if key in items:
            words.append(table_words(key, lang))
        elif len(items) == 1:
            words.append(table_words(f"{key}-{items[0]}", lang))
        else:
            counts = ", ".join(items[:-1]) + (" et " if lang == "fr" else " and ") + items[-1]
            words.append(counts + table_words(f"{key}-2", lang)[1:])
    if len(words) < 2:
        return "".join(words)
    if any(" et " in w or " and " in w for w in words):  # a group holds its own « et »: the groups by « ; »
        return ("\u202f; " if lang == "fr" else "; ").join(words)
    return ", ".join(words[:-1]) + (" et " if lang == "fr" else " and ") + words[-1]


def _e(s) -> str:
    return html.escape(str(s), quote=True)


def study_html(p: dict, lang: str) -> tuple[str, int]:
    """One study's part of the page and how many tables it holds."""
    colon = " :" if lang == "fr" else ":"
    sep = "\u00a0; " if lang == "fr" else ", "
    out = [f'<section class="study" id="{_e(p["study"])}"><h2{_study(p["title"], lang, p.get("title_fr"))}</h2>']
    if p.get("problem"):
        out.append(f"<p class=\"problem\"{_study(p['problem'], lang, p.get('problem_fr'))}</p>")
    variants = p["variants"]
    answer = p.get("answer")
    if answer is not None:
        # The study's answer first (issue 30): no change / the smallest fix / none, and where measured.
        v0 = variants[0] if variants else None
        n0 = (v0.get("n_changed") or len(v0["changes"])) if v0 else 0
        rules0 = _t("1 rule changed", lang) if n0 == 1 else _t("{n} rules changed", lang, n=n0)
        if answer["answer"] == "no change needed":
            line = _t("No change needed: the rulings already meet every goal with 95 % confidence.", lang)
        elif answer["answer"] == "keep the rulings":
            line = _t("No variant is shown better than the rulings on any objective: on this evidence, keep the rulings.",
                      lang)
        elif answer["answer"] == "fix" and v0:
            line = _t("Smallest change that meets every goal with 95 % confidence: {id} ({rules}).", lang,
                      id=v0["id"], rules=f"{changes_words(v0['changes'], lang)}, {rules0}")
        elif v0:
            line = _t("No change in this space meets every goal with 95 % confidence; the closest: {id} ({rules}).",
                      lang, id=v0["id"], rules=f"{changes_words(v0['changes'], lang)}, {rules0}")
        else:
            line = ""
        book = ((answer.get("variant") or {}).get("booklet") or {})
        key = "fr.md" if lang == "fr" else "en.md"
        link = (f' · <a href="{_e(Path(book[key]).as_posix())}">{_e(_t("booklet text", lang))}</a>'
                if key in book else "")
        where = _t("Measured at {n} tables: {tables}.", lang, n=len(answer["tables"]),
                   tables=tables_words(answer["tables"], lang))
        out.append(f"<h3>{_e(_t('The answer', lang))}</h3><p class=\"answer\"><strong>{_e(line)}</strong>{link}"
                   f"<br><span class=\"small\">{_e(where)}</span></p>")
    if variants:
        best = variants[0]
        n = best.get("n_changed") or len(best["changes"])
        rules = _t("1 rule changed", lang) if n == 1 else _t("{n} rules changed", lang, n=n)
        out.append(f"<h3>{_e(_t('What was found', lang))}</h3><p>" + _e(_t(
            "Best variant {id}: {changes}.", lang, id=best["id"],
            changes=f"{changes_words(best['changes'], lang)} ({rules})")) + " "
            + _e(_t("{games} fresh games per table, paired with the rulings.", lang, games=number(best["games"], 0, lang)))
            + "</p><ul>")
        for o in best["objectives"]:
            goal = ("no goal" if o.get("goal") is None else
                    "goal met with 95 % confidence" if o.get("goal_met_95") else "goal not met")
            line = _t("{metric}: distance to the goal {loss} against {base} for the rulings ({verdict})", lang,
                      metric=metric_words(o["metric"], lang),
                      loss=f"{_loss(o, 'loss', lang)} [{_loss(o, 'loss_low', lang)}{sep}{_loss(o, 'loss_high', lang)}]",
                      base=_loss(o, "base_loss", lang), verdict=_t(o.get("verdict", "unclear"), lang))
            sc = [s for s in o.get("scenarios", []) if s.get("loss") == s.get("loss")]
            if len(sc) > 1:
                worst = max(sc, key=lambda s: s["loss"])
                line += (" ; " if lang == "fr" else "; ") + _t("worst table: {table}", lang, table=_describe(p.get("panel", []), worst["scenario"], lang))
            out.append(f"<li>{_e(line)} — {_e(_t(goal, lang))}.</li>")
        out.append("</ul>")
        if best.get("constraints"):
            out.append(f"<p>{_e(_t('Constraints', lang))}{colon} "
                       + _e((" ; " if lang == "fr" else "; ").join(_constraint(c, lang) for c in best["constraints"])) + ".</p>")
    from ..lab.outputs import measured

    tables = 0
    for v in variants:
        rows = "".join(
            f"<tr><td>{_e(metric_words(x['metric'], lang))}</td><td>{_e(fmt(x['metric'], x['base'], lang))}</td>"
            f"<td>{_e(fmt(x['metric'], x['variant'], lang))}</td>"
            f"<td>{_e(interval(x['metric'], x['diff'], x['low'], x['high'], lang))}</td></tr>" for x in v["effects"]
            if measured(x))  # a figure this study does not measure (dead-turn streaks) is left out
        tables += 1
        sheets = v.get("sheets") or {}
        links = ""
        if sheets:
            links = f" · {_e(_t('rule sheets', lang))}{colon} " + ", ".join(
                f'<a href="{_e(Path(path).as_posix())}">{_e(k)}</a>' for k, path in sheets.items())
        out.append(
            f'<details class="variant"{" open" if v is variants[0] else ""}><summary>'
            f"{_e(_t('Variant {id}', lang, id=v['id']))} — {_e(changes_words(v['changes'], lang))}</summary>"
            f"<p class=\"small\">{_e(_t('rules file', lang))}{colon} <code>{_e(v['rules_file'])}</code>{links}</p>"
            f"<div class=\"table-wrap\"><table><thead><tr><th>{_e(_t('metric', lang))}</th><th>{_e(_t('rulings', lang))}</th>"
            f"<th>{_e(_t('variant', lang))}</th><th>{_e(_t('difference [95 %]', lang))}</th></tr></thead>"
            f"<tbody>{rows}</tbody></table></div></details>")
    out.append("</section>")
    return "".join(out), tables


_CSS = """body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;max-width:1100px;margin:0 auto;padding:1em;
color:#1d1d1f;line-height:1.45}h1{font-size:1.5em;margin:.2em 0}.sub{color:#555;font-size:.92em}nav{font-size:.9em}
section.study{border-top:2px solid #dde1e6;margin-top:1.5em}h2{font-size:1.2em}h3{font-size:1em;margin:.8em 0 .3em}
.problem{color:#444}details.variant{border:1px solid #dde1e6;border-radius:6px;padding:.4em .7em;margin:.6em 0}
details.variant>summary{cursor:pointer;font-weight:600}.table-wrap{overflow-x:auto}table{border-collapse:collapse;font-size:.88em;
margin:.4em 0}th,td{padding:.2em .6em;border-bottom:1px solid #eee;text-align:right}th:first-child,td:first-child{text-align:left}
.small{font-size:.85em;color:#555}code{font-size:.9em;overflow-wrap:anywhere}"""


def lab_page(proposals: list[dict], meta: dict, lang: str) -> str:
    """The lab's page in ``lang`` (``fr`` or ``en``)."""
    parts, tables = [], 0
    for p in proposals:
        text, n = study_html(p, lang)
        parts.append(text)
        tables += n
    title = _t("Rule changes the lab proposes", lang)
    other = "en" if lang == "fr" else "fr"
    switch = _t("This page in English" if lang == "fr" else "This page in French", lang)
    sub = _t("Generated from git commit {commit}; {games} games played in the run.", lang,
             commit=meta.get("git commit (report)", "?"),
             games=_games(meta.get("games played (all)", meta.get("games simulated", "?")), lang))
    toggle = _t("Tables and figures ({tables} tables, {figures} figures)", lang, tables=tables, figures=0)
    return (f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>{_e(title)}</title>\n'
            f"<style>{_CSS}</style>\n</head>\n<body>\n"
            f'<nav><a href="index.html">{_e(_t("All pages", lang))}</a> · '
            f'<a href="{FILES[other]}" hreflang="{other}" id="other-lang">{_e(switch)}</a></nav>\n'
            f"<h1>{_e(title)}</h1>\n<p class=\"sub\">{_e(_t(TEXTS[1], lang))} "
            f"{_e(sub)}</p>\n"
            f"<p>{_e(_t(TEXTS[2], lang))}</p>\n"
            f'<details class="more" open><summary id="toggle">{_e(toggle)}</summary>\n' + "\n".join(parts)
            + "\n</details>\n</body>\n</html>\n")


def _games(v, lang: str) -> str:
    try:
        return number(int(str(v).replace(",", "")), 0, lang)
    except ValueError:
        return str(v)


def _relative(path, out_dir) -> str:
    import os

    return Path(os.path.relpath(Path(path).resolve(), Path(out_dir).resolve())).as_posix()


def write_lab_pages(out_dir: Path, meta: dict, results_root: Path | None = None) -> list[Path]:
    """Write the lab's page in French (``lab-proposed-rule-changes.html``) and English
    (``.en.html``) from the studies under ``results_root`` (default: ``out_dir``)."""
    from ..io import write_text
    from ..lab.outputs import proposed_changes

    from ..lab.outputs import study_answers

    root = results_root or out_dir
    proposals = proposed_changes(root)
    answers = {a["study"]: a for a in study_answers(root)}
    proposals = [{**p, "answer": answers.get(p["study"])} for p in proposals]
    # the sheets and booklet texts, linked from the page where it stands (the studies' paths
    # start at the results folder: "results/tune-pond/...", which the page in results/ would
    # read as results/results/tune-pond/...)
    for p in proposals:
        for v in p["variants"]:
            v["sheets"] = {k: _relative(path, out_dir) for k, path in v["sheets"].items()}
        var = (p["answer"] or {}).get("variant") or {}
        if var.get("booklet"):
            var["booklet"] = {k: _relative(path, out_dir) for k, path in var["booklet"].items()}
    paths = []
    for lang, name in FILES.items():
        path = Path(out_dir) / name
        write_text(path, lab_page(proposals, meta, lang))
        paths.append(path)
    return paths
