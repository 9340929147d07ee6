"""Turn logs and ``calibrate`` under hostile or unusual input (the reliability issue's items):

- a turn log is written under rules by guide (``--set guide.NAME.KEY=...``: the seats' rows come
  in one block per set of a turn's rules) and by player count (``[seats.N]``);
- every integer column of the log reader is range-checked in one place (a 20-digit number is
  one ``error:`` line naming the file, the line, the column and the allowed range);
- a log saved with a UTF-8 byte-order mark (a spreadsheet's "CSV UTF-8") reads;
- heron-sim's own 10 D6 logs read: after a Deer use a die may show an animal it does not bear
  (the Deer sets a die to an animal showing on another die), the impossible faces are refused;
- Ctrl-C stops ``calibrate`` promptly (reading, valuing, fitting) with exit 130 and the
  ``interrupted`` line.
"""

from __future__ import annotations

import re
import signal
import time

import numpy as np
import pytest

from heron_sim import interrupt
from heron_sim.errors import HeronSimError
from heron_sim.playtest import calibrate, log_turns
from heron_sim.rules import Rules
from tests.helpers import ROOT, cli, spawn, wait_working

SAMPLE = ROOT / "experiments" / "playtest-sample.csv"
HEADER = "game,turn,seat,player,guide,ready,roll,rolls_left,dice,decision,choice,kept,die,detail,seconds"
GOOD = "0,1,0,me,loup,1,1,2,aigle serpent cerf loup aigle aigle aigle cerf,keep,reroll,0 4 5 6,,,3.5"
BIG = "9" * 20  # > 2**63: it used to end in an OverflowError traceback


def _one_error(res, *texts):
    lines = [x for x in res.output.strip().splitlines() if x]
    assert res.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error:"), res.output
    for t in texts:
        assert t in lines[0], (t, lines[0])
    return lines[0]


# ---------------------------------------------------------------- rules by guide, by player count
@pytest.mark.exact
def test_logged_games_under_rules_by_guide_are_the_simulated_games():
    """With rules by guide the seats' parameter rows come in one block per set of a turn's rules:
    every block records (it used to fail: "could not broadcast input array from shape (3,) into
    shape (6,)"), and the logged games are the games simulate plays, counter by counter."""
    from heron_sim import simulate
    from heron_sim.engine import layout as L
    from heron_sim.engine.pack import pack_rules
    from heron_sim.playtest.record import record_game
    from heron_sim.simulation import results_frame
    from heron_sim.strategies import seat_arrays

    seating = ["greedy", "prudent", "racer"]
    from heron_sim.cli._app import parse_overrides

    rules = Rules.build(mode="8d8", players=3, overrides=parse_overrides(["guide.heron.rolls=4"]))
    sids, sp = seat_arrays(seating, rules)
    assert sp.shape[0] == 2 * len(seating)  # two sets of a turn's rules: two blocks
    R = pack_rules(rules)
    rows = []
    for g in range(12):
        _, row = record_game(5, g, R, sids, sp, L.n_columns(rules.finish), cap=8)  # a buffer that grows
        rows.append(row)
    logged = results_frame(np.array(rows), rules, 5, seating)
    played = simulate(rules, 12, 5, seating, threads=1)
    assert (logged.astype(str).to_numpy() == played.astype(str).to_numpy()).all()


@pytest.mark.cli
@pytest.mark.parametrize("override", ["guide.heron.rolls=4", "seats.4.start_squares=[0,0,1,1]"])
def test_simulate_log_turns_under_rules_by_guide_and_by_count(tmp_path, override):
    """``simulate --log-turns`` under rules by guide writes the log (it used to end in a
    ValueError traceback and write nothing); a Héron holder's turn has 4 rolls there."""
    path = tmp_path / "t.csv"
    res = cli("simulate", "--games", 6, "--seed", 2, "--threads", 1, "--set", override, "--log-turns", path)
    assert res.exit_code == 0, res.output
    assert "saved the turn log of 6 games" in res.output
    text = path.read_text(encoding="utf-8")
    from heron_sim.cli._app import parse_overrides

    rules = Rules.build(mode="8d8", players=4, overrides=parse_overrides([override]))
    assert text == log_turns(rules, 6, 2, "greedy").text
    from collections import Counter

    rolls: dict[str, Counter] = {}  # guide -> roll + rolls_left of its holder's keep rows
    for line in text.splitlines()[5:]:
        c = line.split(",")
        if len(c) > 9 and c[9] == "keep":
            rolls.setdefault(c[4], Counter())[int(c[6]) + int(c[7])] += 1
    # mostly the rules' rolls (one more after a Wolf square, one less after a Patience)
    want_heron = 4 if override.startswith("guide.") else 3
    assert rolls["heron"].most_common(1)[0][0] == want_heron, rolls
    assert all(v.most_common(1)[0][0] == 3 for g, v in rolls.items() if g != "heron"), rolls


# ---------------------------------------------------------------- integer columns
#: (column, row with a 20-digit number in it, the range the message gives)
def _row(**cells) -> str:
    base = dict(zip(HEADER.split(","), GOOD.split(",")))
    base.update(cells)
    return ",".join(base[c] for c in HEADER.split(","))


SERPENT = "0,1,0,me,serpent,1,,,,serpent,yes,,,3,"
EAGLE = "0,1,0,me,aigle,0,1,2,aigle serpent cerf loup aigle aigle aigle cerf,eagle_face,1,,0,loup lion,"


@pytest.mark.cli
@pytest.mark.parametrize("col,row,allowed", [
    ("game", _row(game=BIG), "0..9007199254740991"),
    ("turn", _row(turn=BIG), "0..9007199254740991"),
    ("rolls_left", _row(rolls_left=BIG), "0..63"),
    ("roll", _row(roll=BIG), "1..63"),
    ("seat", _row(seat=BIG), "0..6"),
    ("ready", _row(ready=BIG), "0..1"),
    ("kept", _row(kept="0 " + BIG), "0..7"),
    ("game", _row(game="-" + BIG), "0..9007199254740991"),
    ("game", _row(game="1" * 5000), "0..9007199254740991"),  # no int() of 5,000 digits
    ("turn", _row(turn="1_000"), "not a whole number"),
    ("detail", SERPENT.replace(",3,", f",{BIG},"), "1..9007199254740991"),
    ("die", EAGLE.replace(",0,loup", f",{BIG},loup"), "0..7"),
    ("choice", EAGLE.replace(",1,,0,", f",{BIG},,0,"), "0..2"),
])
def test_every_integer_column_is_range_checked(tmp_path, col, row, allowed):
    path = tmp_path / "big.csv"
    path.write_text(f"# a log\n{HEADER}\n{row}\n{GOOD}\n", encoding="utf-8")
    line = _one_error(cli("calibrate", path), str(path), "line 3", f"{col}:", allowed)
    assert len(line) < 300, line  # the hostile cell is not echoed whole


def test_one_helper_reads_every_integer_column():
    """Every integer the reader takes goes through _Row.integer (no bare int() in read_log)."""
    import inspect

    from heron_sim.playtest import log

    src = inspect.getsource(log.read_log)
    assert "row.integer(" in src and not re.search(r"(?<![\w.])int\(", src), "an integer read outside _Row.integer"


# ---------------------------------------------------------------- a byte-order mark
@pytest.mark.cli
@pytest.mark.parametrize("first,end", [("", "\n"), ("# a log\n", "\n"), ("", "\r\n")])
def test_a_log_saved_with_a_byte_order_mark_reads(tmp_path, first, end):
    """A spreadsheet's "CSV UTF-8" starts with a BOM (and may end its lines with CR LF): it used
    to be refused as "missing column(s) game"; the reader goes through heron_sim.io.read_text,
    which drops it."""
    rows = [GOOD, "0,1,0,me,loup,1,2,1,aigle* serpent cerf loup aigle* aigle* aigle* cerf,keep,stop,,,,1.5"]
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf" + (first + HEADER + end + end.join(rows) + end).encode("utf-8"))
    res = cli("calibrate", path, "--json")
    assert res.exit_code == 0, res.output
    assert '"rows": 2' in res.stdout


def test_the_log_reader_reads_through_io_read_text(tmp_path, monkeypatch):
    """One reading of text files (heron_sim.io.read_text: the BOM, a file that is not UTF-8):
    the log reader does not open the file itself."""
    import heron_sim.io as hio
    from heron_sim.playtest.log import read_log

    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf" + (HEADER + "\n" + GOOD + "\n").encode("utf-8"))
    seen = []
    real = hio.read_text
    monkeypatch.setattr(hio, "read_text", lambda p, field=None: seen.append(p) or real(p, field))
    assert len(read_log(path, Rules.build(mode="8d8", players=4))) == 1
    assert seen == [path]
    path.write_bytes(b"\xff" + HEADER.encode())
    with pytest.raises(HeronSimError, match="not UTF-8"):
        read_log(path, Rules.build(mode="8d8", players=4))


# ---------------------------------------------------------------- 10 D6: the Deer's faces
D6 = ["taureau serpent lion aigle cerf heron", "loup serpent lion aigle cerf heron"]


def _d6_faces():
    rules = Rules.build(mode="10d6", players=4)
    from heron_sim.animals import NAMES

    return rules, [[NAMES[f] for f in die] for die in rules.dice]


def _lacking(faces, die, avoid=("heron",)):
    from heron_sim.animals import NAMES

    return next(a for a in NAMES if a not in faces[die] and a not in avoid)


@pytest.fixture(scope="module")
def d6_log(tmp_path_factory):
    """heron-sim's own 10 D6 log (four players, the Deer's uses included)."""
    path = tmp_path_factory.mktemp("d6") / "d6.csv"
    rules = Rules.build(mode="10d6", players=4)
    path.write_text(log_turns(rules, 40, 3, "expert,greedy,casual,racer").text, encoding="utf-8")
    return path, rules


@pytest.mark.cli
def test_heron_sims_own_10d6_log_is_accepted(d6_log):
    """The log holds a die showing an animal it does not bear after a Deer use (so this test
    can fail), and calibrate reads and fits it (it used to refuse: "die 0 has no loup face")."""
    from heron_sim.playtest.log import _face_index
    from heron_sim.engine.pack import pack_rules
    from heron_sim.animals import animal_index

    path, rules = d6_log
    R = pack_rules(rules)
    off = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        c = line.split(",")
        if line.startswith("#") or len(c) < 10 or c[0] == "game" or c[9] == "serpent":
            continue
        for i, t in enumerate(c[8].split()):
            if _face_index(R, i, animal_index(t.rstrip("*+"))) < 0:
                off += 1
                assert c[4] == "cerf" and c[5] == "0", line
    assert off > 0, "no Deer-set face in the log: pick another seed"
    res = cli("calibrate", path, "--mode", "10d6", "--json")
    assert res.exit_code == 0, res.output


def _d6_row(dice, guide="cerf", ready="0", decision="keep", choice="stop", die="", detail=""):
    return f"0,1,0,me,{guide},{ready},1,2,{dice},{decision},{choice},,{die},{detail},"


@pytest.mark.cli
@pytest.mark.parametrize("case", ["heron", "not_deer", "ready", "two", "not_that_die", "deer_target"])
def test_impossible_10d6_faces_are_refused(tmp_path, case):
    rules, faces = _d6_faces()
    dice = [f[0] if f[0] != "heron" else f[1] for f in faces]  # every die a face of its own
    lack0 = _lacking(faces, 0)
    rows = []
    if case == "heron":  # the Deer never makes a heron (every shipped die bears one: the check itself)
        from heron_sim.engine.layout import CERF, HERON
        from heron_sim.playtest.log import _check_deer, _Row

        with pytest.raises(HeronSimError, match="f.csv: line 3: dice: die 4 has no heron face"):
            _check_deer(_Row("f.csv", 3, {}), [(4, HERON)], CERF, 0, None)
        return
    if case == "not_deer":
        dice[0] = lack0
        rows, texts = [_d6_row(" ".join(dice), guide="loup")], [f"die 0 has no {lack0} face", "Deer"]
    elif case == "ready":
        dice[0] = lack0
        rows, texts = [_d6_row(" ".join(dice), ready="1")], [f"die 0 has no {lack0} face", "ready 0"]
    elif case == "two":
        dice[0] = lack0
        dice[1] = _lacking(faces, 1)
        rows, texts = [_d6_row(" ".join(dice))], ["die 0", "die 1", "one die a turn"]
    elif case == "not_that_die":  # the Deer logged on die 0 (to an animal showing); die 1 lacks its face
        lack1 = _lacking(faces, 1)
        before = list(dice)
        before[2] = lack1  # showing on another die... only if die 2 bears it
        if lack1 not in faces[2]:
            pytest.skip("die 2 does not bear the animal die 1 lacks")
        after = list(before)
        after[1] = lack1
        rows = [_d6_row(" ".join(before), ready="1", decision="power", choice="use", die="0", detail=before[2]),
                _d6_row(" ".join(after))]
        texts = [f"die 1 has no {lack1} face", "the Deer set die 0"]
    else:  # the Deer's new animal must show on another die
        target = next(a for a in ("loup", "taureau", "serpent", "lion", "aigle", "cerf") if a not in dice)
        rows = [_d6_row(" ".join(dice), ready="1", decision="power", choice="use", die="0", detail=target)]
        texts = ["detail", "showing on another die"]
    path = tmp_path / "d6.csv"
    path.write_text(HEADER + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    _one_error(cli("calibrate", path, "--mode", "10d6"), str(path), *texts)


@pytest.mark.cli
def test_a_deer_set_face_reads(tmp_path):
    """The Deer sets die 0 to an animal it lacks, showing on another die: the next rows read."""
    rules, faces = _d6_faces()
    dice = [f[0] if f[0] != "heron" else f[1] for f in faces]
    lack0 = next((a for a in dice[1:] if a not in faces[0] and a != "heron"), None)
    if lack0 is None:
        dice[1] = next(a for a in faces[1] if a not in faces[0] and a != "heron")
        lack0 = dice[1]
    after = list(dice)
    after[0] = lack0
    rows = [_d6_row(" ".join(dice), ready="1", decision="power", choice="use", die="0", detail=lack0),
            _d6_row(" ".join(after), choice="reroll").replace(",reroll,,", ",reroll,0,"),
            _d6_row(" ".join(a + "*" if i == 0 else a for i, a in enumerate(after))).replace(",1,2,", ",2,1,")]
    path = tmp_path / "d6.csv"
    path.write_text(HEADER + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    from heron_sim.playtest.log import read_log

    log = read_log(path, rules)
    assert len(log) == 3


# ---------------------------------------------------------------- Ctrl-C
@pytest.fixture
def stop_after_reset():
    interrupt.reset()
    yield
    interrupt.reset()


def test_a_stop_while_reading_raises_stopped(stop_after_reset):
    interrupt.request_stop("SIGINT")
    with pytest.raises(interrupt.Stopped) as err:
        calibrate(SAMPLE, Rules.build(mode="8d8", players=4))
    assert err.value.stage == "reading the log"


def test_a_stop_while_fitting_raises_stopped(stop_after_reset, monkeypatch):
    """A stop requested once the fit has begun (as the handler does on Ctrl-C) ends the fit at
    its next evaluation: it used to run the whole fit and its profile intervals."""
    from heron_sim.playtest import fit

    real = fit.log_likelihood
    calls = []

    def counting(*a, **k):
        calls.append(1)
        if len(calls) == 3:
            interrupt.request_stop("SIGINT")
        return real(*a, **k)

    monkeypatch.setattr(fit, "log_likelihood", counting)
    with pytest.raises(interrupt.Stopped) as err:
        calibrate(SAMPLE, Rules.build(mode="8d8", players=4))
    assert err.value.stage == "fitting"
    assert len(calls) <= 4


@pytest.mark.cli
def test_calibrate_stopped_exits_130_with_the_interrupted_line(stop_after_reset):
    interrupt.request_stop("SIGINT")
    res = cli("calibrate", SAMPLE)
    assert res.exit_code == 130, res.output
    assert res.stdout == ""
    assert "interrupted (SIGINT): calibrate stopped while reading the log; nothing was fitted" in res.stderr


def _big_log(path, copies: int) -> int:
    """The shipped sample's rows ``copies`` times (each copy its own game numbers): a long log
    without simulating it. Returns its rows."""
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    body = [ln for ln in lines if ln and not ln.startswith("#")]
    head, rows = body[0], body[1:]
    games = max(int(r.split(",", 1)[0]) for r in rows) + 1
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(head + "\n")
        for k in range(copies):
            off = k * games
            fh.write("".join(f"{int(r.split(',', 1)[0]) + off},{r.split(',', 1)[1]}\n" for r in rows))
    return copies * len(rows)


def _sigint_after(args, seconds):
    proc = spawn(args)
    wait_working(proc, seconds)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGINT)
    t0 = time.time()
    try:
        out, err = proc.communicate(timeout=120)
    except Exception:
        proc.kill()
        proc.communicate()
        raise
    return time.time() - t0, proc.returncode, out, err


@pytest.mark.cli
def test_ctrl_c_stops_calibrate_within_seconds(tmp_path):
    """A real SIGINT to ``heron-sim calibrate`` on a 180,000-row log (reading alone takes
    several seconds): exit 130 within seconds with the interrupted line, nothing on stdout. It
    used to carry on to the end and exit 0 (a 515,000-row log: 290 s after the Ctrl-C)."""
    path = tmp_path / "long.csv"
    assert _big_log(path, 40) > 170_000
    secs, rc, out, err = _sigint_after(["calibrate", path], 1.0)
    assert rc == 130 and "Traceback" not in err, err
    assert re.search(r"interrupted \(SIGINT\): calibrate stopped while [a-z ]+; nothing was fitted", err), err
    assert out == ""
    assert secs < 10, f"{secs:.1f} s from SIGINT to exit"


# ---------------------------------------------------------------- rules by guide, valued as played
def test_rules_by_guide_value_each_decision_on_its_guides_rules(tmp_path):
    """Under rules by guide a decision is valued on the tables of the rules its player's guide
    plays, and the fit's constants are the Lion's, the Bull's, the Serpent's and the Eagle's own
    (before: every row on the base rules, a Héron holder's 4th roll valued as if it had 3)."""
    from heron_sim.animals import HERON, TAUREAU
    from heron_sim.engine.pack import pack_rules
    from heron_sim.playtest import _valued, log_turns
    from heron_sim.playtest.log import read_log
    from heron_sim.playtest.values import S_GUIDE, values
    from heron_sim.rules.rules import P_BULL_BONUS
    from heron_sim.strategies import seat_arrays

    rules = Rules.build(mode="8d8", players=4, overrides={"guide.heron.rolls": 4, "guide.taureau.bull_bonus": 5})
    log = log_turns(rules, 60, 3, "casual", max_turns=600)
    path = tmp_path / "log.csv"
    path.write_text(log.text, encoding="utf-8")
    state = read_log(path, rules).state
    R, vals = _valued(rules, state)
    assert R[P_BULL_BONUS] == 5
    heron = state[:, S_GUIDE] == HERON
    own = rules.guide_rules(HERON)
    assert heron.any()
    np.testing.assert_array_equal(vals[heron], values(pack_rules(own), seat_arrays(["expert"], own)[1], state[heron]))
    base = rules.guide_rules(-1)
    plain = values(pack_rules(base), seat_arrays(["expert"], base)[1], state)
    others = ~heron & (state[:, S_GUIDE] != TAUREAU)
    np.testing.assert_array_equal(vals[others], plain[others])
    assert not np.array_equal(vals[heron], plain[heron])  # the Héron's own rules matter
