"""The balance report: sections computed from a run folder, rendered to HTML and Markdown."""

from __future__ import annotations

import time
from pathlib import Path

from .render import markdown_table, write_report
from ..sections import Figure, Plot, Section, Table, plot

__all__ = ["Figure", "Plot", "Section", "Table", "plot", "build_sections", "markdown_table", "report_from_run", "run_metadata",
           "write_report"]


def build_sections(run, timings: dict | None = None) -> list:
    """One section per experiment of the run (in plan order; one per game for kind games), then
    the cross-cutting one. ``timings``: where each experiment's seconds of analysis are added
    (name -> seconds)."""
    from ..runner.kinds import across, analyse

    sections = []
    for exp, data in run.experiments():
        t = time.perf_counter()
        sec = analyse(exp, data)  # kind games: one section per lighter game
        sections.extend(sec if isinstance(sec, list) else [sec])
        if timings is not None:
            timings[exp.name] = timings.get(exp.name, 0.0) + time.perf_counter() - t
    sections.append(across(run))
    return sections


def proposals_section(results_root) -> Section | None:
    """The lab's "Proposed rule changes" (``heron_sim.lab.outputs.proposed_changes_markdown``)
    when studies under ``results_root/tune-*`` exist; else None. (A broken lab module is an
    error, never a section that silently vanishes.)"""
    from ..lab.outputs import proposed_changes_markdown
    text = proposed_changes_markdown(results_root)
    if not text.strip():
        return None
    sec = Section(key="proposed-rule-changes", title="Proposed rule changes (the lab)",
                  intro="Rule variants the tuning lab proposes, each measured against the default rules on paired seeds.",
                  part="lab")  # a page of its own, linked from the index: the lab's words and rules keys
    sec.markdown.append(text)
    return sec


def run_metadata(run, extra: dict | None = None) -> dict:
    """Package version, git commit, rules hashes, seeds, games, run time of a run folder."""
    from ..runner.run import git_commit, package_version

    m = run.manifest
    hashes, seeds, games, turns = {}, set(), 0, 0
    per_exp = []
    for e in m["experiments"]:
        g = sum(j["n"] for j in e["jobs"] if j["kind"] in ("games", "light"))
        t = sum(j["n"] for j in e["jobs"] if j["kind"] == "turns")
        games += g
        turns += t
        for j in e["jobs"]:
            hashes.setdefault(j["rules_hash"], f"{e['experiment']['name']}/{j['key']}")
            seeds.add(j["seed"])
        per_exp.append(f"{e['experiment']['name']}: {g:,} games, {t:,} turns, {e['seconds']:.1f} s")
    tour = tournament_games(run)
    meta = {
        "package version": m.get("package_version", "unknown"),
        "git commit (run)": m.get("git_commit", "unknown"),
        "git commit (report)": git_commit(),
        "report package version": package_version(),
        "run folder": str(run.dir),
        "run started": m.get("started", ""),
        "simulation run time": f"{m.get('seconds', float('nan')):.1f} s (whole plan, all experiments)",
        "experiments": "; ".join(per_exp),
        "games played (all)": f"{games + tour:,}",
        "games simulated": f"{games:,} in the experiments' batches + {tour:,} in tournaments",
        "single turns simulated": f"{turns:,}",
        "seeds": ", ".join(map(str, sorted(seeds))) + " (game i of a batch draws from stream (seed, i))",
        "rules hashes": ", ".join(f"{h} (first used by {w})" for h, w in hashes.items()),
        "strategies available": ", ".join(m.get("strategies_available", [])),
        "tournament module": "yes" if m.get("tournament_available") else "no (rotation of seats used)",
    }
    meta.update(extra or {})
    return meta


def tournament_games(run) -> int:
    """Games played by the run's tournaments (each game counted once: the ranking counts every
    game once per player, two players per game)."""
    total = 0
    for exp, data in run.experiments():
        for j in data.entry["jobs"]:
            if j["kind"] != "tournament":
                continue
            t = data.frame(j["key"])
            if "table" in t.columns and "games" in t.columns:
                total += int(t.loc[t["table"] == "ranking", "games"].sum()) // 2
    return total


def report_from_run(run_dir, out_dir="results", extra_meta: dict | None = None,
                    started: float | None = None, lang: str = "fr") -> dict:
    """Compute every table from a run folder and write the report; returns the paths.

    ``lang``: the language of the brief and the index (French by default; the other beside them).
    ``started`` (a ``time.perf_counter()`` value) adds the measured time from the start of the
    simulation to the end of the tables to the metadata."""
    from ..runner.run import RunData

    t0 = time.perf_counter()
    run = RunData(run_dir)
    tables: dict[str, float] = {}
    sections = build_sections(run, tables)
    prop = proposals_section(Path(out_dir))
    if prop is not None:
        sections.insert(len(sections) - 1, prop)
    extra = dict(extra_meta or {})
    extra.setdefault("report computed in", f"{time.perf_counter() - t0:.1f} s (tables; figures not included)")
    if started is not None:
        extra["total time (simulate + tables)"] = f"{time.perf_counter() - started:.1f} s"
    meta = run_metadata(run, extra)
    t1 = time.perf_counter()
    drawn: dict = {}
    paths = write_report(sections, meta, Path(out_dir), lang=lang, timings=drawn)
    paths["sections"] = sections
    paths["meta"] = meta
    games = {e["experiment"]["name"]: float(e.get("seconds", 0.0)) for e in run.manifest.get("experiments", [])}
    figures = drawn.get("figures", 0.0)
    paths["timings"] = {"games": games, "tables": tables, "pages": time.perf_counter() - t1 - figures,
                        "figures": figures, "figure workers": drawn.get("figure workers", 1)}
    return paths


def timings_line(timings: dict) -> str:
    """Where a report's time went, in one line: each experiment's games and tables (the largest
    first), then the pages, then the figures and how many processes drew them."""
    per = {}
    for part in ("games", "tables"):
        for name, sec in timings.get(part, {}).items():
            per[name] = per.get(name, 0.0) + sec
    items = sorted(per.items(), key=lambda kv: -kv[1])
    text = ", ".join(f"{name} {sec:.0f} s" for name, sec in items)
    line = f"time by experiment (games and tables): {text}; pages {timings.get('pages', 0.0):.0f} s"
    if "figures" in timings:
        n = timings.get("figure workers", 1)
        line += f", figures {timings['figures']:.0f} s ({n} process{'es' if n != 1 else ''})"
    return line
