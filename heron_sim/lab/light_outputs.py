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
    paths["variants"], paths["sheets"] = [], []
    # "No change needed" (the rulings meet every goal): the finding only, no rules file and no
    # rule sheet (issue 58 item 4); the variants stay in front.md for information.
    propose = not (result["base"] or {}).get("meets")
    vdir = mkdir(folder / "variants") if propose else None
    for e in shown if propose else []:
        vp = vdir / f"{spec.name}-{e['rank']}-{e['id']}.toml"
        write_text(vp, variant_toml(spec, e))
        paths["variants"].append(vp)
        for lang in ("fr", "en"):
            sp = folder / f"sheet-{e['id']}.{lang}.md"
            write_text(sp, sheet_markdown(spec, e, result, lang, f"variants/{vp.name}"))
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
    lines = [f"# {h}" for h in head] + [""]
    subs = {}
    for k, v in table.items():
        if isinstance(v, dict):
            subs[k] = v
        else:
            lines.append(f"{_toml_key(k)} = {_toml_value(v)}")

    def section(name, sub):
        out = ["", f"[{name}]"]
        nested = {}
        for k, v in sub.items():
            if isinstance(v, dict):
                nested[k] = v
            else:
                out.append(f"{_toml_key(k)} = {_toml_value(v)}")
        for k, v in nested.items():
            out += section(f"{name}.{_toml_key(k)}", v)
        return out

    for k, v in subs.items():
        lines += section(_toml_key(k), v)
    return "\n".join(lines) + "\n"


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


#: The lighter games' players in French, as their pages name them (heron_sim.report.game_lang.STRATEGIES;
#: the lab does not import the report).
STRATEGIES = {"greedy": "gourmand", "random": "hasard", "cautious": "prudent", "hatcher": "couveur",
              "blocker": "bloqueur", "wrecker": "démolisseur"}


def light_table_words(name: str, lang: str) -> str:
    """A lighter game's table in words: ``greedy-2`` -> « 2 joueurs gourmands »,
    ``greedy+cautious-4`` -> « 4 joueurs, gourmand et prudent en rotation »; English: the id."""
    import re

    m = re.fullmatch(r"([a-z+]+)-(\d+)", name)
    if lang != "fr" or not m or not all(x in STRATEGIES for x in m.group(1).split("+")):
        return name
    kinds, n = m.group(1).split("+"), m.group(2)
    if len(kinds) == 1:
        w = STRATEGIES[kinds[0]]
        return f"{n} joueurs " + ("au hasard" if w == "hasard" else w + "s")
    return f"{n} joueurs, " + " et ".join(STRATEGIES[k] for k in kinds) + " en rotation"


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
        text = ("Aucune variante ne fait mieux que les règles actuelles sur un objectif : en l'état des mesures, "
                f"garder les règles actuelles. La mieux classée : la variante {e['id']} ({rules}).")
    elif e.get("meets"):
        text = (f"Le plus petit changement qui atteint chaque objectif avec 95 % de confiance à chaque table : "
                f"la variante {e['id']} ({rules}).")
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


def sheet_markdown(spec: LightSpec, e: dict, result: dict, lang: str, vfile: str) -> str:
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
    ("no change needed", "fix", "keep the rulings" or "no fix"), ``finding``, ``folder``, the
    tables and the variant ranked first (id, changes, rules changed, rules file, sheets, goal
    decisions)."""
    out: dict[str, list[dict]] = {}
    for path, s in study_summaries(results_root, heron=False):
        fin = s.get("finalists") or []
        first = fin[0] if fin else None
        if (s.get("base_evidence") or {}).get("meets"):
            answer = "no change needed"
        elif first is not None and first.get("meets"):
            answer = "fix"
        elif fin and not any(o["verdict"] == "better" for e in fin for o in e["objectives"]):
            answer = "keep the rulings"
        else:
            answer = "no fix"
        entry = {"study": s["name"], "title": s["title"], "answer": answer, "finding": s["finding"],
                 "folder": str(path.parent), "tables": [t["name"] for t in s.get("panel", [])], "variant": None}
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
