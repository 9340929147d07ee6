"""From the page to the rest of the tool: the variant as a rules file, the commands that
reproduce the page's figures, a ``tune`` study around the variant, the variant's rule sheet."""

from __future__ import annotations

import re
import shlex
from importlib import resources
from typing import Any

from ..lab.outputs import _toml_key, _toml_value
from ..rules import rules as _R
from .form import Setup


def _nest(overrides: dict) -> dict:
    out: dict = {}
    for key, value in overrides.items():
        cur = out
        parts = key.split(".")
        for p in parts[:-1]:
            cur = cur.setdefault(p, {})
        cur[parts[-1]] = value
    return out


def variant_toml(setup: Setup) -> str:
    """The variant as a rules TOML file (``--rules``, ``compare``): mode, players and every
    change the page made, nothing else (the other keys keep the rulings)."""
    table: dict[str, Any] = {"mode": setup.mode, "players": setup.players, **_nest(setup.overrides)}
    changes = ", ".join(f"{k} = {_toml_value(v)}" for k, v in setup.overrides.items()) or "none"
    lines = ["# A Héron rule variant written by `heron-sim explore`.",
             f"# Changes from the rulings: {changes}", ""]
    subs = {k: v for k, v in table.items() if isinstance(v, dict)}
    for k, v in table.items():
        if not isinstance(v, dict):
            lines.append(f"{_toml_key(k)} = {_toml_value(v)}")
    for name, sub in subs.items():
        plain = {k: v for k, v in sub.items() if not isinstance(v, dict) or name == "board"}
        lines += ["", f"[{name}]"] + [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in plain.items()]
    return "\n".join(lines) + "\n"


def file_name(setup: Setup) -> str:
    """A short file name for the variant (``variant-anxiety_threshold-4.toml``)."""
    if not setup.overrides:
        return "variant-rulings.toml"
    parts = []
    for k, v in list(setup.overrides.items())[:2]:
        scalar = isinstance(v, (int, float, bool, str))
        parts.append(f"{k.split('.')[-1]}-{v}" if scalar else k.split(".")[-1])
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", "-".join(parts)).strip("-").lower()
    return f"variant-{name[:60]}.toml"


def defaults_path() -> str:
    """Where the rulings' rules file is (the base of ``compare``)."""
    return str(resources.files("heron_sim.rules").joinpath("data/defaults.toml"))


def commands(setup: Setup, variant_file: str | None = None) -> dict[str, str]:
    """The commands that play the page's games (the same seeds, games and seatings).

    ``compare``: the rulings against the variant file, seated as on the page (``compare`` rotates
    the seats as the page does; with every seat the same strategy there is one seating). A fixed
    seating of different strategies cannot be rotated: then ``simulate`` of each side, with the
    strategies one per seat. ``simulate`` of the variant is always given.
    """
    vf = variant_file or file_name(setup)
    q = shlex.quote
    same = len(set(setup.seats)) == 1
    common = f"--mode {setup.mode} --players {setup.players} --games {setup.games} --seed {setup.seed}"
    out = {}
    if setup.rotate or same:
        strategy = setup.seats[0] if same else ",".join(setup.seats)
        out["compare"] = f"heron-sim compare {q(defaults_path())} {q(vf)} {common} --strategy {q(strategy)}"
        if any(":" in seat for seat in setup.seats):
            out["compare"] += "   # note: compare seats strategies by name only (their parameters are dropped)"
    if not setup.rotate or same:
        seats = q(",".join(setup.seatings[0]))
        if not same:
            out["simulate_base"] = f"heron-sim simulate {common} --strategy {seats}"
        out["simulate"] = f"heron-sim simulate --rules {q(vf)} {common} --strategy {seats}"
    else:
        out["simulate"] = (f"heron-sim simulate --rules {q(vf)} {common} --strategy {q(setup.seats[0])}"
                           "   # one strategy at every seat; compare above rotates the page's seating")
    return out


# ---------------------------------------------------------------- a tune study around the variant
def _neighbourhood(key: str, value: Any) -> dict | None:
    """A search domain around one changed value (integers: ±2 within the allowed range)."""
    spec = _R._SCALARS.get(key)
    if isinstance(value, bool):
        return {"choices": [value, not value]}
    if isinstance(value, int) and spec is not None and spec[0] is int:
        lo, hi = spec[1], spec[2]
        a, b = max(lo, value - 2), min(hi, value + 2)
        return {"int": [a, b]} if a < b else None
    if isinstance(value, float) and spec is not None and spec[0] is float:
        lo, hi = spec[1], spec[2]
        return {"float": [max(lo, value * 0.5), min(hi, value * 1.5)]}
    if isinstance(value, list) and key == "combinations.advance":
        return None  # one entry at a time below
    return None


def tune_toml(setup: Setup, name: str | None = None) -> tuple[str, str]:
    """(text, file name) of a ``heron-sim tune`` file that searches around the variant: the base is
    the variant, each changed integer key varies by ±2 (a changed switch both ways), changed
    entries of the combination table by ±2; the objective is the lab's guide spread, the mean
    length kept within ±5 % of the variant's."""
    name = name or ("explore-" + re.sub(r"[^a-z0-9]+", "-", file_name(setup)[8:-5]).strip("-"))[:40]
    params = []
    for key, value in setup.overrides.items():
        dom = _neighbourhood(key, value)
        if dom is not None:
            params.append((key, dom))
        elif key == "combinations.advance" and isinstance(value, list):
            base = list(setup.base.combo_advance)
            for i, v in enumerate(value):
                if i < len(base) and v != base[i]:
                    params.append((f"combinations.advance[{i}]", {"int": [max(0, v - 2), v + 2]}))
    if not params:  # nothing changed: search the keys a designer tunes first
        params = [("anxiety_threshold", {"int": [2, 5]}), ("pond_threshold", {"int": [3, 6]})]
    rotate = setup.rotate and len(set(setup.seats)) > 1
    seating = setup.seats if rotate else (setup.seats[0] if len(set(setup.seats)) == 1 else setup.seats)
    lines = ["# Tune study around a variant explored in `heron-sim explore` (docs/tuning.md).",
             f"# Run it with: heron-sim tune {name}.toml",
             f"name = {_toml_value(name)}",
             f"title = {_toml_value('Around the explored variant: ' + (', '.join(f'{k} = {_toml_value(v)}' for k, v in setup.overrides.items()) or 'the rulings'))}",
             f"mode = {_toml_value(setup.mode)}",
             f"players = {setup.players}",
             f"seating = {_toml_value(seating if isinstance(seating, str) else list(seating))}",
             f"seed = {setup.seed}", "",
             "[rules]                            # the base of the search: the explored variant"]
    flat = {k: v for k, v in setup.overrides.items()}
    lines.append(f"set = {_toml_value(_nest(flat)) if flat else '{}'}")
    lines += ["", "[search]", "trials = 60", "games = 8000", 'sampler = "tpe"', "",
              "[racing]", "rungs = [40000, 120000]", "keep = 4", ""]
    for key, dom in params:
        lines += ["[[param]]", f"key = {_toml_value(key)}"]
        for k, v in dom.items():
            lines.append(f"{k} = {_toml_value(v)}")
        lines.append("")
    lines += ["[[objective]]", 'metric = "guide_spread"', 'direction = "minimize"', "goal = 0.01", "",
              "[[constraint]]", 'metric = "length"', "within = 0.05", 'of = "base"', "",
              "[[constraint]]", 'metric = "completion"', "min = 0.995", ""]
    return "\n".join(lines), f"{name}.toml"


# ---------------------------------------------------------------- the rule sheet (lab issue)
def rule_sheet_function():
    """``heron_sim.lab.sheets.rule_sheet`` (imported directly: a broken sheets module is an
    error, never a silently missing button)."""
    from ..lab import sheets

    return sheets.rule_sheet

