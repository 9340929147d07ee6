"""The executive page is unchanged by who writes its rows (issue 29, item 6): the rows, the
verdict and the Angoisse reconciliation computed from fixed facts -- the report's own findings
(``tests/data/executive_facts.json.gz``, taken from results/findings.json of commit 523b7a0),
the same with one kind's facts left out at a time, and with every figure moved by a seeded
amount -- are exactly those the single ``build_rows`` of commit 529d503 wrote
(``tests/data/executive_golden.json.gz``). The kinds added since (the balance per rung, the skill
ladder) are read from a later report's findings (``tests/data/executive_facts_8957919.json.gz``,
results/findings.json of commit 8957919: every row of the page, 15), whose rows were captured from
the code of commit 96675f2, before ``rungs`` and ``skill`` split their sections into functions.

The golden file is regenerated only on purpose (``python -m tests.test_executive_golden``) when a
sentence is meant to change; review its diff.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import math
from pathlib import Path

import numpy as np
import pytest

from heron_sim.report.executive import anxiety_reconciliation, build_rows, verdict
from heron_sim.sections import Fact

pytestmark = pytest.mark.exact

DATA = Path(__file__).resolve().parent / "data"
FACTS = DATA / "executive_facts.json.gz"
#: a later report's facts: every kind of the plan, the rung and skill rows included
FACTS_LATER = DATA / "executive_facts_8957919.json.gz"
GOLDEN = DATA / "executive_golden.json.gz"

#: the heads of the fact ids, each left out in turn (an experiment not in the plan)
HEADS = ("modes", "pond", "turns", "anxiety", "guides", "strategies", "balance", "sensitivity", "players", "d6",
         "variant")
#: the heads of the later facts left out in turn (each kind's rows, the kinds added since first)
HEADS_LATER = ("rungs", "skill", "guides", "strategies", "sensitivity")


def _num(x) -> float:
    return math.nan if x is None else float(x)


def load_facts(path: Path = FACTS) -> dict[str, Fact]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        found = json.load(fh)["findings"]
    return {f["id"]: Fact(f["id"], f["label"], _num(f["estimate"]), _num(f["interval"][0]), _num(f["interval"][1]),
                          int(f["n"]), f["unit"], f["n_unit"], _num(f["p"]), f["note"]) for f in found}


def _shifted(facts: dict[str, Fact], seed: int) -> dict[str, Fact]:
    """Every figure moved by up to its interval's width (the same shift for estimate and bounds),
    so that other branches of the sentences are read."""
    rng = np.random.default_rng(seed)
    out = {}
    for k, f in facts.items():
        w = f.high - f.low if math.isfinite(f.low) and math.isfinite(f.high) else 0.0
        d = float(rng.uniform(-1.5, 1.5)) * w
        out[k] = dataclasses.replace(f, estimate=f.estimate + d, low=f.low + d, high=f.high + d)
    return out


def cases() -> dict[str, tuple[dict[str, Fact], dict[str, str]]]:
    facts = load_facts()
    anchors = {h: f"sec-{h}" for h in ("modes", "pond", "anxiety", "guides", "strategies", "across", "sensitivity")}
    out = {"report": (facts, anchors), "no-anchors": (facts, {})}
    for h in HEADS:
        out[f"without-{h}"] = ({k: f for k, f in facts.items() if k.split(".")[0] != h}, anchors)
    for seed in (1, 2, 3):
        out[f"shifted-{seed}"] = (_shifted(facts, seed), anchors)
    later = load_facts(FACTS_LATER)
    out["later"] = (later, anchors)
    for h in HEADS_LATER:
        out[f"later-without-{h}"] = ({k: f for k, f in later.items() if k.split(".")[0] != h}, anchors)
    for seed in (4, 5):
        out[f"later-shifted-{seed}"] = (_shifted(later, seed), anchors)
    return out


def _plain(x):
    if isinstance(x, float) and not math.isfinite(x):
        return repr(x)
    return x


def snapshot(facts, anchors) -> dict:
    """What the page shows from ``facts``: every row's fields, the verdict, the reconciliation
    (an exception: its type and message, so a refactoring keeps those too)."""
    out = {}
    try:
        out["rows"] = [{"question": r.question, "answer": r.answer, "figure": r.figure, "sure": r.sure,
                        "action": r.action, "fact_id": r.fact_id, "source": r.source, "plan": r.plan, "slug": r.slug}
                       for r in build_rows(facts, anchors)]
    except Exception as e:  # noqa: BLE001 -- recorded as it was
        out["rows"] = f"{type(e).__name__}: {e}"
    try:
        # what the page shows of each problem (its ``order``, where the kinds place it, and its
        # ``facts``, the ids it rests on, are not shown)
        out["verdict"] = [[{k: _plain(v) for k, v in vars(p).items() if k not in ("order", "facts")} for p in part]
                          for part in verdict(facts)]
    except Exception as e:  # noqa: BLE001
        out["verdict"] = f"{type(e).__name__}: {e}"
    out["reconcile"] = anxiety_reconciliation(facts).to_dict(orient="records")
    return out


@pytest.fixture(scope="module")
def golden() -> dict:
    with gzip.open(GOLDEN, "rt", encoding="utf-8") as fh:
        return json.load(fh)


@pytest.mark.parametrize("name", sorted(cases()))
def test_the_executive_page_is_unchanged(golden, name):
    facts, anchors = cases()[name]
    got = json.loads(json.dumps(snapshot(facts, anchors), ensure_ascii=False, sort_keys=True))
    want = golden[name]
    if isinstance(want["rows"], list) and isinstance(got["rows"], list):
        assert [r["question"] for r in got["rows"]] == [r["question"] for r in want["rows"]]
        for g, w in zip(got["rows"], want["rows"]):
            assert g == w, g["question"]
    assert got == want


def test_the_golden_cases_read_every_row():
    """The report's own facts give every question of the page (else the golden file checks less
    than it seems); a negative control: an empty set of facts gives none."""
    facts, anchors = cases()["report"]
    assert len(build_rows(facts, anchors)) == 13
    later = [r.question for r in build_rows(*cases()["later"])]
    assert len(later) == 15 and any("rung" in q for q in later) and any("skill" in q for q in later), later
    assert build_rows({}, {}) == []


def _write() -> None:
    out = {name: snapshot(*case) for name, case in cases().items()}
    with gzip.open(GOLDEN, "wt", encoding="utf-8") as fh:
        json.dump(out, fh, ensure_ascii=False, indent=0, sort_keys=True)
    print({k: (len(v["rows"]) if isinstance(v["rows"], list) else v["rows"]) for k, v in out.items()})


if __name__ == "__main__":
    _write()
