"""A lighter game's study judged against its page's own targets (issue 58 item 7).

The game's page (heron_sim.analysis.game_verdict) judges the rulings against the designer's
targets for the game (``[game.NAME]`` of experiments/targets.toml, the same
:data:`heron_sim.analysis.judge.TARGETS`): the length in rounds at each player count
(``length_rounds``), every seat within ``share_margin`` of its fair share, at most
``unfinished_ceiling`` of games stopped by the round cap. A study has its own goals (e.g. "at
least three rounds"); an answer that meets them may still miss the page's targets (Rampage's
« every building captured » lasts 5.85 rounds with four wreckers, against 6–15). So every
finalist's and the base's last-rung games are judged here against the page's targets, table by
table of the study's panel, each figure with its bootstrap 95 % interval (the study's own
weights):

- ``meets``: the whole interval lies within the target (the length within its span, a seat
  within fair ± the margin, the unfinished share at most the ceiling);
- ``misses``: the whole interval lies outside it;
- ``not settled``: else, with the games a table that would decide it from the observed spread
  (the interval's half-width shrinking as 1/√n, if the estimate held).

The page's length margin only sizes how wrong the rulings are (a "problem" beyond one margin);
a proposal is asked to land within the target itself. A length in player turns (the game's doc
says so) is divided by the players, as the page does.
"""

from __future__ import annotations

import math

import numpy as np

#: The states of one figure against its target.
STATES = ("meets", "misses", "not settled")


def page_targets(game: str):
    """The game page's targets (:class:`heron_sim.analysis.targets.GameTargets`)."""
    from ..analysis.judge import TARGETS

    return TARGETS.game(game)


def rounds_factor(game, players: int) -> float:
    """What turns the lab's length (the game's unit) into rounds: 1/players for a game counted
    in player turns (its doc: "`length` is counted in **player turns**"), else 1."""
    from ..runner.kinds.games import light_unit

    return 1.0 / players if "turn" in light_unit(game) else 1.0


def _ci(est: float, boot: np.ndarray) -> tuple[float, float]:
    b = boot[np.isfinite(boot)]
    if not len(b):
        return est, est
    lo, hi = float(np.percentile(b, 2.5)), float(np.percentile(b, 97.5))
    return min(lo, est), max(hi, est)


def judge(est: float, lo: float, hi: float, band: tuple[float, float], n: int) -> tuple[str, int | None]:
    """One figure against its target ``band`` = [low, high]: its state and, when not settled,
    about how many games a table would settle it if the estimate held."""
    a, b = band
    if a <= lo and hi <= b:
        return "meets", None
    if hi < a or lo > b:
        return "misses", None
    if not math.isfinite(est):
        return "not settled", None
    if est < a:
        d, hw = a - est, hi - est
    elif est > b:
        d, hw = est - b, est - lo
    else:  # inside: the nearer edge the interval crosses
        d, hw = min(est - a if lo < a else math.inf, b - est if hi > b else math.inf), (hi - lo) / 2
    need = int(math.ceil(n * (hw / d) ** 2)) if d > 1e-12 and math.isfinite(d) else None
    return "not settled", need


def page_check(spec, gs: list, Ws: list[np.ndarray], n: int) -> dict:
    """The page's targets at every table of ``spec``'s panel for one rule set's last-rung games
    ``gs`` (one :class:`heron_sim.lab.light.Games` per table) with the study's bootstrap weights
    ``Ws``: every figure's check, each table's state, and the whole's."""
    t = page_targets(spec.game.name)
    margin, ceiling = float(t["share_margin"]), float(t["unfinished_ceiling"])
    checks = []
    for table, g, W in zip(spec.tables, gs, Ws):
        P = table.players
        span = t.rounds(P)
        if span is not None:
            f = rounds_factor(spec.game, P)
            fin = g.finished.astype(np.float64)
            with np.errstate(invalid="ignore", divide="ignore"):
                est = float((g.length * fin).sum() / fin.sum()) * f
                boot = (W.T @ (g.length * fin)) / (W.T @ fin) * f
            lo, hi = _ci(est, boot)
            state, need = judge(est, lo, hi, (float(span[0]), float(span[1])), n)
            checks.append({"table": table.name, "players": P, "target": "length", "seat": None, "value": est,
                           "low": lo, "high": hi, "band": [float(span[0]), float(span[1])], "state": state,
                           "games_needed": need})
        S = g.shares
        dec = (S.sum(axis=1) > 0.5).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            sh = S.sum(axis=0) / dec.sum()
            bsh = (W.T @ S) / (W.T @ dec)[:, None]
        fair = 1.0 / P
        for s in range(P):
            est = float(sh[s])
            lo, hi = _ci(est, bsh[:, s])
            state, need = judge(est, lo, hi, (fair - margin, fair + margin), n)
            checks.append({"table": table.name, "players": P, "target": "seat", "seat": s + 1, "value": est,
                           "low": lo, "high": hi, "band": [fair - margin, fair + margin], "state": state,
                           "games_needed": need})
        unf = 1.0 - g.finished.astype(np.float64)
        est = float(unf.mean()) if len(unf) else 0.0
        lo, hi = _ci(est, (W.T @ unf) / W.sum(axis=0))
        state, need = judge(est, lo, hi, (0.0, ceiling), n)
        checks.append({"table": table.name, "players": P, "target": "unfinished", "seat": None, "value": est,
                       "low": lo, "high": hi, "band": [0.0, ceiling], "state": state, "games_needed": need})
    tables = {}
    for table in spec.tables:
        st = [c["state"] for c in checks if c["table"] == table.name]
        tables[table.name] = "misses" if "misses" in st else "not settled" if "not settled" in st else "meets"
    played = sorted({tb.players for tb in spec.tables})
    return {"section": f"[game.{spec.game.name}]", "file": "experiments/targets.toml",
            "length": {str(p): list(t.rounds(p)) for p in played if t.rounds(p) is not None},
            "share_margin": margin, "unfinished_ceiling": ceiling,
            "assumed": t.assumed(), "checks": checks, "tables": tables,
            "meets": all(s == "meets" for s in tables.values()),
            "counts_not_played": [p for p in range(spec.game.min_players, spec.game.max_players + 1)
                                  if p not in played]}


# ---------------------------------------------------------------- in words
def _num(x: float, d: int, lang: str) -> str:
    from ..i18n import number

    return number(x, d, lang)


def _figure(c: dict, lang: str) -> str:
    """One check in words: "length 5.85 rounds [5.78, 5.92] against 6–15" / « durée 5,85 tours
    de table [5,78 ; 5,92] pour une cible de 6 à 15 »."""
    from ..i18n import interval

    a, b = c["band"]
    if c["target"] == "length":
        iv = interval(c["value"], c["low"], c["high"], 2, lang)
        return (f"durée {iv} tours de table pour une cible de {_num(a, 0, 'fr')} à {_num(b, 0, 'fr')}" if lang == "fr"
                else f"length {iv} rounds against {a:g}–{b:g}")
    iv = interval(100 * c["value"], 100 * c["low"], 100 * c["high"], 1, lang, suffix=" %")
    if c["target"] == "seat":
        fair = (a + b) / 2
        m = round(100 * (b - a) / 2, 6)
        fair_s = _num(100 * fair, 0 if round(100 * fair, 1).is_integer() else 1, lang)
        m_s = _num(m, 0 if float(m).is_integer() else 1, lang)
        return (f"joueur {c['seat']} {iv} pour une part équitable de {fair_s}\u00a0% à ±{m_s} point"
                + ("s" if m >= 2 else "") if lang == "fr"
                else f"seat {c['seat']} {iv} against a fair {fair_s} % ± {m_s} point" + ("s" if m != 1 else ""))
    ceil = _num(100 * b, 0 if round(100 * b, 1).is_integer() else 1, lang)
    return (f"parties inachevées {iv} pour un plafond de {ceil}\u00a0%" if lang == "fr"
            else f"unfinished games {iv} against a ceiling of {ceil} %")


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


def _table(name: str, lang: str) -> str:
    return light_table_words(name, lang)


def _table_misses(checks: list[dict], state: str, lang: str) -> str:
    """A table's figures in ``state``: the length, the seat farthest from fair (and how many other
    seats with it), the unfinished share."""
    out = []
    for target in ("length", "seat", "unfinished"):
        cs = [c for c in checks if c["target"] == target and c["state"] == state]
        if not cs:
            continue
        c = max(cs, key=lambda c: abs(c["value"] - sum(c["band"]) / 2))
        s = _figure(c, lang)
        if state == "not settled" and c.get("games_needed"):
            s += (f", environ {_num(c['games_needed'], 0, 'fr')} parties par table le trancheraient" if lang == "fr"
                  else f", about {c['games_needed']:,} games a table would settle it")
        if target == "seat" and len(cs) > 1:
            k = len(cs) - 1
            s += ((f" (et {k} autre joueur)" if k == 1 else f" (et {k} autres joueurs)") if lang == "fr"
                  else f" (and {k} other seat{'s' if k > 1 else ''})")
        out.append(s)
    return ", ".join(out)


def targets_words(page: dict, lang: str) -> str:
    """The page's targets in one clause: "length 6–15 rounds, every seat within ±2 points of its
    fair share, at most 1 % of games unfinished"."""
    spans = sorted({tuple(v) for v in page["length"].values()})
    m = round(100 * page["share_margin"], 6)
    m_s = _num(m, 0 if float(m).is_integer() else 1, lang)
    c = round(100 * page["unfinished_ceiling"], 6)
    c_s = _num(c, 0 if float(c).is_integer() else 1, lang)
    if lang == "fr":
        length = " ou ".join(f"de {_num(a, 0, 'fr')} à {_num(b, 0, 'fr')} tours de table" for a, b in spans)
        parts = ([f"une durée {length}"] if spans else []) + [
            f"chaque joueur à ±{m_s} point{'s' if m >= 2 else ''} de sa part équitable",
            f"au plus {c_s}\u00a0% de parties inachevées"]
        return ", ".join(parts)
    length = " or ".join(f"{a:g}–{b:g} rounds" for a, b in spans)
    parts = ([f"length {length}"] if spans else []) + [
        f"every seat within ±{m_s} point{'s' if m != 1 else ''} of its fair share",
        f"at most {c_s} % of games unfinished"]
    return ", ".join(parts)


def page_words(page: dict, lang: str, who: str = "it") -> str:
    """The page's targets at every table in sentences: which tables meet them, which miss them
    (each with its figures and intervals), which are not settled (with the games that would
    settle them), and the player counts the study's panel leaves out.

    ``who``: "it" (the proposal) or "rulings" (the rules as they are)."""
    tables = page["tables"]
    n = len(tables)
    met = [t for t, s in tables.items() if s == "meets"]
    miss = [t for t, s in tables.items() if s == "misses"]
    open_ = [t for t, s in tables.items() if s == "not settled"]

    def listed(names, state):
        sep = " ; " if lang == "fr" else "; "
        return sep.join(f"{_table(t, lang)}{' : ' if lang == 'fr' else ': '}"
                        f"{_table_misses([c for c in page['checks'] if c['table'] == t], state, lang)}" for t in names)

    if lang == "fr":
        subj = "la proposition" if who == "it" else "les règles actuelles"
        verb_meet, verb_miss = ("les atteint", "les manque") if who == "it" else ("les atteignent", "les manquent")
        head = (f"Face aux cibles de la page du jeu ({page['file']}, {page['section']} : {targets_words(page, 'fr')}), "
                f"à {'chacune des ' + str(n) + ' tables' if n > 1 else 'sa table'} de l'étude, ")
        if not miss and not open_:
            return head + f"{subj} {verb_meet} partout." + _not_played(page, lang)
        bits = []
        if met:
            bits.append(f"{subj} {verb_meet} à {_count_tables(len(met), 'fr')}")
        if miss:
            bits.append(("" if bits else f"{subj} ") + f"{verb_miss} à {_count_tables(len(miss), 'fr')} ("
                        + listed(miss, "misses") + ")")
        if open_:
            bits.append(("" if bits else f"{subj} ") + f"ne les tranche{'nt' if who != 'it' else ''} pas à "
                        f"{_count_tables(len(open_), 'fr')} (" + listed(open_, "not settled") + ")")
        return head + (", ".join(bits[:-1]) + " et " + bits[-1] if len(bits) > 1 else bits[0]) + "." + \
            _not_played(page, lang)
    subj = "it" if who == "it" else "the rulings"
    verbs = ("meets", "misses", "does not settle") if who == "it" else ("meet", "miss", "do not settle")
    head = (f"Against the game page's own targets ({page['file']}, {page['section']}: {targets_words(page, 'en')}), "
            f"at {'each of the ' + str(n) + ' tables' if n > 1 else 'the table'} of the study, ")
    if not miss and not open_:
        return head + f"{subj} {verbs[0]} them everywhere." + _not_played(page, lang)
    bits = []
    if met:
        bits.append(f"{subj} {verbs[0]} them at {_count_tables(len(met), 'en')}")
    if miss:
        bits.append(("" if bits else f"{subj} ") + f"{verbs[1]} them at {_count_tables(len(miss), 'en')} ("
                    + listed(miss, "misses") + ")")
    if open_:
        bits.append(("" if bits else f"{subj} ") + f"{verbs[2]} them at {_count_tables(len(open_), 'en')} ("
                    + listed(open_, "not settled") + ")")
    return head + (", ".join(bits[:-1]) + " and " + bits[-1] if len(bits) > 1 else bits[0]) + "." + \
        _not_played(page, lang)


def _count_tables(k: int, lang: str) -> str:
    if lang == "fr":
        return "une table" if k == 1 else f"{k} tables"
    return "one table" if k == 1 else f"{k} tables"


def _not_played(page: dict, lang: str) -> str:
    left = page.get("counts_not_played") or []
    if not left:
        return ""
    ps = ", ".join(map(str, left))
    if lang == "fr":
        return f" L'étude ne joue pas {'la partie à' if len(left) == 1 else 'les parties à'} {ps} joueurs, que la page juge aussi."
    return f" The study does not play {ps} players, which the page also judges."


__all__ = ["STATES", "STRATEGIES", "light_table_words", "judge", "page_check", "page_targets", "page_words", "rounds_factor", "targets_words"]
