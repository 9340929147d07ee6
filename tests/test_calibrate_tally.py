"""The playtest kit's tally sheet (issue 60 item 4; docs/playtest/, heron_sim/playtest/tally.py).

- statistical: recovery: tallies of 1,000 turns generated from known players (fixed seeds) give
  their caution back inside the 95 % interval, and the styles are told apart (the novice's
  interval and the regular's do not overlap; the bold beginner's is below zero); the seconds'
  t interval holds the mean the turns were drawn with;
- cli: a tally is told from a decision log by its header; the words are French by default and
  English with --lang en, every French text is in fr.po; every bad input is one ``error:`` line
  naming the file, its line and the column.
"""

from __future__ import annotations

import contextlib
import json

import pytest

from heron_sim.playtest import calibrate_files
from heron_sim.playtest import tally as T
from heron_sim.rules import Rules
from tests.helpers import ROOT, cli, one_line_error

SAMPLE = ROOT / "experiments" / "playtest-sample.csv"
HEAD = "game,round,player,rerolls,outcome,power,seconds"
GOOD = "1,1,Ana,1,stop,0,35"


def _rules():
    return Rules.build(mode="8d8", players=4)


def _code_key() -> str:
    """A hash of everything the model's frequencies can depend on: every source and data file of
    the package, and the versions of Python, numpy and numba on this machine."""
    import hashlib
    import platform
    import sys

    import numba
    import numpy as np

    h = hashlib.sha256(f"{sys.version}|{platform.machine()}|{np.__version__}|{numba.__version__}".encode())
    pkg = ROOT / "heron_sim"
    for p in sorted(pkg.rglob("*")):
        if p.is_file() and p.suffix in (".py", ".toml", ".json", ".csv") and "__pycache__" not in p.parts:
            h.update(str(p.relative_to(pkg)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:20]


@pytest.fixture(scope="module")
def model_on_disk():
    """The tally model's frequencies (T._model: hundreds of grid points, each 336,000 simulated
    turns; about 80 s of make test) kept on disk between runs, keyed on a hash of the package's
    every source (_code_key): the same code gives the same frequencies (fixed seeds; the games
    do not depend on threads, tests/test_speed.py), any edit simulates them afresh. Under
    $HERON_SIM_CACHE/tests (default ~/.cache/heron-sim/tests); HERON_SIM_TEST_CACHE=0 turns it
    off. A file that does not read is a miss; a folder that cannot be written, no cache."""
    import json
    import os
    import zipfile

    import numpy as np

    from pathlib import Path

    if os.environ.get("HERON_SIM_TEST_CACHE") == "0":
        yield
        return
    base = os.environ.get("HERON_SIM_CACHE")
    path = (Path(base) if base else Path.home() / ".cache" / "heron-sim") / "tests" / f"tally-model-{_code_key()}.npz"
    store: dict = {}
    try:
        with np.load(path, allow_pickle=False) as z:
            store = {tuple(json.loads(k)): z[k] for k in z.files}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        store = {}
    known = len(store)
    simulate = T._model

    def model(*args):
        if args not in store:
            store[args] = simulate(*args)
        return store[args]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(T, "_model", model)
        yield
    if len(store) > known:
        # an unwritable cache is no cache: the next run fits the model again (the tests read the
        # model, never the file)
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            for old in path.parent.glob("tally-model-*.npz"):  # earlier code's: never read again
                old.unlink(missing_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.part")
            with open(tmp, "wb") as f:
                np.savez(f, **{json.dumps(list(k)): v for k, v in store.items()})
            os.replace(tmp, path)


@pytest.fixture(scope="module")
def tallies(tmp_path_factory, model_on_disk):
    """Tallies of 1,000 turns (9 four-player games) of three rungs and the bold beginner."""
    d = tmp_path_factory.mktemp("tallies")
    out = {}
    for name, seed in (("novice", 1), ("casual", 2), ("regular", 3), ("reckless", 4)):
        path = d / f"{name}.csv"
        path.write_text(T.tally_text(_rules(), name, 1000, seed, seconds=45.0), encoding="utf-8")
        out[name] = calibrate_files(path, _rules())
    return out


@pytest.mark.statistical
@pytest.mark.parametrize("name", ["novice", "casual", "regular", "reckless"])
def test_tallies_of_known_players_give_their_caution_back(tallies, name):
    from heron_sim.strategies.human import RUNGS, STYLES

    truth = {**RUNGS, **STYLES}[name]["caution"]
    doc = tallies[name]
    e = doc["estimates"]["caution"]
    assert doc["kind"] == "tally" and doc["turns"] == 1000 and doc["games"] == 9
    assert e["low"] <= truth <= e["high"], (name, e)
    assert doc["nearest_rung"] == name
    assert doc["estimates"]["temp"] is None and doc["estimates"]["forget"] is None


@pytest.mark.statistical
def test_the_styles_are_told_apart(tallies):
    nov, reg, bold = (tallies[k]["estimates"]["caution"] for k in ("novice", "regular", "reckless"))
    assert reg["high"] < nov["low"]          # a timid novice and a regular player: apart
    assert bold["high"] < 0 < reg["low"]     # the bold beginner rerolls where the expert stops
    assert bold["low_at_grid_end"]           # ... nearly whenever it may: the boldest value tried


@pytest.mark.statistical
def test_seconds_per_turn_t_interval(tallies):
    # turns drawn from a gamma law of mean 45 s (shape 4: sd 22.5 s), 1,000 turns: se 0.71 s
    for doc in tallies.values():
        s = doc["seconds_per_turn"]
        assert s["turns"] == 1000 and s["low"] <= 45.0 <= s["high"]
        assert 2 * 1.96 * 22.5 / 1000 ** 0.5 * 0.8 < s["high"] - s["low"] < 2 * 1.96 * 22.5 / 1000 ** 0.5 * 1.2


def test_the_length_verdict_moves_with_the_seconds(tallies):
    L = tallies["casual"]["length"]
    assert L["players"] == 4 and L["strategy"] == "casual"
    assert L["minutes"] / L["minutes_at_targets_seconds"] == pytest.approx(
        tallies["casual"]["seconds_per_turn"]["mean"] / L["targets_seconds_per_turn"])


def test_games_needed_shrink_as_one_over_root_turns(tallies):
    doc = tallies["casual"]
    need = doc["needed"]["caution"]
    half = (doc["estimates"]["caution"]["high"] - doc["estimates"]["caution"]["low"]) / 2
    assert need["turns"] == pytest.approx(1000 * (half / 0.25) ** 2, abs=1)
    assert need["games"] == pytest.approx(need["turns"] / (1000 / 9), abs=1)


# ---------------------------------------------------------------- the command line
@pytest.fixture(scope="module")
def casual_tally(tallies, tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "casual.csv"
    path.write_text(T.tally_text(_rules(), "casual", 1000, 2, seconds=45.0), encoding="utf-8")
    return path


@pytest.mark.cli
def test_calibrate_speaks_french_by_default_and_english_on_request(casual_tally):
    fr = cli("calibrate", casual_tally)
    assert fr.exit_code == 0, fr.output
    assert "Vos joueurs jouent comme l'échelon occasionnel (concordance" in fr.stdout
    assert "Secondes par tour : 45" in fr.stdout or "Secondes par tour : 44" in fr.stdout
    assert "au lieu des 40 s supposées" in fr.stdout
    assert "journal complet des décisions" in fr.stdout and "parties" in fr.stdout
    en = cli("calibrate", casual_tally, "--lang", "en")
    assert en.exit_code == 0, en.output
    assert "Your players play like the casual rung (concordance" in en.stdout
    assert "instead of the assumed 40 s" in en.stdout
    doc = json.loads(cli("calibrate", casual_tally, "--json").stdout)
    assert doc["kind"] == "tally" and doc["fits"] == ["caution", "seconds_per_turn"]


@pytest.mark.cli
def test_a_tallys_french_passes_the_glossary(casual_tally, tallies):
    """Issue 60 item 1: calibrate's French on a tally sheet (the command's, and each branch of
    its words: timid, bold, not timed) reads as written in French (heron_sim.glossary.check_fr)."""
    import copy

    from heron_sim.cli.calibrate import words
    from tests.helpers import french_findings

    fr = cli("calibrate", casual_tally)
    assert fr.exit_code == 0, fr.output
    assert french_findings(fr.stdout) == []
    assert "case d'avance" in fr.stdout and "(temp)" not in fr.stdout and "8 D8" in fr.stdout
    for name, doc in tallies.items():
        untimed = copy.deepcopy(doc)
        untimed["seconds_per_turn"], untimed["length"], untimed["needed"]["seconds"] = None, None, None
        for d in (doc, untimed):
            assert french_findings(words(d, "fr")) == [], name


def test_every_word_has_its_french():
    from heron_sim.cli.calibrate import MESSAGES
    from heron_sim.i18n import catalogue

    missing = [m for m in MESSAGES if m not in catalogue("fr")]
    assert missing == [], f"no French entry in heron_sim/locale/fr.po for: {missing}"


def test_the_header_tells_a_tally_from_a_log():
    assert T.kind_of("x", f"# a tally\n{HEAD}\n{GOOD}\n") == "tally"
    assert T.kind_of("x", SAMPLE.read_text(encoding="utf-8")) == "log"


def test_a_tally_reads_with_bom_windows_ends_and_the_forms_letters(tmp_path):
    path = tmp_path / "t.csv"
    rows = [HEAD, "1,1,Ana,0,S,,\"12,5\"", "1,1,Ben,2,A,oui,", "1,2,Ana,0,É,x,7", "2,1,Ana,1,Angoisse,non,9"]
    path.write_bytes(("\ufeff" + "\r\n".join(rows) + "\r\n").encode("utf-8"))
    t = T.read_tally(path, _rules())
    assert t.outcome.tolist() == [0, 1, 2, 1] and t.power.tolist() == [0, 1, 1, 0]
    assert t.seconds[0] == 12.5 and t.seconds[1] != t.seconds[1]  # "12,5": a decimal comma; blank: NaN


@pytest.mark.cli
@pytest.mark.parametrize("text,needles", [
    ("", ["no header line"]),
    ("# only a comment\n", ["no header line"]),
    ("a,b,c\n1,2,3\n", ["line 1", "neither a tally sheet's"]),
    (f"{HEAD}\n", ["no turn rows"]),
    ("game,round,player,rerolls\n1,1,A,0\n", ["line 1", "missing column(s) outcome"]),
    (f"{HEAD},colour\n{GOOD},red\n", ["line 1", "unknown column(s) 'colour'"]),
    (f"{HEAD}\n1,1,Ana,1,stop,0,-3\n", ["line 2", "seconds: -3", "allowed: 0..3600"]),
    (f"{HEAD}\n1,1,Ana,1,stop,0,1e308\n", ["line 2", "seconds: 1e308"]),
    (f"{HEAD}\n1,1,Ana,1,stop,0,nan\n", ["line 2", "seconds: nan"]),
    (f"{HEAD}\n1,1,Ana,1,stop,0,soon\n", ["line 2", "seconds: 'soon' is not a number"]),
    (f"{HEAD}\n{'9' * 5000},1,Ana,1,stop,0,3\n", ["line 2", "game:", "allowed: 0..9007199254740991"]),
    (f"{HEAD}\n1,1,Ana,99,stop,0,3\n", ["line 2", "rerolls: 99", "allowed: 0..62"]),
    (f"{HEAD}\n1,1,Ana,-1,stop,0,3\n", ["line 2", "rerolls: -1"]),
    (f"{HEAD}\n1,1,Ana,1,bust,0,3\n", ["line 2", "outcome: 'bust'", "allowed: stop, angoisse, etang"]),
    (f"{HEAD}\n1,1,Ana,1,etang,0,3\n", ["line 2", "outcome: etang after 1 reroll"]),
    (f"{HEAD}\n1,1,Ana,1,stop,maybe,3\n", ["line 2", "power: 'maybe'"]),
    (f"{HEAD}\n1,1,,1,stop,0,3\n", ["line 2", "player: blank"]),
    (f"{HEAD}\n{GOOD}\n1,1,Ana,0,stop,0,3\n", ["line 3", "round:", "(line 2)"]),
    (f"{HEAD}\n1,1,Ana,1,stop\n", ["line 2", "5 fields; the header has 7"]),
    (f"{HEAD},guide\n{GOOD},dragon\n", ["line 2", "guide: 'dragon' is not a guide"]),
])
def test_a_bad_tally_is_one_error_line(tmp_path, text, needles):
    path = tmp_path / "bad.csv"
    path.write_text(text, encoding="utf-8")
    line = one_line_error(cli("calibrate", path))
    assert str(path) in line, line
    for n in needles:
        assert n in line, (n, line)
    assert len(line) < 400


@pytest.mark.cli
def test_the_same_file_twice_or_a_log_with_a_tally_is_one_error_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(f"{HEAD}\n{GOOD}\n", encoding="utf-8")
    link = tmp_path / "link.csv"
    link.symlink_to(path)
    line = one_line_error(cli("calibrate", path, link))
    assert "given twice" in line and str(link) in line
    line = one_line_error(cli("calibrate", path, SAMPLE))
    assert "a decision log comes alone" in line
    line = one_line_error(cli("calibrate", path, "--lang", "de"))
    assert "--lang: 'de'; allowed: fr, en" in line


def test_several_tallies_are_read_together(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text(f"{HEAD}\n{GOOD}\n1,1,Ben,0,angoisse,0,20\n", encoding="utf-8")
    b.write_text(f"{HEAD}\n{GOOD}\n", encoding="utf-8")  # the same game number, another sheet
    t = T.read_tally([a, b], _rules())
    assert len(t) == 3 and t.file.tolist() == [0, 0, 1]


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_kit_is_printable_linked_and_its_example_reads(tmp_path, lang):
    import re

    kit = ROOT / "docs" / "playtest"
    md = (kit / f"tally.{lang}.md").read_text(encoding="utf-8")
    page = (kit / f"tally.{lang}.html").read_text(encoding="utf-8")
    assert "@page" in page and "@media print" in page and page.count('<td class="rnd">') >= 30
    assert "<script" not in page and "http" not in page  # self-contained
    example = re.search(r"```\n(game,round,player[^`]*)```", md).group(1)
    path = tmp_path / "example.csv"
    path.write_text(example, encoding="utf-8")
    assert len(T.read_tally(path, _rules())) == 3
    for doc in ("docs/calibrate.md", "README.md"):
        assert "playtest/tally." in (ROOT / doc).read_text(encoding="utf-8"), doc
