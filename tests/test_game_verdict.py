"""A lighter game's verdict (issue 34 item 2): problems ranked by size against the game's targets,
assumed targets named in words, a finding that differs between panels of players "depends on the
players", the targets file's game sections checked (an unknown key: one line), and the "what to
change" slot (synthetic frames: no game is played)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from heron_sim.analysis.game_verdict import MSGIDS, agreement, game_verdict, seat_problems
from heron_sim.report import game_change
from heron_sim.report.game_change import what_to_change
from heron_sim.analysis.targets import DEFAULT_PATH, load_targets, parse_targets
from heron_sim.errors import HeronSimError

pytestmark = pytest.mark.exact

PANELS = ["greedy", "other", "greedy+other"]


def _seats(P, shares_by_panel, half=0.01, p=1e-9):
    """Seat rows (as heron_sim.games.base.seat_rows gives them) with a ``panel`` column."""
    return pd.DataFrame([{"panel": k, "players": P, "seat": s, "games": 3000, "wins": 0, "shared": 0,
                          "win_rate": r, "low": r - half, "high": r + half, "fair": 1 / P, "p": p, "p_holm": p}
                         for k, shares in shares_by_panel.items() for s, r in enumerate(shares)])


def _lengths(P, means, half=0.02, games=3000, finished=3000):
    return pd.DataFrame([{"panel": k, "players": P, "mean": m, "low": m - half, "high": m + half, "n": finished,
                          "games": games, "finished": finished} for k, m in means.items()])


def _targets(**game):
    body = {k: {"value": v, "assumed": k != "share_margin"} for k, v in game.items()}
    return parse_targets({"game": {"toy": body}}, "targets.toml").game("toy")


def test_the_verdict_ranks_problems_by_their_size_against_the_targets():
    t = _targets(length_rounds={"4": [6, 15]}, share_margin=0.02)
    # seat 1 10 points over a fair 25 % (its interval 4.5 margins beyond), seat 4 5 points under (2 margins
    # beyond), the length 2 rounds against at least 6 (13.3 length margins short)
    seats = _seats(4, {k: [0.35, 0.25, 0.25, 0.20] for k in PANELS})
    lengths = _lengths(4, {k: 2.0 for k in PANELS})
    v = game_verdict("toy", seats, lengths, t, PANELS)
    assert [p.what.split(",")[0] for p in v.wrong] == [
        "Games are shorter than the length target at 4 players", "Seat 1 wins more than a fair 25\u00a0% at 4 players",
        "Seat 4 wins less than a fair 25\u00a0% at 4 players"]
    sizes = [p.size for p in v.wrong]
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[0] == pytest.approx((6 - 2.02) / (0.05 * 6))      # in length margins
    assert sizes[1] == pytest.approx((0.34 - 0.25) / 0.02)         # the interval's nearest bound, in share margins
    assert "a property of the game" in v.wrong[1].what
    # the same seats within the margin: nothing wrong with them, every seat fine
    ok = game_verdict("toy", _seats(4, {k: [0.255, 0.25, 0.25, 0.245] for k in PANELS}),
                      _lengths(4, {k: 9.0 for k in PANELS}), t, PANELS)
    assert ok.wrong == [] and any("Every seat wins within ±2 points of a fair 25\u00a0%" in p.what for p in ok.fine)
    assert any(p.what.startswith("Games are within the length target") for p in ok.fine)


def test_an_assumed_target_is_named_as_assumed_in_words():
    t = _targets(length_rounds={"4": [6, 15]}, share_margin=0.02)   # the margin set, the length assumed
    v = game_verdict("toy", _seats(4, {k: [0.35, 0.25, 0.25, 0.15] for k in PANELS}),
                     _lengths(4, {k: 2.0 for k in PANELS}), t, PANELS)
    length, seat = v.wrong[0], v.wrong[1]
    assert length.assumed == "assumed: the length target, the length margin (experiments/targets.toml, [game.toy])"
    assert seat.assumed == ""                   # its only target, the share margin, is the designer's
    assert "length_rounds" not in length.assumed  # words, never the key's id
    assert "still assumed (the length target, the length margin, the unfinished ceiling)" in v.basis
    # the shipped file: every value of every game still assumed, and each game's verdict says so
    shipped = load_targets(DEFAULT_PATH)
    assert set(shipped.games) == {"rampage", "fire-mountain", "akeruption", "mekong-dragons"}
    assert all(g.assumed() == list(g.items) for g in shipped.games.values())


def test_a_seat_finding_that_differs_between_panels_depends_on_the_players():
    t = _targets(share_margin=0.02)
    # seat 1 beyond the margin with greedy, inside it with the other: depends on the players
    differs = _seats(2, {"greedy": [0.60, 0.40], "other": [0.50, 0.50], "greedy+other": [0.58, 0.42]})
    (p,) = seat_problems(differs, t)
    assert p.what == "Seat 1 against a fair 50\u00a0% at 2 players: depends on the players"
    assert p.size == 0 and "greedy 60.0" in p.figure and "other 50.0" in p.figure
    # opposite ways in two panels: depends on the players as well
    flip = _seats(2, {"greedy": [0.60, 0.40], "other": [0.40, 0.60], "greedy+other": [0.60, 0.40]})
    assert all("depends on the players" in p.what for p in seat_problems(flip, t))
    # the same way in every panel: the game's (a negative control for the two above)
    same = _seats(2, {k: [0.60, 0.40] for k in PANELS})
    (p,) = seat_problems(same, t)
    assert "a property of the game" in p.what and p.size > 1
    assert agreement(["above", "open", "above"]) == "some" and agreement(["inside"] * 3) == "inside"


@pytest.mark.parametrize("text,message", [
    ('[game.rampage.lenght_rounds]\nvalue = { 4 = [6, 15] }\n',
     "targets.toml: [game.rampage.lenght_rounds]: unknown target; allowed: length_rounds, share_margin"),
    ('[game.rampage.share_margin]\nvalue = 0.02\nassumd = true\n', "[game.rampage.share_margin].assumd: unknown field"),
    ('[game.rampage.share_margin]\nvalue = 2\n', "[game.rampage.share_margin].value: 2; allowed: a number from 0 to 1"),
    ('[game.rampage.length_rounds]\nvalue = { 9 = [6, 15] }\n', "[game.rampage.length_rounds].value.9: unknown player count"),
    ('[game.rampage.length_rounds]\nvalue = { 4 = [15, 6] }\n', "lowest <= highest"),
    ('game = 3\n', "[game]: expected one table per lighter game"),
    ('[game]\nrampage = 3\n', "[game.rampage]: expected a table of targets"),
])
def test_a_bad_game_section_is_one_line(tmp_path, text, message):
    f = tmp_path / "targets.toml"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(HeronSimError) as err:
        load_targets(f)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_section_for_no_game_is_refused_and_a_game_left_out_keeps_assumed_defaults():
    t = parse_targets({"game": {"rampge": {"share_margin": {"value": 0.03}}}}, "targets.toml")
    with pytest.raises(HeronSimError, match=r"^targets.toml: \[game.rampge\]: unknown game; allowed: akeruption, rampage$"):
        t.check_games(["akeruption", "rampage"])
    d = t.game("akeruption")
    assert d["share_margin"] == 0.02 and d["length_rounds"] is None and d.assumed() == list(d.items)
    v = game_verdict("akeruption", _seats(2, {k: [0.5, 0.5] for k in PANELS}), _lengths(2, {k: 9.0 for k in PANELS}),
                     d, PANELS)
    assert any("The length is not judged" in p.what for p in v.open)


def test_what_to_change_reads_the_games_study_or_says_none_was_run(tmp_path):
    assert what_to_change("rampage", tmp_path) == "No study run yet for this game."
    (tmp_path / "tune-rampage").mkdir()
    (tmp_path / "tune-rampage" / "summary.json").write_text(json.dumps(
        {"title": "Longer Rampage", "finding": "sturdier buildings: 6.1 rounds at 4 players."}), encoding="utf-8")
    assert what_to_change("rampage", tmp_path) == ("The lab's study Longer Rampage (tune-rampage/): sturdier buildings: "
                                                   "6.1 rounds at 4 players.")


def test_the_verdict_speaks_french_from_the_catalogue():
    from heron_sim.i18n import catalogue

    fr = catalogue("fr")
    missing = [m for m in MSGIDS + game_change.MSGIDS if not fr.get(m, "").strip()]
    assert missing == [], f"no French entry in heron_sim/locale/fr.po for: {missing}"
    t = _targets(length_rounds={"4": [6, 15]}, share_margin=0.02)
    v = game_verdict("toy", _seats(4, {k: [0.35, 0.25, 0.25, 0.20] for k in PANELS}),
                     _lengths(4, {k: 2.0 for k in PANELS}), t, PANELS, lang="fr")
    assert v.wrong[1].what.startswith("Le joueur 1 gagne plus qu'une part équitable de 25\u00a0%")
    assert "2,00 [1,98 ; 2,02]" in v.wrong[0].figure


def test_the_targets_command_prints_the_games_and_refuses_a_section_for_no_game(tmp_path):
    from typer.testing import CliRunner

    from heron_sim.cli import app

    res = CliRunner().invoke(app, ["targets", str(DEFAULT_PATH)])
    assert res.exit_code == 0 and "[game.rampage]" in res.output and "lighter games: 16 of 16 targets are assumed" in res.output
    f = tmp_path / "targets.toml"
    f.write_text("[game.rampge.share_margin]\nvalue = 0.02\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["targets", str(f)])
    assert res.exit_code == 2
    assert res.output.strip().splitlines()[-1].startswith("error: targets.toml: [game.rampge]: unknown game; allowed: ")
