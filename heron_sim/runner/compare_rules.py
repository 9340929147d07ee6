"""Two rule sets on the same seeds, assembled from files: what ``heron-sim compare`` runs.

Each side is a rules file (its own ``mode`` and ``players``, as ``simulate --rules`` plays it)
or an experiment file (its ``[rules]``, modes and players); an experiment file of kind
``compare`` given alone is its own pair (its ``[a]`` and ``[b]``). ``mode``/``players`` given
here override both sides. A pair that cannot be paired game by game (different player counts:
the seats do not line up) is refused with one line.

    from heron_sim.runner.compare_rules import compare_rules
    run = compare_rules("a.toml", "b.toml", games=5000)     # a RunData
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import HeronSimError
from .config import Experiment, RulesSpec, load_experiment, parse_experiment
from .options import HeronExperiment


@dataclass(frozen=True)
class Side:
    """One side of a comparison: where its rules come from and what it plays."""

    spec: RulesSpec
    mode: str
    players: int
    source: str

    def describe(self) -> str:
        return f"{self.spec.label} = {self.source} ({self.mode}, {self.players} players)"


def _read(path: Path, field: str) -> dict:
    from ..tomlfile import read_toml

    return read_toml(path, field)


def _side(path: Path, label: str, field: str, mode: str | None, players: int | None) -> tuple[Side, Experiment | None]:
    """A rules file or an experiment file as one side (``mode``/``players``: overrides)."""
    table = _read(path, field)
    exp = None
    if "kind" in table:  # an experiment file: its [rules], modes and players
        exp = load_experiment(path)
        if not isinstance(exp, HeronExperiment):
            raise HeronSimError(f"{field}: {path} is an experiment of kind {exp.kind} (the lighter games, each "
                                "under its own rules): no Héron rules to compare")
        if exp.kind == "compare":
            raise HeronSimError(f"{field}: {path} is a compare experiment (its own [a] and [b]); "
                                "give it alone: heron-sim compare FILE")
        if mode is None and len(exp.modes) > 1:
            raise HeronSimError(f"{field}: {path} plays modes {', '.join(exp.modes)}; choose one with --mode")
        overrides = dict(exp.rules.overrides) | ({} if mode else {"mode": exp.modes[0]})
        spec = RulesSpec(file=exp.rules.file, overrides=overrides, label=label, own_mode=mode is None)
        r = spec.build(mode, players or exp.players)
    else:
        spec = RulesSpec(file=str(path), label=label, own_mode=mode is None)
        r = spec.build(mode, players)  # the file's own mode and players unless overridden
    return Side(spec, r.mode, r.players, str(path)), exp


def compare_experiment(a: str | Path, b: str | Path | None = None, *, games: int | None = None,
                       mode: str | None = None, players: int | None = None, seating: str | None = None,
                       seed: int | None = None) -> Experiment:
    """The ``compare`` experiment of files ``a`` and ``b`` (or of the compare experiment ``a``).

    Each rules file plays its own mode and players unless ``mode``/``players`` are given;
    sides with different player counts are refused (the games cannot be paired seat by seat).
    """
    a = Path(a)
    if games is not None and (isinstance(games, bool) or games < 1):
        raise HeronSimError(f"--games: {games}; allowed: >= 1")
    if b is None:
        table = _read(a, "A")
        if table.get("kind") != "compare":
            raise HeronSimError(f"B: missing; give two rules files, or one experiment file of kind "
                                f"compare (with [a] and [b]) — {a} is not one")
        exp = load_experiment(a)
        changes = {k: v for k, v in (("games", games), ("players", players), ("seed", seed),
                                     ("seating", seating)) if v is not None}
        if mode is not None:
            changes["modes"] = [mode]
        if not changes:
            return exp
        d = exp.to_dict()
        d.update(changes)
        d.pop("source", None)
        return parse_experiment(d, str(a), base_dir=None)
    b = Path(b)
    (sa, ea), (sb, eb) = (_side(p, lab, f, mode, players)
                          for p, lab, f in ((a, a.stem, "A"), (b, b.stem, "B")))
    if sa.players != sb.players:
        raise HeronSimError(f"compare: A plays {sa.players} players and B {sb.players}: the games cannot be "
                            f"paired seat by seat; give --players N to play both with N")
    if sa.spec.label == sb.spec.label:
        sa = dataclasses.replace(sa, spec=dataclasses.replace(sa.spec, label=f"{sa.spec.label} (A)"))
        sb = dataclasses.replace(sb, spec=dataclasses.replace(sb.spec, label=f"{sb.spec.label} (B)"))
    base = ea or eb
    table = {"name": "compare", "kind": "compare", "title": f"Rule variant: {b.stem} vs {a.stem}",
             "seed": seed if seed is not None else (base.seed if base else 1),
             "games": games if games is not None else (base.games if base else 10_000),
             # the pair's mode (the jobs' `pair` label); a side with its own mode plays that mode, and its job is named after it
             "modes": [mode or (sa.mode if sa.mode in _modes() else "8d8")],
             "players": sa.players,
             # a side's own seating when its kind has one (anxiety and strategies name "strategies")
             "seating": seating if seating is not None else getattr(base, "seating", "ai"),
             "figures": ["differences"]}
    exp = parse_experiment(table | {"a": {}, "b": {}}, "compare", base_dir=None)
    return exp.model_copy(update={"a": sa.spec, "b": sb.spec,
                                  "description": f"A = {sa.describe()}; B = {sb.describe()}"})


def _modes():
    from ..rules import MODES

    return MODES


def describe_pair(exp: Experiment) -> str:
    """One line saying what a compare experiment plays: each side's file, mode and players."""
    from .jobs import resolve_strategies

    sides = []
    for key in ("a", "b"):
        spec = getattr(exp, key)
        modes = sorted({spec.build(m, exp.players).mode for m in exp.modes})
        src = f" = {spec.file}" if spec.file else ""
        sets = f" + {', '.join(f'{k}={v}' for k, v in spec.overrides.items())}" if spec.overrides else ""
        sides.append(f"{key.upper()} {spec.label or key.upper()}{src}{sets} on {', '.join(modes)}")
    strategies = ", ".join(dict.fromkeys(resolve_strategies(exp.seating)))
    return (f"compare: {'; '.join(sides)}; {exp.players} players, seating {exp.seating} ({strategies}), "
            f"{exp.games:,} games per rule set, seed {exp.seed}")


def compare_rules(a: str | Path, b: str | Path | None = None, *, games: int | None = None,
                  mode: str | None = None, players: int | None = None, seating: str | None = None,
                  seed: int | None = None, run_dir: str | Path | None = None, log=None):
    """Play the pair of :func:`compare_experiment` into ``run_dir`` (default
    ``runs/compare-<time>``) and return the run read back (:class:`~heron_sim.runner.RunData`;
    ``heron_sim.report.build_sections`` renders it). An interrupted run raises nothing: check
    ``run.manifest["status"]``."""
    from .run import RunData, check_run_dir, new_run_dir, run_experiments

    exp = compare_experiment(a, b, games=games, mode=mode, players=players, seating=seating, seed=seed)
    if run_dir is not None:
        check_run_dir(run_dir)
    folder = Path(run_dir) if run_dir else new_run_dir(name=f"compare-{time.strftime('%Y%m%d-%H%M%S')}")
    m = run_experiments([exp], folder, log=log)
    return RunData(folder, allow_partial=m["status"] != "complete")
