"""``targets``: print the designer's targets as the report and the lab read them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ._app import JsonOpt, app, dumps


@app.command("targets")
def targets_cmd(
    file: Annotated[Optional[Path], typer.Argument(
        metavar="[TARGETS.toml]",
        help="A targets file (default: $HERON_SIM_TARGETS, else experiments/targets.toml).")] = None,
    lang: Annotated[str, typer.Option("--lang", help="Language of the explanations: fr or en.")] = "en",
    as_json: JsonOpt = False,
) -> None:
    """Print the designer's targets (length by player count, seconds per turn, margins, the
    comeback floor, the dead-turn ceiling, the skill gap), each marked ASSUMED until the
    designer sets it in the file (`assumed = false`). The report's verdict says which of its
    findings rest on an assumed target."""
    from ..analysis.targets import load_targets, targets_text
    from ..errors import HeronSimError

    if lang not in ("fr", "en"):
        raise HeronSimError(f"--lang: {lang!r}; allowed: fr, en")
    from ..games import available

    t = load_targets(file)
    t.check_games(available())
    if as_json:
        def entry(x):
            return {"value": ({str(k): list(v) for k, v in x.value.items()} if isinstance(x.value, dict) else
                              list(x.value) if isinstance(x.value, tuple) else x.value),
                    "assumed": x.assumed, "source": x.source, "meaning": x.key.fr if lang == "fr" else x.key.en}

        typer.echo(dumps({"path": t.path, "targets": {n: entry(x) for n, x in t.items.items()},
                          "assumed": t.assumed(),
                          "games": {g: {"targets": {n: entry(x) for n, x in gt.items.items()}, "assumed": gt.assumed()}
                                    for g, gt in t.games.items()}}))
        return
    typer.echo(targets_text(t, lang))
