"""Experiment files: load and validate a declarative experiment (TOML).

An experiment file names its analysis (``kind``), its rules (defaults, a rules file and
overrides), the dice modes, players, strategy seating, games, seed, and the figures it draws::

    name = "modes"
    kind = "modes"
    title = "Dice modes compared"
    seed = 1
    games = 10000
    modes = ["8d8", "7d8", "10d8", "10d6"]
    players = 4
    seating = "ai"          # "ai", "all", or strategy names (one per seat, cycled, rotated)

    [rules]                 # optional
    file = "my-rules.toml"  # relative to this file
    set = { rolls = 3 }     # overrides, TOML keys of heron_sim/rules/data/defaults.toml

Each kind has its own options model (declared in its module, :mod:`heron_sim.runner.kinds`;
the keys every experiment shares in :mod:`heron_sim.runner.options`), joined here into one union
keyed by ``kind``: a key the kind does not have is refused, never skipped. Every bad value raises
:class:`heron_sim.errors.HeronSimError` with a one-line message that names the file, the key and
what is allowed. :func:`experiment_schema` is the union's JSON schema (for editors;
``heron-sim experiment-schema``).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Annotated, Union

from pydantic import Field, TypeAdapter, ValidationError

from ..errors import HeronSimError
from .options import Experiment, RulesSpec, flatten as _flatten  # noqa: F401  (re-exported)


@functools.cache
def kind_models() -> dict:
    """kind name -> its options model, read from the kinds' registry at each use (the kinds are
    imported when first needed: they bring the analyses, which a command that reads no
    experiment file need not import)."""
    from .kinds import KIND_MODELS

    return KIND_MODELS


def __getattr__(name: str):
    """``KINDS`` (the experiment kinds) and ``FIGURES`` (kind -> the figures it can draw, which
    the ``figures`` key chooses among), computed from the kinds' models on first use."""
    if name == "KINDS":
        return tuple(kind_models())
    if name == "FIGURES":
        from .kinds import registry

        return {k: kind.figures for k, kind in registry().items()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _adapter() -> TypeAdapter:
    """The union of the registered kinds' models (built again when a kind is registered)."""
    return _union_of(tuple(kind_models().values()))


@functools.cache
def _union_of(models: tuple) -> TypeAdapter:
    union = Annotated[Union[models], Field(discriminator="kind")]
    return TypeAdapter(union)


def experiment_schema() -> dict:
    """The JSON schema of an experiment file: one model per kind, chosen by ``kind``."""
    schema = _adapter().json_schema()
    schema["title"] = "heron-sim experiment file"
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


def load_experiment(path: str | Path) -> Experiment:
    """Read and validate one experiment file."""
    from ..tomlfile import read_toml

    path = Path(path)
    table = read_toml(path, "experiment")
    table.setdefault("name", path.stem)
    return parse_experiment(table, str(path), base_dir=path.parent)


def experiment_from_dict(d: dict) -> Experiment:
    """An experiment as a run folder's manifest stores it (:meth:`Experiment.to_dict`), read back
    without checking what lies outside it (rules files, plug-ins). A manifest written before
    each kind had its own model holds every kind's keys: those the kind never had (so never
    read) are dropped."""
    if not isinstance(d, dict):
        raise TypeError(f"experiment: {type(d).__name__}, not a table")
    model = kind_models().get(d.get("kind"))
    keep = set(model.model_fields) if model is not None else set(d)
    d = {k: v for k, v in d.items() if k in keep and v is not None}
    for key in ("rules", "a", "b"):
        if isinstance(d.get(key), dict):
            d[key] = {k: v for k, v in d[key].items() if v is not None}
    return parse_experiment(d, "<manifest>", base_dir=None, check=False)


def parse_experiment(table: dict, where: str, base_dir: Path | None, check: bool = True) -> Experiment:
    """Validate a table read from TOML (or a manifest) into the options model of its kind."""
    if not isinstance(table, dict):
        raise HeronSimError(f"{where}: must be a table of experiment keys")
    kind = table.get("kind")
    if kind not in kind_models():
        shown = "missing" if "kind" not in table else repr(kind)
        raise HeronSimError(f"{where}: kind: {shown}; allowed: {', '.join(kind_models())}")
    table = dict(table)
    # Plug-ins first: the seating may name their strategies.
    plugins = table.get("plugins", [])
    if isinstance(plugins, str):
        plugins = [plugins]
    if not isinstance(plugins, list) or not all(isinstance(p, str) and p for p in plugins):
        raise HeronSimError(f"{where}: plugins: {plugins!r}; allowed: a list of module names or .py files")
    from ..user_plugins import load_plugin

    resolved = []
    for spec in plugins:
        is_file = spec.endswith(".py") or "/" in spec
        if is_file and base_dir is not None and not Path(spec).is_absolute():
            spec = str((base_dir / spec).resolve())
        load_plugin(spec, field=f"{where}: plugins")
        resolved.append(spec)
    if "plugins" in table:
        table["plugins"] = resolved
    try:  # the union picks the kind's model by the ``kind`` key
        exp = _adapter().validate_python(table, context={"where": where, "base_dir": base_dir, "check": check})
    except ValidationError as err:
        raise _one_line(err, where, kind_models()[kind]) from None
    exp._source = where
    if check:  # build the rules once, now, so that a bad rules key fails at load time
        for key in ("rules", "a", "b"):
            spec = getattr(exp, key, None)
            if spec is None:
                continue
            for m in exp.modes:
                try:
                    spec.build(m, exp.players)
                except HeronSimError as e:  # name the experiment file and its table
                    msg = str(e)
                    raise type(e)(msg if msg.startswith(where) else f"{where}: [{key}]: {msg}") from None
    return exp


def _one_line(err: ValidationError, where: str, model) -> HeronSimError:
    """The first error of a validation as one line naming the file, the key and what is allowed."""
    e = err.errors(include_url=False)[0]
    cause = (e.get("ctx") or {}).get("error")
    if isinstance(cause, HeronSimError):  # our validators' own message
        return cause
    kind = model.model_fields["kind"].default
    loc = [str(x) for x in e["loc"] if isinstance(x, str)]
    if loc[:1] == [kind]:  # the union's tag
        loc = loc[1:]
    key = ".".join(loc) or "experiment"
    allowed = ", ".join(sorted(model.model_fields))
    if e["type"] == "extra_forbidden":
        others = [k for k, m in kind_models().items() if loc and loc[0] in m.model_fields]
        hint = f" (only for kind{'s' if len(others) > 1 else ''} {', '.join(others)})" if others else ""
        return HeronSimError(f"{where}: {key}: unknown key for kind {kind}{hint}; allowed: {allowed}")
    if e["type"] == "missing":
        return HeronSimError(f"{where}: {key}: missing; kind {kind} needs it")
    value = e.get("input")
    shown = json.dumps(value, default=str) if not isinstance(value, (str, int, float)) else repr(value)
    return HeronSimError(f"{where}: {key}: {shown}: {e['msg']}")
