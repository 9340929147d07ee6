"""What to change in a lighter game, in the words of its page: the lab's study of the game when
one was run (``results/tune-<game>/``), else "no study run yet". The report reads the lab's
answers here; the analysis below it never imports the lab (tests/test_import_graph.py)."""

from __future__ import annotations

import json
from pathlib import Path

from ..i18n import gettext, number

#: Every text of this module (each has its French entry in heron_sim/locale/fr.po).
MSGIDS = (
    "No study run yet for this game.",
    "The lab's study {title} ({folder}): {finding}",
    "The lab's study ({folder}) finds a change of one rule that meets every goal with 95 % confidence: see its rule sheet ({sheet}).",
    "The lab's study ({folder}) finds a change of {n} rules that meets every goal with 95 % confidence: see its rule sheet ({sheet}).",
    "The lab's study ({folder}): no variant is shown better than the rulings; keep them.",
    "The lab's study ({folder}): no change of its space meets every goal; the closest is its rule sheet ({sheet}).",
    "The lab's study ({folder}): the rulings already meet every goal; no change needed.",
    "The lab's study ({folder}) finds a change that meets its own goals with 95 % confidence but not this page's "
    "targets, so it is not a fix of the game's problems: {page} Its rule sheet: {sheet}.",
    "The lab's study ({folder}) found no change that fixes the game's problems: no variant of its space is shown "
    "better than the rulings, which does not show them fine. {page}",
    "The lab's study ({folder}) found no change that fixes the game's problems: no variant of its space is shown "
    "better than the rulings, which does not show them fine. {page} Telling its best variant from the rulings "
    "would take about {n} games a table.",
)


def _t(msgid: str, lang: str, **kw) -> str:
    assert msgid in MSGIDS, msgid  # every text is declared (and so translated)
    text = gettext(msgid, lang)
    return text.format(**kw) if kw else text


def what_to_change(game: str, results_root: str | Path = "results", lang: str = "en") -> str:
    """The verdict's "what to change": the lab's study of this game when one was run
    (``results_root/tune-<game>/summary.json``: its title and finding), else "no study run yet"."""
    folder = Path(results_root) / f"tune-{game}"
    try:
        s = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return _t("No study run yet for this game.", lang)
    if s.get("game", "heron") != "heron":  # the study's finding speaks in key ids: its answer in words
        return _study_answer(game, folder, results_root, lang)
    return _t("The lab's study {title} ({folder}): {finding}", lang, title=s.get("title", game),
              folder=f"{folder.name}/", finding=s.get("finding", ""))


def _study_answer(game: str, folder: Path, results_root, lang: str) -> str:
    """The study's answer (heron_sim.lab.light_outputs.light_answers) in the page's words: no key
    id, the rule sheet in the page's language named for the detail."""
    from ..lab.light_outputs import light_answers

    entry = next((e for e in light_answers(results_root).get(game, []) if Path(e["folder"]).name == folder.name), None)
    if entry is None:
        return _t("No study run yet for this game.", lang)
    where = f"{folder.name}/"
    v = entry.get("variant") or {}
    sheet = Path(v.get("sheets", {}).get(f"{lang}.md", "")).name
    sheet = f"{folder.name}/{sheet}" if sheet else where
    if entry["answer"] == "no change needed":
        return _t("The lab's study ({folder}): the rulings already meet every goal; no change needed.", lang, folder=where)
    if entry["answer"] == "keep the rulings":  # a summary written before issue 58 item 7
        return _t("The lab's study ({folder}): no variant is shown better than the rulings; keep them.", lang, folder=where)
    if entry["answer"] == "none shown better":
        page = (entry.get("base_page") or {}).get(lang, "")
        n = entry.get("games_to_tell")
        if n:
            return _t("The lab's study ({folder}) found no change that fixes the game's problems: no variant of its "
                      "space is shown better than the rulings, which does not show them fine. {page} Telling its best "
                      "variant from the rulings would take about {n} games a table.", lang, folder=where, page=page,
                      n=number(n, 0, lang)).replace("  ", " ")
        return _t("The lab's study ({folder}) found no change that fixes the game's problems: no variant of its space "
                  "is shown better than the rulings, which does not show them fine. {page}", lang, folder=where,
                  page=page).strip()
    if entry["answer"] == "study goals only":
        return _t("The lab's study ({folder}) finds a change that meets its own goals with 95 % confidence but not this "
                  "page's targets, so it is not a fix of the game's problems: {page} Its rule sheet: {sheet}.", lang,
                  folder=where, page=(entry.get("page") or {}).get(lang, ""), sheet=sheet)
    if entry["answer"] == "fix":
        n = int(v.get("n_changed", 1))
        msg = ("The lab's study ({folder}) finds a change of one rule that meets every goal with 95 % confidence: "
               "see its rule sheet ({sheet}).") if n == 1 else (
               "The lab's study ({folder}) finds a change of {n} rules that meets every goal with 95 % confidence: "
               "see its rule sheet ({sheet}).")
        return _t(msg, lang, folder=where, sheet=sheet, n=n)
    return _t("The lab's study ({folder}): no change of its space meets every goal; the closest is its rule sheet ({sheet}).",
              lang, folder=where, sheet=sheet)
