"""What a study leaves for a designer: results/tune-<name>/.

- ``front.csv`` / ``front.md``: the re-evaluated front, one row per variant, with each
  objective's value, its paired difference to the base rules and the 95 % interval;
- ``effects.csv``: every headline metric of every reported variant against the base (paired);
- ``search.csv``: every trial of the search (parameters, objective values on the search games);
- ``variants/<name>-<id>.toml``: each reported variant as a rules file (``--rules``, ``compare``);
- ``figures/front.png``, ``figures/objectives_vs_params.png`` (matplotlib, Agg);
- ``summary.json``: all of it, machine-readable (read by :func:`proposed_changes`).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..rules import Rules
from .metrics import METRICS, format_value, unit_suffix


# ---------------------------------------------------------------- TOML of a variant
def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


def _toml_key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() and not k.isdigit() else json.dumps(k)


def variant_table(rules: Rules) -> dict:
    """The keys of ``rules`` that differ from the defaults (mode and players always)."""
    full = rules.to_table()
    from ..rules import MODES

    # Dice of a study's own (a mode label like "10d6*"): compared with the 8 D8 defaults, the
    # dice written in full.
    default = Rules.build(mode=rules.mode if rules.mode in MODES else None, players=rules.players).to_table()
    out: dict = {"mode": full["mode"], "players": full["players"]}
    for k, v in full.items():
        if k in ("mode", "players", "combinations", "dice", "board"):
            continue
        if v != default.get(k):
            out[k] = v
    comb = {k: v for k, v in full["combinations"].items() if v != default["combinations"][k]}
    if comb:
        out["combinations"] = comb
    if full["dice"] != default["dice"]:
        out["dice"] = full["dice"]
    if full["board"] != default["board"]:
        out["board"] = {"squares": full["board"]["squares"]}
    return out


def rules_toml(rules: Rules, header: list[str]) -> str:
    table = variant_table(rules)
    lines = [f"# {h}" for h in header] + [""]
    tables = {k: v for k, v in table.items() if isinstance(v, dict)}
    for k, v in table.items():
        if not isinstance(v, dict):
            lines.append(f"{k} = {_toml_value(v)}")
    for name, sub in tables.items():
        lines += ["", f"[{name}]"]
        for k, v in sub.items():
            lines.append(f"{_toml_key(k)} = {_toml_value(v)}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- atomic writes
from ..io import atomic_path, mkdir  # noqa: E402
from ..io import write_text as _io_write_text  # noqa: E402


def write_text(path: Path, text: str) -> None:
    """Through heron_sim.io (a unique temporary file, renamed into place; OutputError on failure)."""
    _io_write_text(path, text)


def write_csv(path: Path, df: pd.DataFrame) -> None:
    write_text(path, df.to_csv(index=False))


def _save_png(fig, path: Path, dpi: int) -> None:
    """Write ``fig`` as a PNG through heron_sim.io.atomic_path, then close it."""
    import matplotlib.pyplot as plt

    try:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, dpi=dpi, format="png")
    finally:
        plt.close(fig)


# ---------------------------------------------------------------- tables
def _interval(metric, d, lo, hi) -> str:
    return f"{format_value(metric, d, True)} [{format_value(metric, lo, True)}, {format_value(metric, hi, True)}]"


def front_frame(spec, finalists: list[dict]) -> pd.DataFrame:
    rows = []
    for rank, e in enumerate(finalists, 1):
        row = {"rank": rank, "variant": e["id"], "rules changed": e.get("n_changed"), "changes": e.get("changes"),
               "ladder": e.get("ladder", False), "games": e["games"], "feasible": e["feasible"]}
        row.update({f"param {k}": v for k, v in e["params"].items()})
        for o in e["objectives"]:
            m = o["metric"]
            row[f"{m} loss"] = o["loss"]
            row[f"{m} loss low"] = o["loss_low"]
            row[f"{m} loss high"] = o["loss_high"]
            row[f"{m} diff vs base"] = o["diff"]
            row[f"{m} diff low"] = o["low"]
            row[f"{m} diff high"] = o["high"]
            row[f"{m} verdict"] = o["verdict"]
            if "estimate" in o:  # a luck-adjusted last rung (a plain study's columns as before)
                row[f"{m} estimate"] = o["estimate"]
            if o.get("luck_variance_ratio") is not None:
                row[f"{m} luck variance ratio"] = o["luck_variance_ratio"]
            if "plain" in o:
                row[f"{m} plain loss low"] = o["plain"]["loss_low"]
                row[f"{m} plain loss high"] = o["plain"]["loss_high"]
            if o["goal"] is not None:
                row[f"{m} goal met"] = o["goal_met"]
                row[f"{m} goal met 95%"] = o["goal_met_95"]
            for sc in o.get("scenarios", []):
                row[f"{m} {sc['scenario']}"] = sc["value"]
                row[f"{m} {sc['scenario']} low"] = sc["low"]
                row[f"{m} {sc['scenario']} high"] = sc["high"]
                if sc["distance"] is not None:
                    row[f"{m} {sc['scenario']} distance"] = sc["distance"]
        for c in e["constraints"]:
            row[f"holds: {c['constraint']}"] = c["holds"]
        rows.append(row)
    return pd.DataFrame(rows)


def effects_frame(finalists: list[dict]) -> pd.DataFrame:
    rows = []
    for e in finalists:
        for scen, effects in (e.get("effects_by_scenario") or {"table": e["effects"]}).items():
          for x in effects:
            row = {"variant": e["id"], "scenario": scen, "metric": x["metric"], "label": x["label"], "base": x["base"],
                   "variant_value": x["variant"], "reference": x["reference"], "diff": x["diff"],
                   "low": x["low"], "high": x["high"], "significant": x["significant"], "games": e["games"]}
            if "estimate" in x:  # a luck-adjusted last rung (a plain study's columns as before)
                row.update(estimate=x["estimate"], luck_variance_ratio=x.get("luck_variance_ratio"),
                           plain_low=(x.get("plain") or {}).get("low"), plain_high=(x.get("plain") or {}).get("high"))
            rows.append(row)
    return pd.DataFrame(rows)


def search_frame(spec, trials) -> pd.DataFrame:
    rows = []
    for t in trials:
        row = {"trial": t.number, "state": t.state.name, "rules": t.user_attrs.get("rules"),
               "rules changed": t.user_attrs.get("n_changed"), "duplicate of": t.user_attrs.get("duplicate_of"),
               "ladder": t.user_attrs.get("ladder")}
        row.update({f"param {k}": v for k, v in t.params.items()})
        if t.values:
            for o, v in zip(spec.objectives, t.values):
                row[f"{o.metric} loss"] = v
        cons = t.user_attrs.get("constraints")
        if cons is not None:
            row["feasible"] = all(c <= 0 for c in cons)
        for m, v in (t.user_attrs.get("metrics") or {}).items():
            if m in ("guide_spread", "length", "dead_turn_rate", "completion", "first_player_advantage",
                     "lead_changes", "pushback"):
                row[m] = v
        rows.append(row)
    return pd.DataFrame(rows)


def _loss_text(o) -> str:
    m = o["metric"]
    if "relative distance" in o["objective"]:
        f = lambda x: f"{100 * x:.1f} %" if math.isfinite(x) else "n/a"  # noqa: E731
        return f"{f(o['loss'])} [{f(o['loss_low'])}, {f(o['loss_high'])}]"
    suffix = unit_suffix(m)
    return (f"{format_value(m, o['loss'])} [{format_value(m, o['loss_low'])}, {format_value(m, o['loss_high'])}]"
            f"{suffix}{_luck_mark(o)}")


#: After a figure that is luck-adjusted (issue 32 item 3: ``estimate``), in the pages.
LUCK_MARK = " †"


def _luck_mark(x: dict) -> str:
    return LUCK_MARK if x.get("estimate") == "luck-adjusted" else ""


def _diff_text(o) -> str:
    """A loss difference: in points of relative distance for a relative target, else in the
    metric's unit."""
    if "relative distance" in o["objective"]:
        f = lambda x: f"{100 * x:+z.1f}" if math.isfinite(x) else "n/a"  # noqa: E731
        return f"{f(o['diff'])} [{f(o['low'])}, {f(o['high'])}] pt of distance{_luck_mark(o)}"
    return _interval(o["metric"], o["diff"], o["low"], o["high"]) + _luck_mark(o)


def front_markdown(spec, result: dict) -> str:
    fin = result["finalists"]
    lines = [f"# {spec.title}", ""]
    if spec.description:
        lines += [spec.description.strip(), ""]
    panel = list(spec.panel)
    lines += [f"Tune file `{Path(spec.path).as_posix()}`; base rules {spec.base.mode} ({spec.base.digest()}), "
              f"seed {spec.seed}; panel of {len(panel)} table{'s' if len(panel) != 1 else ''} "
              f"(objectives: the {spec.aggregate} table; constraints: every table): "
              + "; ".join(f"`{sc.name}` {sc.describe()}" for sc in panel) + ".",
              f"Search: {result['trials']} trials ({spec.sampler}), {spec.games:,} games each on the same seeds. "
              f"Racing on fresh seeds: rungs of {', '.join(f'{g:,}' for g in spec.rungs)} games; "
              f"the figures below come from the last rung only ({result['last_games']:,} games per rules set, "
              "never used to select)." + (LUCK_WORDS if result.get("luck") else ""), "",
              "Objectives: " + "; ".join(o.describe() for o in spec.objectives) + ".",
              "Constraints: " + ("; ".join(_constraint_labels(spec)) or "none") + ".", "",
              "A variant is *better* than the base on an objective only when the 95 % interval of the paired "
              "difference (variant − base, same games) lies below zero.", ""]
    lines += ["## Finding", "", result["finding"], ""]
    if result.get("held_out"):
        from .heldout import check_text

        lines += ["## The held-out check", "",
                  "The answer replayed at tables its search never saw (mixed skill, other counts), paired with the "
                  "rulings on fresh games: each goal at the designer's margin (one-sided where the goal is), each "
                  "seat's share against the margin with its interval (docs/tuning.md, \"The held-out check\").", "",
                  "```", check_text(result["held_out"], "en"), "```", ""]
    if not fin:
        return "\n".join(lines) + "\n"
    lines += ladder_markdown(result.get("ladder") or [])
    lines += ["## The front (re-evaluated)", "",
              "Changes list only the rules whose value differs from the base; *rules changed* counts them "
              "(a tie-break: of two variants alike, the smaller change ranks first). Ladder entries (`L…`) are "
              "the ladder's picks; `t…` the search's.", ""]
    head = ["rank", "variant", "rules changed", "changes"] + [f"{o.metric}" for o in spec.objectives] + \
           [f"Δ {o.metric} vs base" for o in spec.objectives] + ["constraints"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    base_losses = {o["metric"]: o["base_loss"] for o in fin[0]["objectives"]}
    for rank, e in enumerate(fin, 1):
        cells = [str(rank), f"`{e['id']}`", str(e.get("n_changed", "")), e.get("changes", "")]
        cells += [_loss_text(o) for o in e["objectives"]]
        cells += [f"{_diff_text(o)} ({o['verdict']})" for o in e["objectives"]]
        cells.append("ok" if e["feasible"] else "violated: " + "; ".join(c["constraint"] for c in e["constraints"] if not c["holds"]))
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Base rules on the same games: " + ", ".join(
        f"{m} {format_value(m, v) + unit_suffix(m) if not o.relative else f'{100 * v:.1f} % from its target'}"
        for (m, v), o in zip(base_losses.items(), spec.objectives)) + ".", ""]
    lines += scenario_markdown(spec, fin)
    lines += powers_markdown(fin)
    best = fin[0]
    ref = spec.reference is not None
    lines += [f"## Best variant `{best['id']}`: every headline metric ({best['scenarios'][0]} table; every table in "
              "`effects.csv`)", "",
              (f"`{result['variant_files'][best['id']]}`" if best["id"] in result.get("variant_files", {})
               else "No rules file: no change is needed, this variant is shown for information")
              + f" — {best['games']:,} games on fresh seeds, paired with the base"
              + (" (the reference rules on the same games in the last column)." if ref else "."), "",
              "| metric | base | variant | difference [95 %] |" + (" reference |" if ref else ""),
              "|---|---|---|---|" + ("---|" if ref else "")]
    for x in best["effects"]:
        if not measured(x):
            continue
        m = x["metric"]
        mark = " *" if x["significant"] == "differs" else ""
        refcell = f" {format_value(m, x['reference'])}{unit_suffix(m)} |" if ref else ""
        lines.append(f"| {x['label']} | {format_value(m, x['base'])}{unit_suffix(m)} | {format_value(m, x['variant'])}{unit_suffix(m)} "
                     f"| {_interval(m, x['diff'], x['low'], x['high'])}{mark}{_luck_mark(x)} |{refcell}")
    lines += ["", "\\* the interval excludes zero." + (" † luck-adjusted." if result.get("luck") else ""), "",
              "Figures: `figures/front.png` (the search and the re-evaluated front), "
              "`figures/objectives_vs_params.png` (each objective against the parameters that matter)."]
    return "\n".join(lines) + "\n"


#: What front.md says when the last rung measured the luck.
LUCK_WORDS = (" The last rung was played with each player's luck (docs/luck.md): a figure of the wins (a seat's or "
              "a guide's win rate, the guide spread, the first-player advantage, the seat balance) is **luck-adjusted** "
              "where its 95 % interval is narrower than the plain one, and marked †; its plain interval and the "
              "variance ratio (how many times fewer games the adjusted interval needs) are in `front.csv` and "
              "`effects.csv`. The constraints are read on the plain figures.")


def _constraint_labels(spec) -> list[str]:
    from .objectives import constraint_labels

    return constraint_labels(spec)


def ladder_markdown(rows: list[dict]) -> list[str]:
    """The ladder: for k = 1, 2, 3, the best re-evaluated variant changing at most k rules."""
    if not rows:
        return []
    lines = ["## The ladder: the smallest change first", "",
             "For each k, the best re-evaluated variant that changes at most k rules (fresh seeds, every table):",
             "", "| at most | variant | rules changed | changes | " + " | ".join(o["metric"] for o in rows[0]["objectives"])
             + " | every goal with 95 % |", "|---|---|---|---|" + "---|" * len(rows[0]["objectives"]) + "---|"]
    for r in rows:
        cells = [f"{r['k']} rule{'s' if r['k'] > 1 else ''}", f"`{r['id']}`", str(r["n_changed"]), r["changes"]]
        cells += [_loss_text(o) for o in r["objectives"]]
        cells.append("yes" if r["goals_met_95"] else ("no" if r["feasible"] else "no (a constraint fails)"))
        lines.append("| " + " | ".join(cells) + " |")
    return lines + [""]


def scenario_markdown(spec, fin: list[dict]) -> list[str]:
    """Each objective's figure at each table, with its 95 % interval (and the signed distance)."""
    if not fin or not fin[0]["objectives"] or not fin[0]["objectives"][0].get("scenarios"):
        return []
    lines = ["## Every table", ""]
    for k, o in enumerate(spec.objectives):
        names = [x["scenario"] for x in fin[0]["objectives"][k]["scenarios"]]
        lines += [f"**{o.describe()}** — value [95 %] at each table" +
                  ("; signed distance to the target in brackets after it" if o.direction not in ("minimize", "maximize") else ""),
                  "", "| variant | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        base_cells = [f"{format_value(o.metric, x['base'])}{unit_suffix(o.metric)}" for x in fin[0]["objectives"][k]["scenarios"]]
        lines.append("| base | " + " | ".join(base_cells) + " |")
        for e in fin:
            cells = []
            for x in e["objectives"][k]["scenarios"]:
                c = (f"{format_value(o.metric, x['value'])} [{format_value(o.metric, x['low'])}, "
                     f"{format_value(o.metric, x['high'])}]{unit_suffix(o.metric)}")
                if x["distance"] is not None:
                    d = x["distance"]
                    c += (f" ({100 * d:+z.1f} %)" if o.relative else f" ({format_value(o.metric, d, True)})")
                cells.append(c + _luck_mark(e["objectives"][k]))
            lines.append(f"| `{e['id']}` | " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def powers_markdown(fin: list[dict]) -> list[str]:
    """Each guide's one-shot power: uses per game it is dealt, base and each variant, first table."""
    from ..animals import NAMES

    if not fin or not fin[0].get("effects_by_scenario"):
        return []
    lines = ["## The seven powers: uses per game dealt", "",
             "Each table's figure, base → variant (0 for a power no seated strategy uses).", ""]
    names = fin[0]["scenarios"]
    lines += ["| variant | table | " + " | ".join(NAMES) + " |", "|---|---|" + "---|" * len(NAMES)]
    for e in fin:
        for scen in names:
            rows = {x["metric"]: x for x in e["effects_by_scenario"][scen]}
            cells = []
            for g in NAMES:
                x = rows.get(f"power_{g}_use")
                cells.append("n/a" if x is None else f"{_num(x['base'])} → {_num(x['variant'])}")
            lines.append(f"| `{e['id']}` | {scen} | " + " | ".join(cells) + " |")
    return lines + [""]


def _num(v) -> str:
    return "n/a" if v is None or not math.isfinite(v) else f"{v:.2f}"


# ---------------------------------------------------------------- figures
def figures(spec, trials, finalists, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figdir = mkdir(out / "figures")
    paths = []
    done = [t for t in trials if t.values]
    names = [o.metric for o in spec.objectives]
    # The front.
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    if len(names) >= 2 and done:
        x = np.array([t.values[0] for t in done])
        y = np.array([t.values[1] for t in done])
        feas = np.array([all(c <= 0 for c in t.user_attrs.get("constraints", [])) for t in done])
        ax.scatter(x[~feas], y[~feas], s=10, c="#cccccc", label="search: infeasible")
        ax.scatter(x[feas], y[feas], s=12, c="#7fa7d9", label="search: feasible")
        for e in finalists:
            o0, o1 = e["objectives"][0], e["objectives"][1]
            def err(o):
                return [[max(0.0, o["loss"] - o["loss_low"])], [max(0.0, o["loss_high"] - o["loss"])]]

            ax.errorbar([o0["loss"]], [o1["loss"]], xerr=err(o0), yerr=err(o1), fmt="o", c="#c0392b",
                        ms=5, capsize=2)
            ax.annotate(e["id"], (o0["loss"], o1["loss"]), fontsize=7, xytext=(3, 3), textcoords="offset points")
        if finalists:
            b0, b1 = finalists[0]["objectives"][0]["base_loss"], finalists[0]["objectives"][1]["base_loss"]
            ax.scatter([b0], [b1], marker="*", s=120, c="k", label="base rules (fresh seeds)")
        ax.errorbar([], [], fmt="o", c="#c0392b", label="front, re-evaluated (95 %)")
        ax.set_xlabel(spec.objectives[0].describe())
        ax.set_ylabel(spec.objectives[1].describe())
    elif done:
        x = np.arange(len(done))
        ax.scatter(x, [t.values[0] for t in done], s=10, c="#7fa7d9", label="search")
        ax.set_xlabel("trial")
        ax.set_ylabel(spec.objectives[0].describe())
    ax.legend(fontsize=7)
    ax.set_title(f"{spec.title}: the front", fontsize=10)
    fig.tight_layout()
    p = figdir / "front.png"
    _save_png(fig, p, dpi=110)
    paths.append(p)
    # Objectives against the parameters that matter (eta squared of each parameter alone).
    if done:
        params = [pp.name for pp in spec.params]
        imp = {}
        for k, o in enumerate(spec.objectives):
            y = np.array([t.values[k] for t in done], float)
            ok = np.isfinite(y) & (y < 1e8)
            scores = []
            for name in params:
                xs = np.array([str(t.params.get(name)) for t in done])
                scores.append((_eta2(y[ok], xs[ok]), name))
            imp[o.metric] = [n for s, n in sorted(scores, reverse=True)[:3]]
        ncol = max(len(v) for v in imp.values())
        fig, axes = plt.subplots(len(spec.objectives), ncol, figsize=(3.2 * ncol, 2.6 * len(spec.objectives)),
                                 squeeze=False)
        for k, o in enumerate(spec.objectives):
            y = np.array([t.values[k] for t in done], float)
            ok = np.isfinite(y) & (y < 1e8)
            for c in range(ncol):
                ax = axes[k][c]
                if c >= len(imp[o.metric]):
                    ax.axis("off")
                    continue
                name = imp[o.metric][c]
                xs = [t.params.get(name) for t in done]
                numeric = all(isinstance(v, (int, float)) for v in xs)
                if numeric:
                    ax.scatter(np.array(xs, float)[ok], y[ok], s=8, alpha=0.6)
                else:
                    cats = sorted({str(v) for v in xs})
                    pos = np.array([cats.index(str(v)) for v in xs])
                    jitter = (np.random.default_rng(0).random(len(pos)) - 0.5) * 0.3
                    ax.scatter(pos[ok] + jitter[ok], y[ok], s=8, alpha=0.6)
                    ax.set_xticks(range(len(cats)), [c_[:12] for c_ in cats], fontsize=6, rotation=30)
                ax.set_xlabel(name, fontsize=8)
                if c == 0:
                    ax.set_ylabel(o.metric, fontsize=8)
                ax.tick_params(labelsize=7)
        fig.suptitle("Objectives (search games) against the parameters that explain them most", fontsize=9)
        fig.tight_layout()
        p = figdir / "objectives_vs_params.png"
        _save_png(fig, p, dpi=100)
        paths.append(p)
    return paths


def _eta2(y, groups) -> float:
    if y.size < 2 or np.var(y) == 0:
        return 0.0
    total = ((y - y.mean()) ** 2).sum()
    between = 0.0
    for g in np.unique(groups):
        sel = y[groups == g]
        between += sel.size * (sel.mean() - y.mean()) ** 2
    return float(between / total)


# ---------------------------------------------------------------- the report's data
def study_summaries(results_root: str | Path, heron: bool = True):
    """(path, summary) of every finished study under ``results_root/tune-*/summary.json`` (an
    unreadable one is skipped: it is not a finished study): the Héron race's, or with ``heron``
    false the lighter games' (``game`` in the summary; their answers are the game pages',
    :func:`heron_sim.lab.light_outputs.light_answers`)."""
    for path in sorted(Path(results_root).glob("tune-*/summary.json")):
        try:
            s = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        if (s.get("game", "heron") == "heron") == heron:
            yield path, s



def proposed_changes(results_root: str | Path = "results") -> list[dict]:
    """Data for the report section "Proposed rule changes": one entry per study found under
    ``results_root/tune-*/summary.json``: its problem (title, objectives, constraints), panel,
    ladder, finding, and its best variants, each with its rules file, the rules it changes
    (``changes``: key -> proposed value, only what differs from the base; ``n_changed``), its
    rule sheets (``sheets``: "fr.md", "en.md", "html" -> path) and paired effects (base, variant,
    difference, 95 % interval) on every headline metric, at the first table (``effects``) and
    at each (``effects_by_scenario``)."""
    out = []
    for path, s in study_summaries(results_root):
        out.append({
            "study": s["name"], "title": s["title"], "problem": s.get("description", ""),
            # the study's own French where its summary holds it (else the catalogue's, keyed by the English)
            "title_fr": s.get("title_fr"), "problem_fr": s.get("description_fr"),
            "objectives": s["objectives"], "constraints": s["constraints"], "finding": s["finding"],
            "folder": str(path.parent),
            "panel": s.get("panel", []), "ladder": s.get("ladder") or [],
            "variants": [{"id": v["id"], "rules_file": v["rules_file"],
                          # only the rules whose value differs from the base (older summaries: the params)
                          "changes": ({c["key"]: c["new"] for c in v["rule_changes"]} if "rule_changes" in v
                                      else v["params"]),
                          "n_changed": v.get("n_changed"), "changes_text": v.get("changes"),
                          "sheets": {k: str(path.parent / f"sheet-{v['id']}.{k}") for k in ("fr.md", "en.md", "html")
                                     if (path.parent / f"sheet-{v['id']}.{k}").is_file()},
                          "games": v["games"], "feasible": v["feasible"], "objectives": v["objectives"],
                          "effects": v["effects"], "effects_by_scenario": v.get("effects_by_scenario", {})}
                         # "no change needed": the finding only, no variant proposed
                         for v in ([] if no_change_needed(s) else s["finalists"][:3])],
        })
    return out


def held_out_of(folder: Path, s: dict) -> dict | None:
    """The held-out check of a study's answer (issue 58 item 2; heron_sim.lab.heldout): the one
    ``tune`` wrote into summary.json, else ``held-out.json`` beside it (``tune FILE --check`` on a
    stored answer), when it checked the variant ranked first; None without one."""
    h = s.get("held_out")
    if h is None and (folder / "held-out.json").is_file():
        try:
            h = json.loads((folder / "held-out.json").read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return None
    fin = s.get("finalists") or []
    if not h or not fin or Path(str(h.get("variant", ""))).stem.rsplit("-", 1)[-1] != fin[0]["id"]:
        return None
    return h


def study_answers(results_root: str | Path = "results") -> list[dict]:
    """What each shipped study answers, in a designer's order (issue 30 items 2-3): per study
    found under ``results_root/tune-*/summary.json``, ``answer`` is "no change needed" (the
    rulings already meet every goal), "fix" (the variant ranked first meets every goal with 95 %
    confidence: its id, rules, booklet text and sheet) or "no fix" (none does: the closest, and
    whether the test was decisive); ``tables`` names the tables it was measured on."""
    from .ladder import meets_95

    out = []
    for path, s in study_summaries(results_root):
        fin = s.get("finalists") or []
        first = fin[0] if fin else None
        base = s.get("base_evidence") or {}
        if base.get("meets"):
            answer = "no change needed"
        elif first is not None and meets_95(first):
            answer = "fix"
        elif fin and "decision" in (fin[0]["objectives"] or [{}])[0] and not any(
                o.get("verdict") == "better" for e in fin for o in e["objectives"]):
            answer = "keep the rulings"  # no variant is shown better than the rulings on any objective
        else:
            answer = "no fix"
        entry = {"study": s["name"], "title": s["title"], "folder": str(path.parent), "answer": answer,
                 "rulings_meet": bool(base.get("meets")) if base else None,
                 "finding": s["finding"], "tables": [p["name"] for p in s.get("panel", [])],
                 "tables_described": [p.get("description", p["name"]) for p in s.get("panel", [])],
                 "variant": None, "held_out": held_out_of(path.parent, s)}
        if first is not None:
            dec = [o.get("decision") for o in first["objectives"] if o.get("goal") is not None]
            entry["variant"] = {
                "id": first["id"], "n_changed": first.get("n_changed"), "changes": first.get("changes"),
                "rules_file": first.get("rules_file"), "decisions": dec,
                "games_needed": [o.get("games_needed") for o in first["objectives"] if o.get("goal") is not None],
                "moves_unfairness": first.get("moves_unfairness", []),
                # Holm over the goal tests of every finalist: a fix that passes its own tests but
                # not the family's is to be replayed on fresh seeds before it is adopted
                "holm": all(o.get("goal_met_holm", True) for o in first["objectives"] if o.get("goal") is not None),
                "holm_family": first.get("holm_family", 0),
                "booklet": {k: str(path.parent / f"booklet-{first['id']}.{k}") for k in ("fr.md", "en.md", "html")
                            if (path.parent / f"booklet-{first['id']}.{k}").is_file()},
                "sheets": {k: str(path.parent / f"sheet-{first['id']}.{k}") for k in ("fr.md", "en.md", "html")
                           if (path.parent / f"sheet-{first['id']}.{k}").is_file()}}
        out.append(entry)
    return out


def study_answers_markdown(results_root: str | Path = "results") -> str:
    """One line per study: the problem, then its answer (no change / the smallest fix, with its
    booklet text / none, and why), and the tables it was measured on."""
    lines = []
    for a in study_answers(results_root):
        v = a["variant"]
        if a["answer"] == "no change needed":
            what = "**no change needed**: the rulings already meet every goal"
        elif a["answer"] == "keep the rulings":
            what = "**keep the rulings**: no variant is shown better than them on any objective"
        elif a["answer"] == "fix" and v:
            link = v["booklet"].get("fr.md") or v["sheets"].get("fr.md")
            what = (f"**`{v['id']}`**, {v['n_changed']} rule{'s' if v['n_changed'] != 1 else ''} ({v['changes']})"
                    + (f"; booklet text: `{link}`" if link else ""))
            if v["moves_unfairness"]:
                what += f"; it moves the unfairness elsewhere ({len(v['moves_unfairness'])} seat/guide/table)"
        else:
            decs = [d for d in (v or {}).get("decisions", []) if d and d != "passes"]
            why = ", ".join(decs) if decs else ("no goal test recorded (a study run before the equivalence tests)"
                                                if v and not any((v or {}).get("decisions", [])) else "no variant")
            what = (f"**no change in this space passes**; closest `{v['id']}` ({v['changes']}): {why}" if v
                    else "**no candidate**")
        held = a.get("held_out")
        if held and v:
            what += f"; held-out check of `{v['id']}`: {held['words']['en'].rstrip('.')}"
        lines.append(f"- {a['title']} — {what}. Measured at {len(a['tables'])} tables: {', '.join(a['tables'])} "
                     f"(`{a['folder']}`).")
    return "\n".join(lines)


def measured(x: dict) -> bool:
    """A headline row with figures (the dead-turn streaks are played turn by turn only in a study
    that names them: elsewhere they are not measured, and their row is left out, not "n/a")."""
    return all(isinstance(x.get(k), (int, float)) and math.isfinite(x[k]) for k in ("base", "variant"))


def proposed_changes_markdown(results_root: str | Path = "results") -> str:
    """The section as Markdown (a helper for the report)."""
    answers = study_answers_markdown(results_root)
    lines = (["### What each study answers", "", answers, ""] if answers else [])
    for p in proposed_changes(results_root):
        lines += [f"### {p['title']}", "", p["finding"], ""]
        for v in p["variants"]:
            lines += [f"**`{v['id']}`** (`{v['rules_file']}`: " + ", ".join(f"{k} = {x}" for k, x in v["changes"].items())
                      + f"; {v['games']:,} games on fresh seeds, paired with the base)", "",
                      "| metric | base | variant | difference [95 %] |", "|---|---|---|---|"]
            for x in v["effects"]:
                if not measured(x):
                    continue
                m = x["metric"]
                lines.append(f"| {x['label']} | {format_value(m, x['base'])}{unit_suffix(m)} | "
                             f"{format_value(m, x['variant'])}{unit_suffix(m)} | {_interval(m, x['diff'], x['low'], x['high'])} |")
            lines.append("")
    return "\n".join(lines)


def _clean(o):
    if isinstance(o, dict):
        return {str(k): _clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_clean(v) for v in o]
    if isinstance(o, float) and not math.isfinite(o):
        return None
    if isinstance(o, (np.floating,)):
        return _clean(float(o))
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.bool_,)):
        return bool(o)
    if isinstance(o, Rules):
        return o.digest()
    return o


def no_change_needed(result: dict) -> bool:
    """The study's answer is "no change needed": the rulings already meet every goal with 95 %
    confidence and every constraint (heron_sim.lab.study.base_evidence)."""
    return bool((result.get("base") or result.get("base_evidence") or {}).get("meets"))


def keeps_rulings(result: dict) -> bool:
    """The study's answer is "keep the rulings": the rulings miss a goal, but no re-evaluated
    variant is shown better than them on any objective (and the first does not meet every goal
    with 95 % confidence): its variants are written for information, each saying so at its top
    (:data:`KEEP_NOTE`; issue 58 item 4)."""
    from .ladder import meets_95

    fin = result.get("finalists") or []
    return (bool(fin) and not no_change_needed(result) and not meets_95(fin[0])
            and not any(o.get("verdict") == "better" for e in fin for o in e.get("objectives") or []))


#: What the rules file, the rule sheet and the booklet text of a "keep the rulings" study's variant
#: say at their top (:func:`keeps_rulings`): the study advises no change; the page is not a proposal.
KEEP_NOTE = {
    "fr": ("**L'étude conseille de garder les règles officielles** : aucune variante ne fait mieux qu'elles sur "
           "aucun objectif (intervalles à 95 % sur des parties neuves). Cette page montre une variante proche, pour "
           "information : ce n'est pas une proposition."),
    "en": ("**The study advises keeping the rulings**: no variant does better than them on any objective (95 % "
           "intervals on fresh games). This page shows a close variant, for information: it is not a proposal."),
    # the titles say it too: a sheet's and a booklet text's
    "retitle": {"fr": (("Proposition de règle", "Variante proche, pas une proposition :"),
                       ("proposition ", "variante proche (pas une proposition) ")),
                "en": (("Rule proposal", "Close variant, not a proposal:"),
                       ("proposal ", "close variant (not a proposal) "))},
}


def write_outputs(spec, result: dict, trials, out: Path, final: Path | None = None) -> dict:
    """Write every file of results/tune-<name>/ into ``out``; returns their paths. ``final``:
    where the folder will stand (``out`` is then a temporary folder swapped in whole): the paths
    written inside the files (summary.json's rules files, the variants' "Use:" lines) are there."""
    out.mkdir(parents=True, exist_ok=True)
    final = Path(final) if final is not None else out
    fin = result["finalists"]
    # "No change needed" (the rulings meet every goal): the finding only, no proposal — no rules
    # file, no rule sheet, no booklet text (issue 58 item 4); the variants stay in front.md for
    # information.
    propose = not no_change_needed(result)
    keep = keeps_rulings(result)  # "keep the rulings": written, each file saying it is no proposal
    vdir = out / "variants"
    if propose:
        vdir.mkdir(exist_ok=True)
    for old in vdir.glob("*.toml"):
        old.unlink()
    files = {}
    for rank, e in enumerate(fin[: spec.report] if propose else [], 1):
        path = vdir / f"{spec.name}-{rank}-{e['id']}.toml"
        shown = final / "variants" / path.name
        header = ([KEEP_NOTE["en"].replace("**", "").replace("This page", "This file")] if keep else []) + [
                  f"Variant {e['id']} of tune study {spec.name} (rank {rank}); base rules {spec.base.digest()}.",
                  f"Changes ({e.get('n_changed')} rules): {e.get('changes')}",
                  f"Evidence: {e['games']:,} games on fresh seeds (indices from {e['first_game']:,}), paired with the base:"]
        for o in e["objectives"]:
            header.append(f"  {o['objective']}: diff {_interval(o['metric'], o['diff'], o['low'], o['high'])} -> {o['verdict']}")
        header.append(f"Use: heron-sim simulate --rules {shown.as_posix()}   or   heron-sim compare BASE.toml {shown.as_posix()}")
        write_text(path, rules_toml(e["rules"], header))
        files[e["id"]] = shown.as_posix()
    result["variant_files"] = files
    reported = fin[: spec.report]
    write_csv(out / "front.csv", front_frame(spec, reported))
    write_csv(out / "effects.csv", effects_frame(reported))
    write_csv(out / "search.csv", search_frame(spec, trials))
    write_text(out / "front.md", front_markdown(spec, {**result, "finalists": reported}))
    figs = figures(spec, trials, reported, out)
    from .sheets import write_sheets

    sheets = write_sheets(spec, reported, out, spec.report if propose else 0, note=KEEP_NOTE if keep else None)
    summary = {
        "name": spec.name, "title": spec.title, "description": spec.description, "tune_file": spec.path,
        "players": spec.players, "seating": spec.seating_text, "seed": spec.seed,
        "base_rules": spec.base.digest(), "base_mode": spec.base.mode,
        "reference_rules": spec.reference.digest() if spec.reference else None,
        "objectives": [o.describe() for o in spec.objectives],
        "constraints": _constraint_labels(spec),
        "panel": [{"name": sc.name, "players": sc.players, "strategies": list(sc.strategies), "mode": sc.mode,
                   "description": sc.describe()} for sc in spec.panel],
        "aggregate": spec.aggregate, "ladder": result.get("ladder"), "ladder_played": result.get("ladder_played"),
        "params": [p.describe() for p in spec.params],
        "trials": result["trials"], "search_games": spec.games, "rungs": list(spec.rungs),
        "last_games": result["last_games"], **({"luck_adjusted": True} if result.get("luck") else {}),
        "games_played": result["games_played"],
        "games_reused": result.get("games_reused", 0),
        "seconds": result["seconds"], "executor": result["executor"], "finding": result["finding"],
        "base_evidence": result.get("base"),
        **({"held_out": result["held_out"]} if result.get("held_out") else {}),
        "finalists": [{**{k: v for k, v in e.items() if k != "rules"}, "rules_file": files.get(e["id"])}
                      for e in reported],
    }
    write_text(out / "summary.json", json.dumps(_clean(summary), indent=1, ensure_ascii=False))
    return {"folder": out, "front_md": out / "front.md", "front_csv": out / "front.csv", "figures": figs,
            "variants": list(files.values()), "sheets": sheets}


__all__ = ["proposed_changes", "proposed_changes_markdown", "rules_toml", "variant_table", "write_outputs",
           "METRICS"]
