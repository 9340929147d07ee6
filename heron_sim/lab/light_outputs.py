"""What a lighter game's study writes (:mod:`.light`), the same files as the Héron studies':

- ``summary.json``: the finding, the base's evidence, every finalist's paired evidence;
- ``front.md`` / ``front.csv``: the finalists in the designer's order, with intervals;
- ``search.csv``: every rule set played on the search games (ladder and trials);
- ``variants/<name>-<rank>-<id>.toml``: each reported variant as a rules file of the game
  (``heron-sim game simulate GAME --rules FILE``);
- ``sheet-<id>.fr.md`` / ``sheet-<id>.en.md``: the rule sheet of each reported variant, in French
  and English, in the game's words: each rule changed, what it means (the game's
  ``data/words.toml``, :func:`heron_sim.games.base.rules_words`), the rulings' value and the
  proposed one, and what the change does at each table.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from ..io import clean_json, mkdir, write_json, write_text
from .light import LIGHT_METRICS, LightSpec, _fmt, _fmt_v, _get_path, _iv
from .light_page import STRATEGIES, light_table_words  # noqa: F401 - one word per player (the sheets, the tests)
from .outputs import _toml_key, _toml_value, study_summaries

_DECISIONS = ("passes", "fails (decisive)", "undecided (underpowered)", "likely fails (not decisive)")
_WORDS = {
    "en": {"sheet": "Proposed rules", "variant": "variant", "study": "study", "changes": "Rules changed",
           "rule": "rule", "meaning": "what it means", "rulings": "rulings", "proposed": "proposed",
           "effects": "What the change does (fresh games, paired with the rulings)", "table": "table",
           "metric": "measure", "ruling_v": "rulings", "variant_v": "variant", "diff": "difference [95 %]",
           "finding": "The study's finding", "games": "games a table", "how": "How to play it",
           "use": "Play it: `heron-sim game simulate {game} --rules {file}`",
           "metrics": {"first_player_advantage": "first player's advantage (seat 1's share − fair)",
                       "seat_gap": "largest seat gap to fair", "seat_spread": "spread of the seats' shares",
                       "length": "length of a game", "unfinished": "unfinished games",
                       "shared_wins": "shared wins"},
           "verdict": {"better": "better", "worse": "worse", "no clear difference": "no clear difference"},
           "goal": "goal", "decision": {d: d for d in _DECISIONS},
           "booklet": "The booklet's text", "booklet_link": "The rule and its change as the booklet would write them: [{file}]({file}).",
           "no_change": "**For information only**: the rulings already meet every goal of the study.",
           "not_better": "**For information only**: this variant is not shown better than the rulings on any "
                         "objective of the study (keep the rulings on this evidence)."},
    "fr": {"sheet": "Règles proposées", "variant": "variante", "study": "étude", "changes": "Règles modifiées",
           "rule": "règle", "meaning": "ce qu'elle dit", "rulings": "règles actuelles", "proposed": "proposée",
           "effects": "Ce que change la variante (nouvelles parties, jouées aussi avec les règles actuelles, mêmes dés)", "table": "table",
           "metric": "mesure", "ruling_v": "règles actuelles", "variant_v": "variante",
           "diff": "différence [95 %]", "finding": "Conclusion de l'étude", "games": "parties par table",
           "how": "Pour la jouer",
           "use": "La jouer : `heron-sim game simulate {game} --rules {file}`",
           "metrics": {"first_player_advantage": "avantage du premier joueur (part du joueur 1 − part équitable)",
                       "seat_gap": "plus grand écart d'une place à sa part équitable",
                       "seat_spread": "écart entre les parts des places", "length": "durée d'une partie",
                       "unfinished": "parties inachevées", "shared_wins": "victoires partagées"},
           "verdict": {"better": "meilleure", "worse": "moins bonne",
                       "no clear difference": "pas de différence nette"},
           "booklet": "Texte du livret",
           "booklet_link": "La règle et son changement comme le livret les écrirait : [{file}]({file}).",
           "goal": "objectif", "decision": dict(zip(_DECISIONS, (
               "atteint (95 %)", "manqué (décisif)", "indécis (trop peu de parties)", "probablement manqué (non décisif)"))),
           "no_change": "**À titre d'information** : les règles actuelles atteignent déjà tous les objectifs de l'étude.",
           "not_better": "**À titre d'information** : cette variante ne fait mieux que les règles actuelles sur aucun "
                         "objectif de l'étude (garder les règles actuelles, en l'état des mesures)."},
}


def _pct(x) -> str:
    return f"{100 * x:+z.1f} %" if x is not None and math.isfinite(x) else "n/a"


def write_light_outputs(spec: LightSpec, result: dict, folder: Path) -> dict:
    folder = mkdir(folder)
    fin = result["finalists"]
    shown = fin[:max(spec.report, 1)]
    paths: dict = {}
    doc = {"name": spec.name, "game": spec.game.name, "title": spec.title, "description": spec.description,
           "seed": spec.seed, "panel": [{"name": t.name, "players": t.players, "seating": list(t.seating)}
                                        for t in spec.tables],
           "aggregate": spec.aggregate, "objectives": [o.describe() for o in spec.objectives],
           "constraints": [c.describe() for c in spec.constraints],
           "space": [p.describe() for p in spec.params], "games": spec.games, "rungs": list(spec.rungs),
           "trials": result["trials"], "ladder_played": result["ladder_played"],
           "games_played": result["games_played"], "games_total": result["games_total"],
           "seconds": result["seconds"], "finding": result["finding"],
           "base_digest": spec.build({}).digest(), "base_evidence": result["base"], "finalists": fin}
    paths["summary"] = write_json(folder / "summary.json", clean_json(doc), indent=1)
    rows = []
    for e in fin:
        r = {"rank": e["rank"], "id": e["id"], "source": e["source"], "n_changed": e["n_changed"],
             "changes": e["changes"], "feasible": e["feasible"], "meets": e["meets"], "games": e["games"],
             "side_effects": len(e["side_effects"])}
        for o in e["objectives"]:
            m = o["metric"]
            r.update({f"{m}_loss": o["loss"], f"{m}_low": o["loss_low"], f"{m}_high": o["loss_high"],
                      f"{m}_base": o["base_loss"], f"{m}_diff_low": o["diff_low"], f"{m}_diff_high": o["diff_high"],
                      f"{m}_verdict": o["verdict"], f"{m}_decision": o.get("decision", "")})
        rows.append(r)
    front_csv = folder / "front.csv"
    write_text(front_csv, pd.DataFrame(rows).to_csv(index=False))
    paths["front_csv"] = front_csv
    search_csv = folder / "search.csv"
    write_text(search_csv, pd.DataFrame(result["candidates"]).to_csv(index=False))
    paths["search_csv"] = search_csv
    paths["variants"], paths["sheets"], paths["booklets"] = [], [], []
    # "No change needed" (the rulings meet every goal): the finding only, no rules file and no
    # rule sheet (issue 58 item 4); the variants stay in front.md for information.
    propose = not (result["base"] or {}).get("meets")
    vdir = mkdir(folder / "variants") if propose else None
    for e in shown if propose else []:
        vp = vdir / f"{spec.name}-{e['rank']}-{e['id']}.toml"
        write_text(vp, variant_toml(spec, e))
        paths["variants"].append(vp)
        from .light import seed_reading
        from .light_booklet import booklet_markdown

        reading = seed_reading(spec.game.name, e.get("changes_table"))
        for lang in ("fr", "en"):
            bp = folder / f"booklet-{e['id']}.{lang}.md"
            write_text(bp, booklet_markdown(spec.game, spec.base_table, e["changes_table"], e["id"], lang, reading))
            paths["booklets"].append(bp)
            sp = folder / f"sheet-{e['id']}.{lang}.md"
            write_text(sp, sheet_markdown(spec, e, result, lang, f"variants/{vp.name}", bp.name))
            paths["sheets"].append(sp)
    front_md = folder / "front.md"
    write_text(front_md, front_markdown(spec, result))
    paths["front_md"] = front_md
    return paths


def variant_toml(spec: LightSpec, e: dict) -> str:
    """The variant as a rules file of the game: the base's own keys, then the changes."""
    table: dict = json.loads(json.dumps(spec.rules_set))
    for k, v in e["changes_table"].items():
        d = table
        parts = k.split(".")
        for p in parts[:-1]:
            d = d.setdefault(p, {})
        d[parts[-1]] = v
    head = [f"Variant {e['id']} of tune study {spec.name} ({spec.game.name}, rank {e['rank']}); "
            f"base rules {spec.build({}).digest()}.",
            f"Changes ({e['n_changed']} rules): {e['changes']}",
            f"Evidence: {e['games']:,} games a table on fresh seeds (indices from {len(spec.rungs) * 1_000_000_000:,}), "
            "paired with the base:"]
    for o in e["objectives"]:
        head.append(f"  {o['objective']}: diff {_fmt(o['metric'], o['diff'])} {_iv(o['metric'], o['diff_low'], o['diff_high'])}"
                    f" -> {o['verdict']}")
    if spec.rules_file:
        head.append(f"The base also reads {spec.rules_file}: play this file's keys over it.")
    head.append(f"Use: heron-sim game simulate {spec.game.name} --rules THIS_FILE --players P")
    lines = [f"# {h}" for h in head] + [""] + _toml_table(table)
    return "\n".join(lines) + "\n"


def _toml_table(table: dict, name: str = "") -> list[str]:
    """The lines of ``table`` (``name``: its dotted header, "" at the top): its plain keys, then
    each sub-table as a ``[name.key]`` section, recursively."""
    lines, subs = [], {}
    for k, v in table.items():
        if isinstance(v, dict):
            subs[k] = v
        else:
            lines.append(f"{_toml_key(k)} = {_toml_value(v)}")
    for k, v in subs.items():
        sub = f"{name}.{_toml_key(k)}" if name else _toml_key(k)
        lines += ["", f"[{sub}]"] + _toml_table(v, sub)
    return lines


def _val(v) -> str:
    return json.dumps(v, ensure_ascii=False)


def _val_words(v, lang: str) -> str:
    """A rule's value on the French sheet as a designer writes it: « 20 / 18 / 15 » (one value per
    player count, as the meaning column says), « oui »/« non », never a Python or JSON list."""
    if lang != "fr":
        return _val(v)
    if isinstance(v, bool):
        return "oui" if v else "non"
    if isinstance(v, (list, tuple)):
        return " / ".join(_val_words(x, lang) for x in v) or "aucune"
    return _val(v)


def _finding_fr(e: dict, result: dict, game: str = "") -> str:
    """The study's conclusion in French, from its figures (the English finding is the lab's
    working text): the answer, the variant ranked first, its goal tests and constraints."""
    base = result["base"] or {}
    n = e["n_changed"]
    rules = f"{n} règle modifiée" if n == 1 else f"{n} règles modifiées"
    if base.get("meets"):
        text = ("Aucun changement nécessaire : les règles actuelles atteignent déjà chaque objectif avec 95 % de "
                "confiance. Les variantes sont montrées à titre d'information.")
    elif not any(o["verdict"] == "better" for f in result["finalists"] for o in f["objectives"]):
        text = ("Aucune variante ne fait mieux que les règles actuelles sur un objectif : l'étude n'a pas trouvé de "
                "changement qui corrige ce qu'elle mesure, ce qui ne montre pas que les règles actuelles vont bien. "
                f"La mieux classée : la variante {e['id']} ({rules}).")
        tell = [o["games_to_tell"] for o in e["objectives"] if o.get("games_to_tell")]
        if tell:
            text += (f" Pour la distinguer des règles actuelles, il faudrait environ {min(tell):,} parties par table "
                     f"(d'après l'écart observé sur {e['games']:,}, si la différence se maintenait).")
    elif e.get("meets"):
        text = (f"Le plus petit changement qui atteint chaque objectif de l'étude avec 95 % de confiance à chaque "
                f"table : la variante {e['id']} ({rules}).")
    else:
        text = (f"Aucune variante n'atteint chaque objectif avec 95 % de confiance à chaque table ; la mieux "
                f"classée : la variante {e['id']} ({rules}).")
    from ..i18n import gettext
    from .light import READING_WORDS, seed_reading

    reading = seed_reading(game or result.get("game") or "", e.get("changes_table"))
    if reading:
        text += " " + READING_WORDS["fr"].format(reading=gettext(reading, "fr"))
    bad = [c for c in e.get("constraints", []) if not c.get("holds")]
    if e.get("constraints"):
        tables = sorted({light_table_words(c["table"], "fr") for c in bad})
        text += (" Les contraintes tiennent à chaque table." if not bad else
                 " Une contrainte n'est pas tenue à " + (f"{len(tables)} tables" if len(tables) > 1 else "une table")
                 + " : " + ", ".join(tables) + ".")
    from .light_page import page_words

    nothing = not any(o["verdict"] == "better" for f in result["finalists"] for o in f["objectives"])
    if base.get("page") and not base["page"]["meets"] and (nothing or not e.get("meets")):
        text += " " + page_words(base["page"], "fr", "rulings")
    page = e.get("page")
    if page:
        text += " " + page_words(page, "fr")
        if e.get("meets") and not page["meets"]:
            misses = any(x == "misses" for x in page["tables"].values())
            text += (" Elle atteint donc les objectifs de l'étude, mais " + ("manque les cibles de la page" if misses
                     else "ne montre pas encore qu'elle atteint les cibles de la page")
                     + " : ce n'est pas une correction des problèmes du jeu.")
    return text


def _french(text: str) -> str:
    """Numbers the French way and tables in words, code spans left as they are."""
    import re

    from ..i18n import counted, numbers_in

    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for i, p in enumerate(parts):
        if i % 2:
            out.append(p)
            continue
        p = counted(numbers_in(p, "fr"), "fr")  # « 0,0 point [−1,2 ; 1,2] »
        p = re.sub(r"(?<![\w/.-])[a-z]+(?:\+[a-z]+)*-\d(?![\w/.-])", lambda m: light_table_words(m.group(0), "fr"), p)
        out.append(p)
    return "".join(out)


_PAGE = {
    "en": {"title": "Against the game page's own targets", "target": "target",
           "state": {"meets": "met", "misses": "missed", "not settled": "not settled"}},
    "fr": {"title": "Face aux cibles de la page du jeu", "target": "cible",
           "state": {"meets": "atteinte", "misses": "manquée", "not settled": "non tranchée"}},
}


def _page_section(e: dict, result: dict, lang: str) -> list[str]:
    """The sheet's table of the game page's targets at every table of the study: the length, the
    seat farthest from fair and the unfinished games, for the rulings and the proposal, each with
    its interval, and whether the proposal meets the target (:mod:`.light_page`)."""
    from ..i18n import interval
    from .light_page import page_words

    page, bpage = e.get("page"), (result.get("base") or {}).get("page")
    if not page:
        return []
    W, P = _WORDS[lang], _PAGE[lang]
    out = ["", f"## {P['title']}", "", page_words(page, lang), "",
           f"| {W['table']} | {P['target']} | {W['ruling_v']} | {W['variant_v']} | {W['variant_v']} : {P['target']} |"
           if lang == "fr" else
           f"| {W['table']} | {P['target']} | {W['ruling_v']} | {W['variant_v']} | {W['variant_v']}: {P['target']} |",
           "|---|---|---|---|---|"]

    def fig(c):
        if c is None:
            return "n/a"
        if c["target"] == "length":
            return interval(c["value"], c["low"], c["high"], 2, lang)
        return interval(100 * c["value"], 100 * c["low"], 100 * c["high"], 1, lang, suffix=" %")

    for t in page["tables"]:
        cs = [c for c in page["checks"] if c["table"] == t]
        bs = [c for c in (bpage or {}).get("checks", []) if c["table"] == t]
        for target in ("length", "seat", "unfinished"):
            mine = [c for c in cs if c["target"] == target]
            if not mine:
                continue
            c = max(mine, key=lambda c: abs(c["value"] - sum(c["band"]) / 2))
            b = next((x for x in bs if x["target"] == target and x["seat"] == c["seat"]), None)
            a, z = c["band"]
            from ..i18n import number

            if target == "length":
                what = (f"durée, de {number(a, 0, lang)} à {number(z, 0, lang)} tours de table" if lang == "fr"
                        else f"length, {a:g}–{z:g} rounds")
            elif target == "seat":
                fair = 100 * (a + z) / 2
                fs = number(fair, 0 if round(fair, 1).is_integer() else 1, lang)
                ms = number(100 * (z - a) / 2, 0, lang)
                what = (f"joueur {c['seat']}, {fs} % ±{ms} points" if lang == "fr"
                        else f"seat {c['seat']}, {fs} % ±{ms} points")
            else:
                cs_ = number(100 * z, 0, lang)
                what = (f"parties inachevées, au plus {cs_} %" if lang == "fr" else f"unfinished, at most {cs_} %")
            state = P["state"][c["state"]]
            if c["state"] == "not settled" and c.get("games_needed"):
                state += (f" (environ {number(c['games_needed'], 0, lang)} parties par table le trancheraient)"
                          if lang == "fr" else f" (about {c['games_needed']:,} games a table would settle it)")
            out.append(f"| {light_table_words(t, lang)} | {what} | {fig(b)} | {fig(c)} | {state} |")
    return out


def sheet_markdown(spec: LightSpec, e: dict, result: dict, lang: str, vfile: str, booklet: str | None = None) -> str:
    """A rule sheet a designer can print: the rules changed in the game's words, then what the
    change does at each table of the panel."""
    from ..games.base import game_words, rules_words

    W = _WORDS[lang]
    words = rules_words(spec.game)
    gname = game_words(spec.game)[lang]
    from ..i18n import gettext

    title = gettext(" ".join(str(spec.title).split()), lang)
    if lang == "fr" and title == f"Tuning study {spec.name} ({spec.game.title})":  # the default title
        title = f"étude {spec.name} ({gname})"
    out = [f"# {W['sheet']} — {gname} — {W['variant']} {e['id']}", "",
           f"{W['study']} `{spec.name}` : {title}" if lang == "fr" else f"{W['study']} `{spec.name}`: {title}", ""]
    if result["base"].get("meets"):
        out += [W["no_change"], ""]
    elif not any(o["verdict"] == "better" for o in e["objectives"]):
        out += [W["not_better"], ""]
    out += [f"## {W['changes']}", "",
           f"| {W['rule']} | {W['meaning']} | {W['rulings']} | {W['proposed']} |", "|---|---|---|---|"]
    for k, v in e["changes_table"].items():
        meaning = words.get(k, {}).get(lang, k).replace("|", "/")
        out.append(f"| `{k}` | {meaning} | {_val_words(_get_path(spec.base_table, k), lang)} | {_val_words(v, lang)} |")
    out += ["", f"## {W['effects']}", "", f"{e['games']:,} {W['games']}.", "",
            f"| {W['table']} | {W['metric']} | {W['ruling_v']} | {W['variant_v']} |", "|---|---|---|---|"]
    for o in e["objectives"]:
        for t in o["tables"]:
            out.append(f"| {t['table']} | {W['metrics'][o['metric']]} | {_fmt_v(o['metric'], t['base'])} | "
                       f"{_fmt_v(o['metric'], t['variant'])} |")
    out.append("")
    for o in e["objectives"]:
        out.append(f"- {W['metrics'][o['metric']]}{' :' if lang == 'fr' else ':'} {W['verdict'][o['verdict']]} "
                   f"({_fmt(o['metric'], o['diff'])} {_iv(o['metric'], o['diff_low'], o['diff_high'])})"
                   + (f" ; {W['goal']} : {W['decision'][o['decision']]}" if "decision" in o and lang == "fr" else
                      f"; {W['goal']}: {W['decision'][o['decision']]}" if "decision" in o else ""))
    for x in e["side_effects"][:8]:
        out.append(f"- {W['metrics'][x['metric']]} ({x['table']}){' :' if lang == 'fr' else ':'} {_fmt_v(x['metric'], x['base'])} → "
                   f"{_fmt_v(x['metric'], x['variant'])}")
    out += _page_section(e, result, lang)
    if booklet:
        out += ["", f"## {W['booklet']}", "", W["booklet_link"].format(file=booklet)]
    out += ["", f"## {W['how']}", "", W["use"].format(game=spec.game.name, file=vfile), ""]
    if e["rank"] == 1:
        out += [f"## {W['finding']}", "", _finding_fr(e, result, spec.game.name) if lang == "fr" else result["finding"], ""]
    text = "\n".join(out).rstrip() + "\n"
    return _french(text) if lang == "fr" else text


def front_markdown(spec: LightSpec, result: dict) -> str:
    fin = result["finalists"]
    out = [f"# {spec.title}", "", f"Game: **{spec.game.title}** (`{spec.game.name}`). {spec.description}".rstrip(), "",
           "## Finding", "", result["finding"], "",
           "## The study", "",
           f"- Panel ({spec.aggregate} over the tables): " + ", ".join(
               f"{t.name} ({t.players} players, {' / '.join(t.seating)} rotated over the seats)" for t in spec.tables),
           f"- Objectives: {'; '.join(o.describe() for o in spec.objectives)}",
           f"- Constraints: {'; '.join(c.describe() for c in spec.constraints) or 'none'}",
           f"- Space: {'; '.join(p.describe() for p in spec.params)}",
           f"- Search: the ladder ({result['ladder_played']} rule sets, up to {spec.ladder_max_keys} keys) and "
           f"{result['trials']} random trials on {spec.games:,} games a table (the same games for every candidate); "
           f"racing on fresh seeds: {', '.join(f'{x:,}' for x in spec.rungs)} games a table; the evidence from the "
           f"last rung only ({result['last_games']:,} games a table, paired with the base, Poisson bootstrap).",
           f"- {result['games_total']:,} games in the study ({result['games_played']:,} played by this run, in "
           f"{result['seconds']:.0f} s; the others read from its run folder); seed {spec.seed}.", ""]
    base = result["base"]
    if base.get("headline"):
        out += ["## The rulings on the last rung", "", "| table | " + " | ".join(base["headline"]) + " |",
                "|---|" + "---|" * len(base["headline"])]
        for t in spec.tables:
            out.append(f"| {t.name} | " + " | ".join(_fmt_v(m, base["headline"][m][t.name]) for m in base["headline"])
                       + " |")
        out.append("")
    out += ["## Finalists, in the designer's order", "",
            "| rank | id | rules | changes | " + " | ".join(
                f"{o.metric} loss{' (points)' if LIGHT_METRICS[o.metric][1] == 'share' else ''} [95 %] (base)"
                for o in spec.objectives)
            + " | verdicts | goal tests | feasible | side effects |",
            "|---|---|---|---|" + "---|" * len(spec.objectives) + "---|---|---|---|"]
    for e in fin:
        objs = " | ".join(f"{_fmt(o['metric'], o['loss'], False)} {_iv(o['metric'], o['loss_low'], o['loss_high'])} "
                          f"({_fmt(o['metric'], o['base_loss'], False)})"
                          for o in e["objectives"])
        out.append(f"| {e['rank']} | {e['id']} | {e['n_changed']} | {e['changes'].replace('|', '/')} | {objs} | "
                   + ", ".join(o["verdict"] for o in e["objectives"]) + " | "
                   + (", ".join(o.get("decision", "-") for o in e["objectives"])) + f" | "
                   f"{'yes' if e['feasible'] else 'no'} | {len(e['side_effects'])} |")
    out += ["", "## Every table, per finalist", ""]
    for e in fin[:spec.report]:
        out.append(f"### {e['id']}: {e['changes']}")
        out.append("")
        out.append("| table | " + " | ".join(f"{o['metric']} base → variant" for o in e["objectives"]) + " |")
        out.append("|---|" + "---|" * len(e["objectives"]))
        for i, t in enumerate(spec.tables):
            out.append(f"| {t.name} | " + " | ".join(
                f"{_fmt_v(o['metric'], o['tables'][i]['base'])} → {_fmt_v(o['metric'], o['tables'][i]['variant'])}"
                for o in e["objectives"]) + " |")
        bad = [c for c in e["constraints"] if not c["holds"]]
        if bad:
            out.append("")
            out.append("Constraints violated: " + "; ".join(
                f"{c['constraint']} at {c['table']} ({_pct(c.get('relative_change'))})" if "relative_change" in c
                else f"{c['constraint']} at {c['table']}" for c in bad))
        out.append("")
    out += [f"Metrics: " + "; ".join(f"`{m}`: {w}" for m, (w, _) in LIGHT_METRICS.items()) + ".", ""]
    return "\n".join(out)


def light_answers(results_root: str | Path = "results") -> dict[str, list[dict]]:
    """What each lighter game's study answers, for its page's "what to change": game name ->
    one entry per study under ``results_root/tune-*/summary.json`` naming it, with ``answer``
    ("no change needed"; "fix": the variant ranked first meets the study's goals and the game page's
    own targets at every table; "study goals only": it meets the goals, not the page's targets;
    "none shown better": no variant is shown better than the rulings, which miss the goals; or
    "no fix"), the page's targets in words (``page``, ``base_page`` where the rulings miss them,
    ``en`` and ``fr``), ``games_to_tell`` (the games a table that would tell the first variant from
    the rulings), ``finding``, ``folder``, the
    tables and the variant ranked first (id, changes, rules changed, rules file, sheets, goal
    decisions)."""
    out: dict[str, list[dict]] = {}
    for path, s in study_summaries(results_root, heron=False):
        fin = s.get("finalists") or []
        first = fin[0] if fin else None
        from .light_page import page_words

        base_page = (s.get("base_evidence") or {}).get("page")
        page = (first or {}).get("page")
        if (s.get("base_evidence") or {}).get("meets"):
            answer = "no change needed"
        elif first is not None and first.get("meets"):
            # a fix only if it also meets the game page's own targets at every table (issue 58 item 7)
            answer = "fix" if page is None or page["meets"] else "study goals only"
        elif fin and not any(o["verdict"] == "better" for e in fin for o in e["objectives"]):
            answer = "none shown better"  # not "keep the rulings": they miss the study's goals
        else:
            answer = "no fix"
        tell = [o["games_to_tell"] for o in (first or {}).get("objectives", []) if o.get("games_to_tell")]
        entry = {"study": s["name"], "title": s["title"], "answer": answer, "finding": s["finding"],
                 "folder": str(path.parent), "tables": [t["name"] for t in s.get("panel", [])], "variant": None,
                 "page": {lang: page_words(page, lang) for lang in ("en", "fr")} if page else None,
                 "page_meets": None if page is None else bool(page["meets"]),
                 "base_page": ({lang: page_words(base_page, lang, "rulings") for lang in ("en", "fr")}
                               if base_page and not base_page["meets"] else None),
                 "games_to_tell": min(tell) if tell else None}
        if first is not None:
            vfile = path.parent / "variants" / f"{s['name']}-{first['rank']}-{first['id']}.toml"
            entry["variant"] = {
                "id": first["id"], "changes": first["changes"], "n_changed": first["n_changed"],
                "rules_file": str(vfile) if vfile.is_file() else None,
                "sheets": {k: str(path.parent / f"sheet-{first['id']}.{k}") for k in ("fr.md", "en.md")
                           if (path.parent / f"sheet-{first['id']}.{k}").is_file()},
                "decisions": [o.get("decision") for o in first["objectives"] if o.get("goal") is not None]}
        out.setdefault(s["game"], []).append(entry)
    return out
