"""Running a lighter game's study (:mod:`.light`) and writing its results (:mod:`.light_outputs`)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from ..errors import HeronSimError
from .light import Evaluator, Study, _changes_text, evidence, finding_text, parse_light_spec


class LightInterrupted(Exception):
    """Ctrl-C or SIGTERM: the games already played are kept; the command resumes
    (:func:`heron_sim.lab.tune` turns it into its TuneInterrupted)."""


def tune_light(data: dict, path: str | Path, *, trials=None, games=None, rungs=None, run_dir=None, out=None,
               fresh: bool = False, log: Callable[[str], None] | None = None) -> dict:
    """Run a lighter game's study and write ``results/tune-<name>/`` (:mod:`.light_outputs`)."""
    from ..interrupt import handle_signals, stop_requested
    from ..io import atomic_folder
    from .light_outputs import write_light_outputs
    from .rundir import open_run_dir, study_folders

    log = log or (lambda s: None)
    spec = parse_light_spec(data, path)
    if trials is not None and trials < 0:
        raise HeronSimError(f"--trials: {trials}; allowed: >= 0")
    if games is not None and games < 10:
        raise HeronSimError(f"--games: {games}; allowed: >= 10")
    if rungs is not None and (not rungs or any(isinstance(x, bool) or not isinstance(x, int) or x < 10 for x in rungs)):
        raise HeronSimError(f"--rungs: {rungs!r}; allowed: game counts of 10 or more")
    spec = spec.with_overrides(trials=trials, games=games, rungs=rungs)
    run_dir, out = study_folders(spec.name, run_dir, out, path)
    t0 = time.perf_counter()
    with handle_signals():
        lock = open_run_dir(run_dir, fresh=fresh, log=log)
        try:
            log(f"tune {spec.name} ({spec.game.name}): ladder + {spec.trials} trials x {spec.games:,} games x "
                f"{len(spec.tables)} tables; racing {', '.join(f'{x:,}' for x in spec.rungs)}")
            ev = Evaluator(spec, run_dir / "evals" / spec.fingerprint(), log=log)
            st = Study(spec, ev, log=log)
            try:
                played, base_j, picks = st.run_search_phase()
                cands = st.front(played, base_j, picks)
                alive, base_g, gms, n = st.race(cands, base_j, picks) if cands else ([], None, {}, 0)
                fin, base = (evidence(spec, alive, base_g, gms, n) if alive
                             else ([], {"objectives": [], "meets": False, "games": 0, "headline": {}}))
            except KeyboardInterrupt:
                raise LightInterrupted(f"interrupted: the games already played are kept in {run_dir / 'evals'}; "
                                       "run the same command to resume") from None
            result = {"game": spec.game.name, "finalists": fin, "base": base,
                      "candidates": [{"id": c.id, "source": c.source, "changes": _changes_text(c),
                                      "n_changed": c.n_changed, "feasible": c.search["feasible"],
                                      **{f"loss_{m}": v for m, v in c.search["losses"].items()}} for c in played],
                      "base_search": base_j, "trials": sum(c.source == "search" for c in played),
                      "ladder_played": sum(c.source == "ladder" for c in played),
                      "last_games": n, "games_played": ev.games_played, "games_total": ev.games_total}
            result["finding"] = finding_text(spec, fin, base)
            result["seconds"] = round(time.perf_counter() - t0, 1)
            with atomic_folder(out, "--out") as tmp:
                paths = write_light_outputs(spec, result, tmp)
                if stop_requested():
                    raise KeyboardInterrupt
            paths = {k: ([out / Path(x).relative_to(tmp) for x in v] if isinstance(v, list)
                         else out / Path(v).relative_to(tmp)) for k, v in paths.items()}
        finally:
            lock.release()
    result["paths"] = paths
    log(result["finding"])
    log(f"results in {out} ({result['seconds']:.0f} s, {result['games_played']:,} games played this time)")
    return result
