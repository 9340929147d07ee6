"""The executive page: one row per question of the seed's test plan and per balance question,
each answered in one sentence derived from the report's figures (:class:`Fact`), with the
figure, its interval and n, how sure it is, and what a designer could do.

Each experiment kind writes the rows of its own questions
(:meth:`~heron_sim.runner.kinds.base.ExperimentKind.summary_rows`, in the vocabulary of
:mod:`heron_sim.analysis.executive`); :func:`build_rows` gathers them, so a new kind reaches the
page by declaring its rows. Every sentence is built from the facts at render time; a question
whose facts are missing (an experiment left out of the plan) is left out rather than guessed.
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from ..analysis.executive import TARGET_MINUTES, TARGETS, Row, margin_words, show, targets_file
from ..sections import Fact

__all__ = ["ASSUMPTIONS", "GLOSSARY", "TARGET_MINUTES", "Row", "anxiety_reconciliation", "build_rows", "show",
           "verdict", "verdict_basis"]


def _from_kinds(facts: dict[str, Fact], method: str, cls: type) -> list:
    """What the summary across experiments and then every experiment kind's ``method``
    (``summary_rows``, ``summary_problems``) return for ``facts``, in that order; an item that is
    not a ``cls`` is one :class:`~heron_sim.runner.kinds.KindError` line naming its kind."""
    from ..runner.kinds import KindError, registry
    from ..runner.kinds.across import summary_problems, summary_rows

    across = {"summary_rows": summary_rows, "summary_problems": summary_problems}[method]
    said = [("across", across(facts))] + [(name, getattr(kind, method)(facts)) for name, kind in registry().items()]
    out = []
    for name, got in said:
        for x in got:
            if not isinstance(x, cls):
                raise KindError(f"kind {name}: {method} returned {x!r}, not a {cls.__module__}.{cls.__qualname__}")
            out.append(x)
    return out


def build_rows(facts: dict[str, Fact], anchors: dict[str, str]) -> list[Row]:
    """The executive rows that the facts allow, in the order a designer asks them: the rows of
    every experiment kind (and of the summary across experiments), by their ``order``; each
    row's ``source`` (the head of its facts) becomes the anchor of the section in ``anchors``."""
    rows = [dataclasses.replace(r, source=anchors.get(r.source, ""),
                                # keep a number with its unit on one line
                                answer=r.answer.replace(" %", "\u00a0%"),
                                action=r.action.replace(" %", "\u00a0%"))
            for r in _from_kinds(facts, "summary_rows", Row)]
    return sorted(rows, key=lambda r: r.order)  # stable: a kind's rows of one order keep theirs


def anxiety_reconciliation(facts: dict[str, Fact]) -> pd.DataFrame:
    """Every Angoisse rate of the report for 8 D8, side by side, with why they differ."""
    F = facts.get
    rows = []

    def add(fid, what, why):
        f = F(fid)
        if f:
            rows.append({"figure": what, "value [95 % CI], n": show(f), "why it differs": why, "id": fid})

    add("anxiety.first_roll_exact.8d8", "first roll only (exact)",
        "3 or more Hérons among 8 dice but fewer than 4 (4 open the Étang); one roll, not a turn")
    for k in (1, 2, 3):
        add(f"anxiety.roll.8d8.greedy.{k}", f"at roll {k}, given that roll is made (greedy)",
            "conditional on reaching the roll: Hérons already reserved make later rolls riskier")
    add("anxiety.per_turn.8d8.greedy", "per turn, greedy, single turns (made: fresh turn, Loup guide, greedy never uses its power)",
        "up to 3 rolls; no Lion rescue; greedy does not use the Loup power, so no artefact")
    for s in ("prudent", "expert", "racer", "random"):
        f = F(f"anxiety.per_turn.8d8.{s}")
        if f is not None and "powers off" in (f.note or ""):
            add(f"anxiety.per_turn.8d8.{s}", f"per turn, {s}, single turns (made: fresh turn, Loup guide, one-shot powers off)",
                "its own choices of what to keep and when to stop; powers off, so no fresh Loup power every turn "
                "(a real game never gives one)")
        else:
            add(f"anxiety.per_turn.8d8.{s}", f"per turn, {s}, single turns (made: fresh turn with an unused Loup power)",
                "not a per-strategy rate: every single turn starts with a fresh Loup power this player uses every turn; "
                "use the whole-game rate of this strategy below")
    add("modes.anxiety_per_played_turn.8d8", "per really-played turn, whole games (AI strategies rotated)",
        "mixes strategies; Étang turns and Lion rescues counted; Loup square adds a roll")
    for s in ("greedy", "prudent", "expert", "racer", "random"):
        add(f"anxiety.games_per_turn.8d8.{s}", f"per turn in whole games, {s} (made: whole games, strategies rotated) — the report's per-strategy rate",
            "the strategy's own turns inside real games (guides dealt at random, powers as they come, squares, extra rolls)")
    add("anxiety.lion_rescue.8d8", "share of Angoisses the Lion rescues (whole games)",
        "only the player holding a ready Lion guide can rescue")
    return pd.DataFrame(rows)


GLOSSARY = [
    ("Étang Paisible", "Peaceful Pond", "4 or more Hérons on the first roll: free rerolls collecting Hérons; every "
     "opponent moves back one square per Héron."),
    ("Angoisse du Héron", "Heron's Anxiety", "3 or more Hérons reserved outside the Étang: the turn ends with no move."),
    ("Puissance du Guide", "Guide Power (passive doubling)", "a set of your guide's animal advances twice as far."),
    ("pouvoir ponctuel", "one-shot power", "each guide's power, used once, then exhausted until regenerated."),
    ("Guide", "guide", "the animal card dealt to each player (Loup, Taureau, Serpent, Lion, Aigle, Cerf, Héron)."),
    ("Loup, Taureau, Serpent, Lion, Aigle, Cerf, Héron", "Wolf, Bull, Snake, Lion, Eagle, Deer, Heron", "the seven animals."),
    ("Patience", "Patience (Héron guide)", "give up a roll to set one die to a face it has."),
    ("régénérer / échanger son Guide", "regenerate / swap your guide", "effects of sets of 6, 7 and 8+."),
    ("usage unique", "single use", "variant: each special square works once per game."),
    ("D8, D6", "eight- and six-sided dice", "D8: seven animals and a free-reroll face; D6: the ten historic dice."),
    ("tour mort", "dead turn", "a turn that moves nobody (no set of 3, or the Angoisse)."),
]

ASSUMPTIONS = [
    "10 D6: the seed lists no faces; the rulings assume die k has one Héron face and the five non-heron animals other "
    "than animal k mod 6 (Aigle and Cerf on 9 dice, the others on 8). Every 10 D6 figure rests on this.",
    "The squares Échange (12), Rotation (27) and Régénération (52) are placed by the rulings; the seed places them nowhere.",
    f"Time at the table: {TARGETS['seconds_per_turn']:g} s per player turn"
    + (" (assumed until a timed playtest: experiments/targets.toml)" if TARGETS.assumed("seconds_per_turn") else
       " (the designer's targets)") + "; minutes scale with it. The playtest kit (docs/playtest/: a tally sheet per "
    "game, read by heron-sim calibrate) measures the seconds per turn at a real table.",
    "A game still running after 500 rounds stops and is counted as unfinished; means of length are over finished games.",
    "Guides are dealt at random, distinct; seats rotate the strategies so that every strategy sits in every seat.",
    "The greedy player keeps the largest set, never stops early, and uses only the Taureau, Lion and Serpent powers "
    "(rulings §7); the other AIs are described in docs/strategies.md.",
    "Sets of 9 or 10 (10-dice modes) advance 10 squares with the choice of effect, as the seed's provisional cap says.",
    "Ties between largest sets go to the guide's animal, then to the animal with the lowest index (Loup first).",
    "Single-turn measures start from a fresh turn with the Loup guide (its power unused by greedy), so no Lion rescue.",
]


# ---------------------------------------------------------------- the verdict
def verdict(facts: dict[str, Fact]) -> tuple[list, list, list]:
    """What is wrong with the game, ranked by how far its interval lies beyond its margin (in
    margins), each with figure, interval and the answer it links to; what is fine; what is open.
    The candidates are the experiment kinds' (``summary_problems``) and those across experiments,
    by their ``order``."""
    from ..analysis.judge import Problem, rank

    return rank(sorted(_from_kinds(facts, "summary_problems", Problem), key=lambda p: p.order))


def verdict_basis() -> str:
    """What the verdict measures its problems against, in one sentence: the designer's targets
    (their file), and which of them are still assumed."""
    assumed = TARGETS.assumed()
    c = TARGETS["comeback_floor"]
    return (f"each effect's 95 % interval against the designer's targets ({targets_file()}): {margin_words()} for "
            "shares, the length target at each player count measured, a comeback floor of "
            f"{c:g} × the fair share for the player last at mid-game"
            + (f"; {len(assumed)} of {len(TARGETS.items)} targets are still assumed ({', '.join(TARGETS.items[n].key.label or n for n in assumed)}), and each "
               "verdict resting on one says so" if assumed else "; every target is set by the designer"))
