"""Replay a proposal at every table, on seeds the study never used (issue 30 items 3-4).

A proposal must hold at every table a designer will play it at, not only on the panel that chose
it. :func:`replay` plays a variant rules file (one of ``results/tune-<name>/variants/``, or any
rules file) and the study's base rules on the same fresh games — another seed, game indices no
study draws — at every table of the study's panel or of another one (``panel = "default"``,
``"bots"``), and judges it exactly as the study judged its finalists: each goal as an
equivalence test at the designer's margin, every constraint and the seven-powers check at
every table, and where it moves the unfairness. It says which tables it was measured on.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Callable

from ..errors import HeronSimError
from ..rules import Rules
from .changes import rule_changes
from .space import apply

#: First game index of a replay: past every index a study draws (search from 0, racing rungs at
#: multiples of FRESH = 1e9), so a replay on the study's own seed still plays new games.
REPLAY_FIRST = 900_000_000_000


def _spec(path: Path, seed: int, panel: str | None):
    from .spec import parse_spec, read_tune_table

    data = dict(read_tune_table(path))
    data["seed"] = seed
    if panel is not None:
        data["panel"] = panel
        data.pop("scenario", None)
    return parse_spec(data, path)


def check_variant(path: Path, base: Rules) -> Rules:
    """The variant rules file read as ``heron-sim simulate --rules`` reads a rules file: the
    same builder (:meth:`Rules.build`, defaults then the file), every key checked, its own
    ``mode`` and ``players`` too (``mode = "9d9"``, ``players = 1``: the
    :class:`~heron_sim.errors.RulesError` of simulate, one line). Then the variant as the study
    plays it: the file at the study's base mode and player count (each table's own are applied
    by :func:`variant_for`)."""
    Rules.build(rules_file=str(path))  # exactly simulate's check: a bad value is never overridden silently
    return Rules.build(mode=base.mode, players=base.players, rules_file=str(path))


def unfinished_tables(sums, table_rules, names) -> list[dict]:
    """The tables (of one rules set) where no game finished: ``{"table", "games", "max_rounds"}``
    each, from the evaluation's sums (``[tables, K]``, :data:`~heron_sim.lab.metrics.IX`)."""
    import numpy as np

    from .metrics import IX

    S = np.asarray(sums, dtype=float).reshape(len(names), -1)
    return [{"table": n, "games": int(S[i, IX["games"]]), "max_rounds": int(r.max_rounds)}
            for i, (n, r) in enumerate(zip(names, table_rules))
            if S[i, IX["games"]] > 0 and S[i, IX["finished"]] == 0]


def degenerate_words(what: str, unfinished: list[dict], tables: int) -> str:
    """One sentence when no game finished under ``what`` at some table (every win and length
    figure there is undefined, "n/a"), else empty (docs/tuning.md: such a run is degenerate)."""
    if not unfinished:
        return ""
    games = sum(u["games"] for u in unfinished)
    limits = sorted({u["max_rounds"] for u in unfinished})
    limit = (f"max_rounds = {limits[0]}" if len(limits) == 1
             else "max_rounds = " + ", ".join(map(str, limits)))
    where = ("" if len(unfinished) == tables
             else f" at {', '.join(u['table'] for u in unfinished)} ({len(unfinished)} of {tables} tables)")
    return (f"degenerate: no game finished under {what}{where} ({games:,} games played, all hit the round "
            f"limit, {limit}), so every figure there is n/a")


def variant_for(spec, variant: Rules) -> tuple:
    """The variant's changes against the study's base, applied to every table's own base rules
    (its player count, its mode)."""
    changes = rule_changes(spec.base, variant)
    out = []
    for b in spec.scenario_bases:
        table = copy.deepcopy(b.to_table())
        for c in changes:
            apply(table, c.key, c.new)
        out.append(Rules.from_table(table))
    return tuple(out), changes


def replay(tune_file: str | Path, variant_file: str | Path, *, seed: int, games: int = 20_000,
           panel: str | None = None, scheduler: str | None = None, workers: int | None = None,
           log: Callable[[str], None] = lambda s: None, luck: bool | None = None) -> dict:
    """Play ``variant_file`` against the study's base at every table on fresh games of ``seed``;
    returns the finalist's evidence (as in ``summary.json``), the base's, the tables, and
    ``holds``: every goal passes its equivalence test and every constraint holds at every table."""
    if games < 10:
        raise HeronSimError(f"--games: {games}; allowed: >= 10")
    spec = _spec(Path(tune_file), seed, panel)
    return replay_spec(spec, variant_file, seed=seed, games=games, scheduler=scheduler, workers=workers, log=log,
                       luck=luck, tune_file=tune_file)


def replay_spec(spec, variant_file: str | Path, *, seed: int, games: int, scheduler: str | None = None,
                workers: int | None = None, log: Callable[[str], None] = lambda s: None, luck: bool | None = None,
                tune_file: str | Path = "", first_game: int = REPLAY_FIRST, executor=None, cache_dir=None,
                variant_rules: Rules | None = None) -> dict:
    """:func:`replay` of a parsed study (its panel already chosen); ``executor``: play on it (else
    one of ``scheduler``); ``cache_dir``: keep the evaluations there (a rerun replays nothing);
    ``variant_rules``: the variant's rules themselves (``variant_file`` then only names it)."""
    from contextlib import nullcontext

    from ..runner.executor import get_executor
    from .evaluate import Evaluator
    from .ladder import meets_95
    from .study import Candidate, base_evidence, evidence, holm_over_family

    luck = spec.luck if luck is None else bool(luck)
    vpath = Path(variant_file)
    if variant_rules is not None:
        variant = variant_rules if variant_rules.players == spec.base.players else \
            variant_rules.replace(players=spec.base.players)
    else:
        if not vpath.is_file():
            raise HeronSimError(f"{vpath}: no such rules file")
        variant = check_variant(vpath, spec.base)
    cand, changes = variant_for(spec, variant)
    if not changes:
        log(f"note: {vpath.name} changes no rule of the study's base: the replay compares the rulings with themselves")
    c = Candidate(id=vpath.stem, trial=-1, params={}, rules=cand[0], search_losses=[], search_feasible=True,
                  cand=cand, n_changed=len(changes))
    base_c = tuple(spec.scenario_bases)
    ref_c = tuple(spec.scenario_refs) if spec.reference else None
    rules = [base_c] + ([ref_c] if ref_c else []) + [cand]
    names = [sc.name for sc in spec.panel]
    log(f"replay {vpath.name}: {games:,} games a table at {len(names)} tables ({', '.join(names)}), seed {seed}, "
        f"game indices from {first_game:,}")
    with (nullcontext(executor) if executor is not None else get_executor(scheduler, workers)) as ex:
        ev = Evaluator(spec, ex, cache_dir, log=log)
        reps = ev.replicates(rules, first_game, games, boot_seed=seed % 2**32, luck=luck)
    last = {"games": games, "first_game": first_game, "base": reps[0], "ref": reps[1] if ref_c else None,
            "cands": {c.id: reps[-1]}, "luck": luck}
    fin = evidence(spec, [c], last)
    holm_over_family(fin)
    e = fin[0]
    unfinished = {"variant": unfinished_tables(reps[-1][0], cand, names),
                  "base": unfinished_tables(reps[0][0], base_c, names)}
    words = [w for w in (degenerate_words("these rules", unfinished["variant"], len(names)),
                         degenerate_words("the study's base rules", unfinished["base"], len(names))) if w]
    seats = seat_checks(spec, reps[0], reps[-1])
    return {"variant": str(vpath), "tune_file": str(tune_file), "seed": seed, "games": games, "luck": luck,
            "tables": [sc.describe() for sc in spec.panel], "table_names": names,
            "changes": e["changes"], "evidence": e, "base": base_evidence(spec, last),
            "seat_checks": seats, "seats_hold": not any(x["fails"] for x in seats),
            "holds": bool(meets_95(e)) and not words and not any(x["fails"] for x in seats), "feasible": e["feasible"],
            "moves_unfairness": e.get("moves_unfairness", []),
            "degenerate": "; ".join(words) or None, "unfinished": unfinished}


def seat_checks(spec, base, variant, margin: float | None = None) -> list[dict]:
    """Each seat's share at each table judged against the designer's margin with its interval
    (issue 58), not its estimate: the variant's win rate − the fair share (1 / players), its 95 %
    interval, and the paired change against the base. ``status``: ``within`` (the whole interval
    within ±margin); ``fails (decisive)`` (the whole interval past the margin) or ``not shown
    within the margin`` (the interval reaches past it), each only where the variant moved the seat
    away from fair (the paired interval excludes zero): ``fails`` is then true; else ``as under
    the rulings`` (the base's own unfairness, not the variant's). ``base``/``variant``: (sums
    [tables, K], replicates [tables, B, K]). Seats are numbered from 1."""
    import math

    import numpy as np

    from .metrics import value
    from .study import _q

    if margin is None:
        from ..analysis.targets import load_targets

        margin = float(load_targets()["share_margin"])
    bS, bR = base
    S, R = variant
    out = []
    for i, sc in enumerate(spec.panel):
        if getattr(sc, "role", "") == "skill":
            continue
        P = sc.players
        fair = 1.0 / P
        for s in range(P):
            m = f"seat_{s}_win_rate"
            v, b = float(value(m, S[i], P)), float(value(m, bS[i], P))
            lo, hi = _q(value(m, R[i], P))
            dlo, dhi = _q(np.asarray(value(m, R[i], P), float) - np.asarray(value(m, bR[i], P), float))
            if not all(map(math.isfinite, (v, b, lo, hi))):
                continue
            lo, hi = min(lo, v), max(hi, v)
            within = lo - fair >= -margin and hi - fair <= margin
            moved = math.isfinite(dlo) and (dlo > 0 or dhi < 0) and (v - b) * (v - fair) > 0
            past = lo - fair > margin or hi - fair < -margin
            status = ("within" if within else ("fails (decisive)" if past else "not shown within the margin")
                      if moved else "as under the rulings")
            out.append({"table": sc.name, "seat": s + 1, "players": P, "fair": fair, "margin": margin,
                        "variant": v, "low": lo, "high": hi, "base": b, "diff": v - b, "diff_low": dlo,
                        "diff_high": dhi, "status": status, "fails": status in ("fails (decisive)",
                                                                               "not shown within the margin")})
    return out


def seat_words(x: dict) -> str:
    """"seat 5 at rungs-6: -1.0 [-1.3, -0.7] points from fair (change -1.0 [-1.4, -0.6]; margin ±1)"."""
    f = x["fair"]
    return (f"seat {x['seat']} at {x['table']}: {100 * (x['variant'] - f):+z.1f} [{100 * (x['low'] - f):+z.1f}, "
            f"{100 * (x['high'] - f):+z.1f}] points from fair (change {100 * x['diff']:+z.1f} "
            f"[{100 * x['diff_low']:+z.1f}, {100 * x['diff_high']:+z.1f}]; margin ±{100 * x['margin']:g}): {x['status']}")


def replay_text(res: dict) -> str:
    """The replay as a designer reads it."""
    from .ladder import meets_95

    e = res["evidence"]
    lines = [f"{Path(res['variant']).name} ({e['changes']}), replayed on seed {res['seed']}: {res['games']:,} fresh "
             f"games a table, paired with the base rules, at {len(res['table_names'])} tables:"]
    lines += [f"  {n}: {d}" for n, d in zip(res["table_names"], res["tables"])]
    if res.get("degenerate"):
        lines.append(res["degenerate"][0].upper() + res["degenerate"][1:] + ".")
    from .metrics import format_value, unit_suffix
    from .study import estimate_words

    def fv(m, v):
        return f"{format_value(m, v)}{unit_suffix(m)}" if v == v else "n/a"

    for o in e["objectives"]:
        m = o["metric"]
        lines.append(f"{o['objective']}: {fv(m, o['loss'])} [{fv(m, o['loss_low'])}, {fv(m, o['loss_high'])}] against "
                     f"{fv(m, o['base_loss'])} for the base" + (f"; {o['decision']}" if o.get("decision") else "")
                     + estimate_words(o))
        for s in o["scenarios"]:
            lines.append(f"    {s['scenario']}: {s['text']}")
    for cst in e["constraints"]:
        bad = [t for t, ok in (cst.get("scenarios") or {}).items() if not ok]
        inert = sorted(set(cst.get("powers_off", []) + cst.get("inert", [])))
        lines.append(f"{cst['constraint']}: {'holds' if cst['holds'] else 'violated'}"
                     + (f" (fails at {', '.join(bad)})" if bad else "") + (f" ({', '.join(inert)})" if inert else ""))
    for x in res["moves_unfairness"]:
        lines.append(f"moves the unfairness: {x['what']} at {x['table']} {100 * (x['base'] - x['fair']):+z.1f} → "
                     f"{100 * (x['variant'] - x['fair']):+z.1f} points from fair")
    bad = [x for x in res.get("seat_checks", []) if x["fails"]]
    for x in bad:
        lines.append("seat share " + seat_words(x))
    lines.append(("HOLDS at every table: every goal passes its equivalence test, every constraint holds and "
                  "every seat the proposal moves stays within the margin with its interval."
                  if res["holds"] else
                  "DOES NOT HOLD at every table: " + (
                      "no game finished at some table (degenerate), so it cannot be judged there."
                      if res.get("degenerate") else
                      "a constraint fails." if not res["feasible"] else
                      "a goal is not met with 95 % confidence." if not meets_95(e) else
                      "it moves a seat's share past the margin (with its interval).")))
    return "\n".join(lines)


__all__ = ["REPLAY_FIRST", "check_variant", "degenerate_words", "replay", "replay_spec", "replay_text", "seat_checks",
           "seat_words", "unfinished_tables", "variant_for"]
