"""One revised rulebook: the shipped studies' answers played together (issue 58 item 6).

Each study of the lab proposes its change alone; a designer adopts one rulebook. :func:`combine`
reads the studies' answers (the variant ranked first of each ``results/tune-<name>/``, the rules
file its study wrote under ``variants/``), merges them into one rules set, plays the base rules,
each answer alone and the combined rules on the same fresh games at every table of the studies'
panels (their union, each table once), and says

- for each study's goal: its figure under the study's answer alone, under the combined rules and
  under the base, each with its 95 % interval, and the paired difference *combined − alone* (does
  the guide fix undo the comeback fix?);
- the combined rules' side effects at every table: length, dead turns, Angoisse, comebacks, each
  guide's and each seat's win rate, with the paired change against the base.

It writes one booklet of the changed blocks, « Règles, 2e édition » (:mod:`heron_sim.lab.booklet`
rewrites the blocks the changes touch), with its evidence, in French and English, Markdown and
self-contained HTML, the combined rules file and ``summary.json`` (:mod:`heron_sim.lab.combine_text`).

**What is merged.** A study whose rulings already meet every goal ("no change needed"), whose
answer is no better than the rulings on any objective ("keep the rulings") or breaks a constraint
proposes nothing and is skipped, with why; so is a study of another game or of another base (the
10 D6 and 7 D8 studies tune another box). A study whose answer meets every goal with 95 %
confidence is a *fix*; one whose answer improves on the rulings without meeting every goal is the
*closest* change (merged unless ``fixes_only``). A rules file named on its own is merged as given.
A rule changed is a value that differs from the base (:func:`heron_sim.lab.changes.rule_changes`):
a base value restated is no change. Two answers that set the same rule to different values are
refused with one line.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..errors import HeronSimError
from ..rules import Rules
from .changes import Change, rule_changes

#: First game index of the combined check: past every index a study (search from 0, racing rungs
#: at multiples of 1e9), a held-out check (8e11) or a replay (9e11) draws.
COMBINE_FIRST = 700_000_000_000
#: The seed of the combined check's games (one no shipped study uses).
DEFAULT_SEED = 20261212
DEFAULT_GAMES = 20_000
#: Extra tables a designer may add to the studies' own (``--panel``).
EXTRA_PANELS = ("default", "bots", "family", "club", "expert", "held-out")


class CombineInterrupted(HeronSimError):
    """Ctrl-C: nothing was written to the output folder."""


@dataclass
class Answer:
    """One study's answer as merged."""

    study: str
    title: str
    folder: Path
    summary: dict
    tune_file: Path
    variant_file: Path
    id: str
    kind: str                       # "fix", "closest" or "given" (a rules file named on its own)
    spec: Any = None
    rules: Rules | None = None      # the variant at the study's base players
    changes: list[Change] = field(default_factory=list)


# ---------------------------------------------------------------- what each study answers
def answer_kind(s: dict) -> str:
    """What a study's ``summary.json`` proposes: "fix" (its answer meets every goal with 95 %
    confidence), "closest" (better than the rulings on an objective, not every goal met), or why
    it proposes nothing: "no change needed", "keep the rulings", "infeasible", "no answer"."""
    from .ladder import meets_95

    fin = s.get("finalists") or []
    if (s.get("base_evidence") or {}).get("meets"):
        return "no change needed"
    if not fin:
        return "no answer"
    first = fin[0]
    if meets_95(first):
        return "fix"
    if not first.get("feasible", True):
        return "infeasible"
    if not any(o.get("verdict") == "better" for o in first.get("objectives") or []):
        return "keep the rulings"
    return "closest"


def _read_summary(folder: Path) -> dict:
    p = folder / "summary.json"
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except OSError as err:
        raise HeronSimError(f"{p}: cannot read: {err.strerror or err}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise HeronSimError(f"{p}: not a study's summary (bad JSON: {err})") from None


def _tune_file(s: dict, folder: Path) -> Path:
    raw = s.get("tune_file")
    if not raw:
        raise HeronSimError(f"{folder / 'summary.json'}: names no tune file (not a Héron study's summary)")
    p = Path(raw)
    for cand in ([p] if p.is_absolute() else [p, folder.parent.parent / p, folder / p]):
        if cand.is_file():
            return cand
    raise HeronSimError(f"{folder / 'summary.json'}: its tune file {raw} is missing (run from the project's folder)")


def _study_folders(path: Path) -> list[Path]:
    """A study's folder (it holds summary.json), or every ``tune-*`` study under a results folder."""
    if (path / "summary.json").is_file():
        return [path]
    found = sorted(p.parent for p in path.glob("tune-*/summary.json"))
    if not found:
        raise HeronSimError(f"{path}: no study's answers here (no summary.json, no tune-*/summary.json)")
    return found


def gather(paths: list[str | Path], *, fixes_only: bool = False) -> tuple[list[Answer], list[dict]]:
    """The answers to merge and the studies skipped (``{"study", "folder", "why"}``) from
    ``paths``: results folders, study folders, or variant rules files (``variants/*.toml`` of a
    study's folder, merged as given). Bad input is one :class:`HeronSimError` line."""
    answers: list[Answer] = []
    skipped: list[dict] = []
    if not paths:
        raise HeronSimError("--combine: name the studies' answers (a results folder such as results/, a study's "
                            "folder, or a variant's rules file)")
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise HeronSimError(f"{path}: no such file or folder")
        if path.is_file():
            folder = path.parent.parent
            if path.parent.name != "variants" or not (folder / "summary.json").is_file():
                raise HeronSimError(f"{path}: no study's summary.json beside it (a study's answer is "
                                    "results/tune-<name>/variants/<name>-1-<id>.toml)")
            s = _read_summary(folder)
            if s.get("game", "heron") != "heron":
                raise HeronSimError(f"{path}: an answer for another game ({s['game']}); only the Héron race's "
                                    "answers make its rulebook")
            vid = path.stem.rsplit("-", 1)[-1]
            first = (s.get("finalists") or [{}])[0].get("id")
            kind = answer_kind(s) if vid == first and answer_kind(s) in ("fix", "closest") else "given"
            answers.append(Answer(s.get("name", folder.name), s.get("title", ""), folder, s, _tune_file(s, folder),
                                  path, vid, kind))
            continue
        for folder in _study_folders(path):
            s = _read_summary(folder)
            name = s.get("name", folder.name.removeprefix("tune-"))
            if s.get("game", "heron") != "heron":
                skipped.append({"study": name, "folder": str(folder), "why": "another game", "game": s["game"],
                                "title": s.get("title", "")})
                continue
            kind = answer_kind(s)
            if kind not in ("fix", "closest") or (fixes_only and kind != "fix"):
                skipped.append({"study": name, "folder": str(folder), "why": kind if kind != "closest" else "no fix",
                                "title": s.get("title", "")})
                continue
            vid = s["finalists"][0]["id"]
            found = sorted((folder / "variants").glob(f"{name}-1-{vid}.toml")) or \
                sorted((folder / "variants").glob(f"{name}-1-*.toml"))
            if not found:
                raise HeronSimError(f"{folder / 'variants'}: no answer {name}-1-{vid}.toml (its summary.json ranks "
                                    f"{vid} first; run the study again)")
            answers.append(Answer(name, s.get("title", ""), folder, s, _tune_file(s, folder), found[0], vid, kind))
    seen: dict[str, Answer] = {}
    for a in answers:
        if a.study in seen:
            raise HeronSimError(f"{a.variant_file}: a second answer of study {a.study} "
                                f"(already {seen[a.study].variant_file}); name one answer a study")
        seen[a.study] = a
    return answers, skipped


def load(answers: list[Answer], skipped: list[dict]) -> tuple[list[Answer], Rules]:
    """Each answer's study (its tune file) and rules (every key checked as ``simulate --rules``
    checks it), and the base they share: the base of most answers; an answer of another base
    (another mode, other rules) is skipped, with why."""
    from .replay import check_variant
    from .spec import parse_spec, read_tune_table

    for a in answers:
        data = dict(read_tune_table(a.tune_file))
        a.spec = parse_spec(data, a.tune_file)
        try:
            a.rules = check_variant(a.variant_file, a.spec.base)
        except HeronSimError as err:
            msg = str(err)
            raise HeronSimError(msg if str(a.variant_file) in msg else f"{a.variant_file}: {msg}") from None
        a.changes = rule_changes(a.spec.base, a.rules)
    groups: list[list[Answer]] = []
    for a in answers:
        for g in groups:
            b = g[0].spec.base
            if b.mode == a.spec.base.mode and not rule_changes(b, a.spec.base.replace(players=b.players)):
                g.append(a)
                break
        else:
            groups.append([a])
    if not groups:
        raise HeronSimError("--combine: no answer to merge: " + (
            "; ".join(f"{x['study']} ({x['why']})" for x in skipped) if skipped else "none found"))
    keep = max(groups, key=len)  # the first of the largest group (the order given)
    for g in groups:
        if g is not keep:
            for a in g:
                skipped.append({"study": a.study, "folder": str(a.folder), "why": "another base",
                                "mode": a.spec.base.mode, "title": a.title})
    return keep, keep[0].spec.base


# ---------------------------------------------------------------- merging
def _apply(table: dict, key: str, new) -> None:
    """Set one rule change in a full rules table: a square without effect is removed, a rule of
    one count or one guide set to none (``None``) is removed (the rule of every count applies)."""
    from .space import apply

    if new is None and key.startswith("board.square."):
        new = "neutral"
    if new is None and key.startswith(("seats.", "guide.")):
        _, who, k = key.split(".", 2)
        sub = table.get(key.split(".", 1)[0], {}).get(who, {})
        sub.pop(k, None)
        return
    apply(table, key, new)


def with_changes(base: Rules, changes) -> Rules:
    """``base`` with ``changes`` (``Change`` or ``(key, new)``) applied, at its own players."""
    table = copy.deepcopy(base.to_table())
    for c in changes:
        key, new = (c.key, c.new) if isinstance(c, Change) else c
        _apply(table, key, new)
    return Rules.from_table(table)


def merge(answers: list[Answer], base: Rules) -> tuple[Rules, list[dict], list[dict]]:
    """The combined rules (at ``base``'s players), the rules they change (``{"key", "old", "new",
    "studies"}``) and the notes: a rule an answer changes that is no change of its own under the
    combined rules (e.g. the Héron guide's own Angoisse threshold when another answer gives it to
    every player). Two answers setting one rule to different values: one error line."""
    merged: dict[str, tuple[Any, list[str]]] = {}
    for a in answers:
        for c in a.changes:
            if c.key in merged and merged[c.key][0] != c.new:
                other = merged[c.key][1][0]
                raise HeronSimError(f"--combine: the answers of {other} and {a.study} set {c.key} differently "
                                    f"({_v(merged[c.key][0])} and {_v(c.new)}); keep one of them")
            merged.setdefault(c.key, (c.new, []))[1].append(a.study)
    try:
        combined = with_changes(base, [(k, v) for k, (v, _) in merged.items()])
    except HeronSimError as err:
        raise HeronSimError(f"--combine: the merged answers are not valid rules: {err}") from None
    final = {c.key: c for c in rule_changes(base, combined)}
    rules = [{"key": k, "old": c.old, "new": c.new,
              "studies": merged[k][1] if k in merged else []} for k, c in final.items()]
    notes = []
    for k, (v, who) in merged.items():
        if k not in final or final[k].new != v:
            notes.append({"key": k, "new": v, "studies": who, "why": "no rule of its own under the combined rules"})
    return combined, rules, notes


def _v(x) -> str:
    return "none" if x is None else json.dumps(x) if isinstance(x, (list, str, bool)) else str(x)


# ---------------------------------------------------------------- the tables
def _same(a, b) -> bool:
    from ..runner.panel import _same_table

    return (a.role or "") == (b.role or "") and _same_table(a, b)


def extra_tables(name: str | None) -> tuple:
    from ..runner.panel import BOTS_PANEL, CLUB_PANEL, DEFAULT_PANEL, EXPERT_PANEL, FAMILY_PANEL, HELD_OUT

    if name is None:
        return ()
    panels = {"default": DEFAULT_PANEL, "bots": BOTS_PANEL, "family": FAMILY_PANEL, "club": CLUB_PANEL,
              "expert": EXPERT_PANEL, "held-out": HELD_OUT}
    if name not in panels:
        raise HeronSimError(f"--panel: {name!r}; allowed: {', '.join(EXTRA_PANELS)}")
    return panels[name]


def union_panel(specs, extra=()) -> tuple[tuple, list[list[int]]]:
    """Every table of the studies' panels once (then ``extra``'s), and for each study the index
    of each of its tables in that union."""
    tables: list = []
    where: list[list[int]] = []
    for sp in [*specs, None]:
        own = []
        for sc in (sp.panel if sp is not None else extra):
            j = next((k for k, t in enumerate(tables) if _same(t, sc)), None)
            if j is None:
                name, n = sc.name, 2
                while any(t.name == name for t in tables):
                    name, n = f"{sc.name}-{n}", n + 1
                tables.append(dataclasses.replace(sc, name=name))
                j = len(tables) - 1
            own.append(j)
        if sp is not None:
            where.append(own)
    return tuple(tables), where


def table_words(sc, lang: str) -> str:
    """A table in words: the glossary's words for a table of the lab's panels (« 2 joueurs de tous
    niveaux »), else its players counted (« 2 experts et 2 débutants »)."""
    from .. import glossary
    from ..runner.panel import MIXED_TABLES, PANELS
    from ..runner.panel import table_words as counted

    known = {s.name: s for p in PANELS.values() for s in p} | dict(MIXED_TABLES)
    if sc.name in known and _same(known[sc.name], sc):
        w = glossary.table_words(sc.name, lang)
        if w != sc.name:
            return w
    return counted(sc, lang)


def _table_base(base: Rules, src, sc) -> Rules:
    from .spec import RulesSource

    if sc.mode is None or sc.mode == base.mode:
        return base if sc.players == base.players else base.replace(players=sc.players)
    return RulesSource(sc.mode, src.file, src.overrides).build(sc.players)


# ---------------------------------------------------------------- playing
def combine(paths: list[str | Path], *, games: int = DEFAULT_GAMES, seed: int = DEFAULT_SEED,
            out: str | Path | None = None, panel: str | None = None, fixes_only: bool = False,
            scheduler: str | None = None, run_dir: str | Path | None = None,
            log: Callable[[str], None] = lambda s: None, progress: bool | None = None) -> dict:
    """Merge the answers found under ``paths``, play them together at every table and write the
    rulebook into ``out`` (default ``results/rulebook``), as a whole. Returns the result
    (``summary.json``'s content with ``paths``). Raises :class:`CombineInterrupted` on Ctrl-C
    (nothing written)."""
    from ..interrupt import handle_signals, stop_requested
    from ..io import atomic_folder, check_output
    from ..runner.executor import get_executor

    if isinstance(games, bool) or not isinstance(games, int) or games < 10:
        raise HeronSimError(f"--games: {games!r}; allowed: an integer >= 10")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise HeronSimError(f"--seed: {seed!r}; allowed: an integer >= 0")
    extra = extra_tables(panel)
    out = Path(out) if out is not None else Path("results") / "rulebook"
    check_output(out, "--out", folder=True)
    if run_dir is not None:
        check_output(Path(run_dir), "--run-dir", folder=True)
    answers, skipped = gather(paths, fixes_only=fixes_only)
    answers, base = load(answers, skipped)
    combined, rules, notes = merge(answers, base)
    for a in answers:
        log(f"answer of {a.study}: {a.id} ({a.kind}), {len(a.changes)} rule(s): "
            + ", ".join(f"{c.key} = {_v(c.new)}" for c in a.changes))
    for x in skipped:
        log(f"skipped {x['study']}: {x['why']}")
    if not rules:
        log("note: the merged answers change no rule of the base")
    t0 = time.perf_counter()
    lock = None
    try:
        with handle_signals(), get_executor(scheduler) as ex:
            if run_dir is not None:
                from ..runlock import RunLock

                lock = RunLock(Path(run_dir), "--run-dir", log=log).acquire()
            played = _play(answers, base, combined, extra, games, seed, ex, run_dir, log, progress)
            if stop_requested():
                raise KeyboardInterrupt
            result = _result(answers, skipped, base, combined, rules, notes, played, games, seed, panel, ex)
            result["seconds"] = round(time.perf_counter() - t0, 1)
            from .combine_text import write_rulebook

            with atomic_folder(out, "--out") as tmp:
                files = write_rulebook(result, combined, base, tmp)
                if stop_requested():  # a stop while writing: nothing replaces the old folder
                    raise KeyboardInterrupt
    except KeyboardInterrupt:
        raise CombineInterrupted(f"interrupted: nothing written to {out}"
                                 + (f" (the finished evaluations are kept in {run_dir})" if run_dir else "")) from None
    finally:
        if lock is not None:
            lock.release()
    result["paths"] = {k: out / Path(v).name for k, v in files.items()}
    log(f"rulebook in {out} ({result['seconds']:.0f} s, {result['games_played']:,} games played)")
    return result


def _play(answers, base, combined, extra, games, seed, ex, run_dir, log, progress) -> dict:
    """The base, each answer alone and the combined rules (and each study's reference, if any)
    on the same games at every table of the union panel: replicate sums, paired by game."""
    from ..progress import progress_bar
    from .evaluate import Evaluator
    from .metrics import STREAK_EVERY, STREAK_METRICS

    tables, where = union_panel([a.spec for a in answers], extra)
    src = answers[0].spec.base_source
    bases = tuple(_table_base(base, src, sc) for sc in tables)
    master = dataclasses.replace(answers[0].spec, panel=tables, scenario_bases=bases,
                                 scenario_refs=tuple(None for _ in tables), seed=seed, reference=None,
                                 objectives=(), constraints=(), name="rulebook")
    sets: dict[str, tuple] = {"base": bases}
    for a in answers:
        sets[f"alone:{a.study}"] = tuple(with_changes(b, a.changes) for b in bases)
    allc = [Change(c.key, c.old, c.new) for c in rule_changes(base, combined)]
    sets["combined"] = tuple(with_changes(b, allc) for b in bases)
    for a in answers:
        if a.spec.reference is not None:
            sets[f"ref:{a.study}"] = tuple(a.spec.reference.replace(players=sc.players) for sc in tables)
    uniq: dict[tuple, str] = {}
    for name, cand in sets.items():
        uniq.setdefault(tuple(r.digest() for r in cand), name)
    order = list(dict.fromkeys(uniq.values()))
    streak = any(x.metric in STREAK_METRICS for a in answers for x in (*a.spec.objectives, *a.spec.constraints))
    cache = (Path(run_dir) / ("evals-streaks" if streak else "evals")) if run_dir is not None else None
    total = games * len(tables) * len(order)
    log(f"rulebook: {len(order)} rule sets (the base, {len(answers)} answer(s) alone, the combined rules) x "
        f"{len(tables)} tables x {games:,} games, seed {seed}, game indices from {COMBINE_FIRST:,}")
    import numpy as np

    parts, played = [], 0
    with progress_bar(total, "rulebook: games", enabled=progress) as advance:
        # One table at a time (the memory of one table's games, not the panel's): table i plays the
        # streams (seed + i, game) and draws its bootstrap weights as the whole panel's would.
        for i, sc in enumerate(tables):
            sub = dataclasses.replace(master, panel=(sc,), scenario_bases=(bases[i],), scenario_refs=(None,),
                                      seed=seed + i)
            ev = Evaluator(sub, ex, cache, progress=advance, log=log)
            ev.streak_every = STREAK_EVERY if streak else 0
            parts.append(ev.replicates([(sets[n][i],) for n in order], COMBINE_FIRST, games,
                                       boot_seed=seed % 2**32 + 104_729 * i))
            played += ev.games_played
    reps = [(np.concatenate([p[j][0] for p in parts]), np.concatenate([p[j][1] for p in parts]))
            for j in range(len(order))]
    got = dict(zip(order, reps))
    arrays = {name: got[uniq[tuple(r.digest() for r in cand)]] for name, cand in sets.items()}
    return {"tables": tables, "where": where, "sets": sets, "arrays": arrays, "master": master,
            "games_played": played}


# ---------------------------------------------------------------- the evidence
def _slice(pair, idx):
    S, R = pair
    return S[idx], R[idx]


def _fig(m, X, i, P):
    """A metric's value at table ``i`` with its 95 % interval: [value, low, high]."""
    import math

    from .metrics import value
    from .study import _q

    S, R = X
    v = float(value(m, S[i], P))
    lo, hi = _q(value(m, R[i], P))
    if math.isfinite(lo):
        lo, hi = min(lo, v), max(hi, v)
    return [v, lo, hi]


def _goals(a: Answer, played: dict, games: int, seed: int) -> dict:
    """One study's goals under the base, its answer alone and the combined rules, on its own
    tables: the loss over its panel with its interval and the goal's decision, the figure at
    each table, and the paired difference combined − alone."""
    import math

    import numpy as np

    from .objectives import tables_of, target_value
    from .study import Candidate, _q, _shown, base_evidence, evidence, loss

    idx = played["where"][played["answers"].index(a)]
    tables = played["tables"]
    spec = dataclasses.replace(a.spec, panel=tuple(tables[j] for j in idx), seed=seed)
    arr = played["arrays"]
    b, al, co = (_slice(arr[n], idx) for n in ("base", f"alone:{a.study}", "combined"))
    ref = _slice(arr[f"ref:{a.study}"], idx) if f"ref:{a.study}" in arr else None
    last = {"games": games, "first_game": COMBINE_FIRST, "base": b, "ref": ref,
            "cands": {"alone": al, "combined": co}, "luck": False}
    cands = [Candidate(name, -1, {}, played["sets"][key][idx[0]], [], True,
                       cand=tuple(played["sets"][key][j] for j in idx),
                       n_changed=len(rule_changes(spec.base, played["sets"][key][idx[0]])))
             for name, key in (("alone", f"alone:{a.study}"), ("combined", "combined"))]
    ev = {e["id"]: e for e in evidence(spec, cands, last)}
    be = base_evidence(spec, last)
    Ps = [sc.players for sc in spec.panel]
    objs = []
    for n, o in enumerate(spec.objectives):
        ea, ec, eb = ev["alone"]["objectives"][n], ev["combined"]["objectives"][n], be["objectives"][n]
        rS, rR = ref if ref is not None else (None, None)
        la = _shown(loss(o, al[1], b[1], rR, spec))
        lc = _shown(loss(o, co[1], b[1], rR, spec))
        d = float(ec["loss"] - ea["loss"])
        lo, hi = _q(np.asarray(lc) - np.asarray(la))
        if not math.isfinite(lo):
            inter = "no interval"
        elif lo > 0:
            inter = "undone" if ec["verdict"] != "better" and ea["verdict"] == "better" else "weakened"
        elif hi < 0:
            inter = "strengthened"
        else:
            inter = "kept"
        rows = []
        for i in tables_of(spec, o):
            P = Ps[i]
            t = (float(target_value(o, b[0][i], None if rS is None else rS[i], P))
                 if o.direction not in ("minimize", "maximize") else None)
            rows.append({"table": spec.panel[i].name, "target": t, "base": _fig(o.metric, b, i, P),
                         "alone": _fig(o.metric, al, i, P), "combined": _fig(o.metric, co, i, P)})
        one = {"metric": o.metric, "objective": o.describe(), "direction": o.direction, "goal": o.goal,
               "relative": o.relative, "players": o.players, "aggregate": spec.aggregate,
               "scale": o.scale if o.scale != 1.0 and isinstance(o.target, str) else None,
               "of": o.target if isinstance(o.target, str) else None,
               "base": {"loss": eb["loss"], "low": eb["loss_low"], "high": eb["loss_high"], "decision": eb["decision"]},
               "interaction": {"diff": d, "low": lo, "high": hi, "verdict": inter}, "tables": rows}
        for name, e in (("alone", ea), ("combined", ec)):
            one[name] = {"loss": e["loss"], "low": e["loss_low"], "high": e["loss_high"],
                         "decision": e.get("decision"), "verdict": e["verdict"], "diff": e["diff"],
                         "diff_low": e["low"], "diff_high": e["high"]}
        objs.append(one)
    cons = {}
    for name in ("alone", "combined"):
        cons[name] = [{"constraint": c["constraint"], "holds": bool(c["holds"]),
                       "fails_at": [t for t, ok in (c.get("scenarios") or {}).items() if not ok],
                       "powers": sorted(set(c.get("powers_off", []) + c.get("inert", [])))}
                      for c in ev[name]["constraints"]]
    return {"study": a.study, "objectives": objs, "constraints": cons, "tables": [sc.name for sc in spec.panel]}


#: The side effects at every table (issue 58 item 5): length, dead turns, Angoisse, comebacks.
SIDE_METRICS = ("length", "dead_turn_rate", "anxiety_rate", "comeback")


def _side_effects(played: dict) -> list[dict]:
    """The combined rules against the base at every table: the side-effect figures, each guide's
    and each seat's win rate, paired by game (95 % interval of the change)."""
    import math

    import numpy as np

    from ..animals import NAMES
    from .metrics import value
    from .study import _q

    b, c = played["arrays"]["base"], played["arrays"]["combined"]
    out = []
    for i, sc in enumerate(played["tables"]):
        if getattr(sc, "role", "") == "skill":
            ms = ["skill_gap"]
        else:
            ms = [*SIDE_METRICS, *(f"guide_{g}_win_rate" for g in NAMES),
                  *(f"seat_{s}_win_rate" for s in range(sc.players))]
        P = sc.players
        for m in ms:
            bv, cv = float(value(m, b[0][i], P)), float(value(m, c[0][i], P))
            lo, hi = _q(np.asarray(value(m, c[1][i], P), float) - np.asarray(value(m, b[1][i], P), float))
            out.append({"table": sc.name, "metric": m, "base": bv, "variant": cv, "diff": cv - bv, "low": lo,
                        "high": hi, "differs": bool(math.isfinite(lo) and (lo > 0 or hi < 0))})
    return out


def _held_out(a: Answer) -> dict | None:
    """The study's held-out check of this answer (its verdict in words), if it ran one."""
    from .outputs import held_out_of

    h = held_out_of(a.folder, a.summary) if a.kind in ("fix", "closest") else None
    return {"held_out": bool(h.get("held_out")), "words": h.get("words")} if h and h.get("words") else None


def _result(answers, skipped, base, combined, rules, notes, played, games, seed, panel, ex) -> dict:
    from ..i18n import gettext
    from .replay import seat_checks

    played["answers"] = answers
    goals = [_goals(a, played, games, seed) for a in answers]
    seats = seat_checks(played["master"], played["arrays"]["base"], played["arrays"]["combined"])
    return {
        "title": {"fr": "Règles, 2e édition", "en": "Rules, 2nd edition"},
        "games": games, "seed": seed, "first_game": COMBINE_FIRST, "panel": panel,
        "base": {"mode": base.mode, "digest": base.digest()}, "combined_digest": combined.digest(),
        "answers": [{"study": a.study, "title": a.title, "title_fr": a.summary.get("title_fr") or gettext(
                        " ".join(a.title.split()), "fr"),
                     "folder": str(a.folder), "variant_file": str(a.variant_file), "id": a.id, "kind": a.kind,
                     "held_out": _held_out(a),
                     "changes": [{"key": c.key, "old": c.old, "new": c.new} for c in a.changes]} for a in answers],
        "skipped": skipped, "rules": rules, "notes": notes,
        "tables": [{"name": sc.name, "players": sc.players, "strategies": list(sc.strategies), "mode": sc.mode,
                    "role": sc.role, "words": {"fr": table_words(sc, "fr"), "en": table_words(sc, "en")}}
                   for sc in played["tables"]],
        "goals": goals, "side_effects": _side_effects(played), "seat_checks": seats,
        "games_played": played["games_played"], "executor": ex.describe(),
    }


__all__ = ["COMBINE_FIRST", "DEFAULT_GAMES", "DEFAULT_SEED", "Answer", "CombineInterrupted", "answer_kind", "combine",
           "gather", "load", "merge", "union_panel", "with_changes"]
