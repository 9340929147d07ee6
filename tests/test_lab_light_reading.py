"""A lighter game's answer that is a reading of the rules text is said to be one (issue 58 item 7):
Rampage's « end when every building has fallen » is the old model's reading, not a balance fix."""

from __future__ import annotations

import json
from pathlib import Path

from heron_sim.lab.light import seed_reading
from heron_sim.lab.light_outputs import _finding_fr

RESULTS = Path(__file__).resolve().parents[1] / "results"


def test_a_change_equal_to_a_reading_is_named():
    assert seed_reading("rampage", {"end_buildings": 0}) == "end when all buildings are captured (old)"
    assert seed_reading("rampage", {"end_buildings": 0, "edible": "street", "fallen_obstacles": False}) == \
        "old model (all three)"
    # not a reading: another value, one more key, an empty change, a game without readings
    assert seed_reading("rampage", {"end_buildings": 3}) is None
    assert seed_reading("rampage", {"end_buildings": 0, "edible": "street"}) is None
    assert seed_reading("rampage", {}) is None
    assert seed_reading("akeruption", {"end_buildings": 0}) is None


def test_the_french_finding_says_it_is_a_reading():
    res = json.loads((RESULTS / "tune-rampage" / "summary.json").read_text(encoding="utf-8"))
    res = dict(res, base=res["base_evidence"])  # the study's result as the sheets get it
    e = dict(res["finalists"][0], changes_table={"end_buildings": 0})
    text = _finding_fr(e, res, "rampage")
    assert "est une lecture du livret (« fin quand tous les immeubles sont pris (ancien) »" in text
    e = dict(e, changes_table={"end_buildings": 4})
    assert "lecture du livret" not in _finding_fr(e, res, "rampage")
