"""Fire Mountain: one test per rule on hand-made states, reproducibility, bad input, statistics."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from heron_sim.cli import app
from heron_sim.errors import RulesError
from heron_sim.games import get
from heron_sim.games.base import check_core_columns
from heron_sim.games.fire_mountain import engine as E
from heron_sim.games.fire_mountain import load_rules, simulate, summarize
from heron_sim.games.fire_mountain.rules import BRONTO, PLESIO, PTERA, SPECIES, STEGO, TREX, TRICE

pytestmark = [pytest.mark.exact, pytest.mark.statistical, pytest.mark.cli]

I = np.int64
RULES = load_rules(None, {})
LAYOUT = np.array(RULES.layout, I)  # PPJL / JVPJ / LHJC / PJLP, tile id = start position
P = 3


def board():
    """A fresh board: grid, terrain by tile, figures and the kernel's scratch arrays."""
    return dict(grid=np.arange(16, dtype=I), ttype=LAYOUT.copy(), cm=np.zeros((16, P), I),
                dsp=-np.ones((P, E.MAX_SLOTS), I), dloc=-np.ones((P, E.MAX_SLOTS), I),
                res=np.zeros(P, I), score=np.zeros(P, I), label=np.zeros(16, I), size=np.zeros(16, I),
                st=np.zeros((16, P), I), reg=np.zeros((16, P), I), dist=np.zeros(16, I),
                parent=np.zeros(16, I))


def regions(b):
    n = E.label_regions(b["grid"], b["ttype"], b["label"], b["size"])
    return n, sorted(b["size"][:n].tolist())


def ends(b, start, steps, species=-1, stego_volcano=0):
    E.reach(b["grid"], b["ttype"], start, steps, species, b["dist"], b["parent"], stego_volcano)
    return {p for p in range(16) if E.legal_end(b["grid"], b["ttype"], p, b["dist"], species, stego_volcano)}


# ---------------------------------------------------------------- board, regions, earthquakes
def test_regions_are_connected_prairies_or_jungles():
    b = board()
    # prairies 0-1 form one region; every other prairie and jungle stands alone
    assert regions(b) == (9, [1] * 8 + [2])
    assert b["label"][0] == b["label"][1] and b["label"][5] == -1 and b["label"][9] == -1


def test_earthquake_slides_row_and_wraps_the_pushed_out_tile():
    b = board()
    assert E.volcano_pos(b["grid"], b["ttype"]) == 5
    assert E.shift_line(b["grid"], 5, 3) == 6          # push right
    assert b["grid"][4:8].tolist() == [7, 4, 5, 6]      # tile 7 came back at the left end
    assert b["grid"][:4].tolist() == [0, 1, 2, 3]       # other rows untouched
    # the two jungles 7 and 4 now touch: one region of two tiles
    n, sizes = regions(b)
    assert b["label"][4] == b["label"][5] and sizes.count(2) == 2


def test_earthquake_column_up_and_volcano_wraps_around():
    b = board()
    assert E.shift_line(b["grid"], 5, 0) == 1           # push up: column 1
    assert b["grid"][[1, 5, 9, 13]].tolist() == [5, 9, 13, 1]
    assert E.shift_line(b["grid"], 1, 0) == 13          # the volcano goes round the grid
    assert b["grid"][13] == 5


def test_figures_travel_with_their_tiles():
    b = board()
    b["cm"][6, 0] = 2                                   # two Cro-Magnons on the prairie tile 6
    E.shift_line(b["grid"], 5, 3)
    E.tile_strength(b["cm"], b["dsp"], b["dloc"], P, b["st"])
    n = E.label_regions(b["grid"], b["ttype"], b["label"], b["size"])
    E.region_strength(b["grid"], b["label"], n, b["st"], P, b["reg"])
    assert b["reg"][b["label"][7], 0] == 2              # tile 6 now stands at position 7


def test_quake_flip_is_detected():
    b = board()
    b["cm"][4, 0] = 1   # jungle tile 4 (pos 4): player 0
    b["cm"][7, 1] = 2   # jungle tile 7 (pos 7): player 1
    # pushing right joins tiles 7 and 4 into one region led by player 1: player 0 loses its lead
    g2 = np.zeros(16, I)
    assert E.quake_flips(b["grid"], b["ttype"], 5, 3, b["cm"], b["dsp"], b["dloc"], P, b["label"],
                         b["size"], b["st"], b["reg"], g2, np.zeros(16, I))
    # pushing down moves only column 1 (no figures, no region joins another occupied one)
    assert not E.quake_flips(b["grid"], b["ttype"], 5, 1, b["cm"], b["dsp"], b["dloc"], P,
                             b["label"], b["size"], b["st"], b["reg"], g2, np.zeros(16, I))


# ---------------------------------------------------------------- movement
def test_footprints_cross_lagoons_but_never_end_there_nor_cross_the_volcano():
    b = board()
    assert ends(b, 9, 1) == {10, 13}                    # hut: lagoon 8 not an end, volcano 5 out
    assert ends(b, 9, 2) == {10, 13, 4, 12, 6, 11}      # through lagoon 8 to 4 and 12
    assert ends(b, 4, 2) == {0, 1, 9, 12}               # 6 is two steps away only across the volcano


def test_seed_reading_the_stegosaurus_may_occupy_the_volcano():
    """"Le Stégosaure ... peut occuper le volcan", "sans autoriser tous les dinosaures": with the
    rule (the default) a Stegosaurus next to the volcano may end there, never cross it; other
    species still may not; without it (the old model) the volcano is out for every figure."""
    assert RULES.stegosaurus_on_volcano
    b = board()
    assert ends(b, 4, 1, STEGO, 1) == {0, 5}             # 4 -> volcano 5 (8 is a lagoon)
    assert 6 not in ends(b, 4, 2, STEGO, 1)              # not across it
    assert 5 not in ends(b, 4, 1, TREX, 1)
    assert ends(b, 4, 1, STEGO, 0) == {0}


def test_plesiosaurus_may_end_in_a_lagoon():
    assert ends(board(), 9, 1, PLESIO) == {8, 10, 13}


def test_pteranodon_reaches_any_prairie_or_jungle_with_one_footprint():
    b = board()
    assert ends(b, 9, 1, PTERA) == {0, 1, 2, 4, 6, 7, 10, 12, 13, 15}
    assert all(b["dist"][p] == 1 for p in (0, 15))


def test_tyrannosaurus_threatens_cromagnons_along_its_path_triceratops_guards_if_switched_on():
    b = board()
    b["dsp"][0, 0], b["dloc"][0, 0] = TREX, 0          # player 0's T-rex on tile 0
    b["cm"][1, 1] = 2                                   # player 1 on tile 1 (on the path)
    b["cm"][2, 1] = 1                                   # player 1 on tile 2 (the end)
    b["cm"][2, 2] = 3                                   # player 2 on tile 2, guarded:
    b["dsp"][2, 0], b["dloc"][2, 0] = TRICE, 2          # its Triceratops stands there
    b["cm"][2, 0] = 1                                   # the T-rex's own Cro-Magnon is safe
    E.reach(b["grid"], b["ttype"], 0, 2, TREX, b["dist"], b["parent"])
    saved = {k: v.copy() for k, v in b.items()}
    sent = E.apply_move(0, 0, 0, 2, b["grid"], b["parent"], b["cm"], b["dsp"], b["dloc"], b["res"], P, 1)
    assert sent == 3 and b["res"].tolist() == [0, 3, 0]
    assert b["cm"][1, 1] == 0 and b["cm"][2, 1] == 0 and b["cm"][2, 2] == 3 and b["cm"][2, 0] == 1
    assert b["dloc"][0, 0] == 2
    # the seed gives the Triceratops no power (the default): player 2's Cro-Magnons go too
    b = saved
    assert not RULES.triceratops_guards
    sent = E.apply_move(0, 0, 0, 2, b["grid"], b["parent"], b["cm"], b["dsp"], b["dloc"], b["res"], P, 0)
    assert sent == 6 and b["res"].tolist() == [0, 3, 3]


def test_a_cromagnon_move_is_not_a_threat():
    b = board()
    b["cm"][0, 0], b["cm"][1, 1] = 1, 1
    E.reach(b["grid"], b["ttype"], 0, 1, -1, b["dist"], b["parent"])
    assert E.apply_move(0, -1, 0, 1, b["grid"], b["parent"], b["cm"], b["dsp"], b["dloc"], b["res"], P) == 0
    assert b["cm"][1].tolist() == [1, 1, 0] and b["cm"][0, 0] == 0


# ---------------------------------------------------------------- scoring
def test_brontosaurus_counts_three():
    b = board()
    b["dsp"][1, 0], b["dloc"][1, 0] = BRONTO, 6
    b["dsp"][1, 1], b["dloc"][1, 1] = PTERA, 6
    b["dsp"][2, 0], b["dloc"][2, 0] = BRONTO, -1        # in the reserve: counts nowhere
    b["cm"][6, 0] = 4
    E.tile_strength(b["cm"], b["dsp"], b["dloc"], P, b["st"])
    assert b["st"][6].tolist() == [4, 4, 0]


def test_region_scoring_majority_ties_and_take_back():
    b = board()
    b["cm"][0, 0], b["cm"][1, 1] = 2, 1                 # region {0,1}: player 0 leads 2-1
    b["dsp"][1, 0], b["dloc"][1, 0] = TREX, 6           # tile 6: player 1 (dino) ties player 2
    b["cm"][6, 2] = 1
    b["cm"][9, 2] = 5                                   # the hut never scores
    n = E.label_regions(b["grid"], b["ttype"], b["label"], b["size"])
    E.score_regions(b["grid"], b["label"], n, b["size"], b["cm"], b["dsp"], b["dloc"], b["res"],
                    b["score"], P, b["st"], b["reg"])
    assert b["score"].tolist() == [2, 1, 1]             # 2 tiles; a tie gives full points to both
    assert b["cm"][0, 0] == 0 and b["res"][0] == 2      # the scorer takes its figures back
    assert b["cm"][1, 1] == 1                           # the loser's figure stays
    assert b["dloc"][1, 0] == -1 and b["cm"][6, 2] == 0 and b["res"][2] == 1
    assert b["cm"][9, 2] == 5


def test_volcano_scoring_three_to_tied_firsts_one_to_others():
    volc = -np.ones(10, I)
    volc[:5] = [0, 1, 0, 1, 2]
    score, res = np.zeros(P, I), np.zeros(P, I)
    E.score_volcano(volc, 5, P, score, res)
    assert score.tolist() == [3, 3, 1] and res.tolist() == [2, 2, 1] and (volc == -1).all()


def test_supreme_worshipper_alone_or_tied_never_with_none():
    volc = -np.ones(10, I)
    volc[:3] = [0, 1, 1]
    assert E.is_worshipper(volc, 5, P, 1) and not E.is_worshipper(volc, 5, P, 0)
    volc[3] = 0
    assert E.is_worshipper(volc, 5, P, 0) and E.is_worshipper(volc, 5, P, 1)
    assert not E.is_worshipper(volc, 5, P, 2)


def test_winner_tie_goes_to_the_player_farthest_from_the_first():
    assert E.winner_of(np.array([20, 18, 20, 5], I), 4) == 2
    assert E.winner_of(np.array([21, 18, 20, 5], I), 4) == 0


# ---------------------------------------------------------------- eggs, volcano faces
def test_hatching_returns_every_egg_cromagnon_and_uses_supply():
    egg, res = np.array([4, 0, 0], I), np.zeros(P, I)
    dsp, dloc = -np.ones((P, E.MAX_SLOTS), I), -np.ones((P, E.MAX_SLOTS), I)
    supply = np.full(6, 1, I)
    species = np.array(RULES.species, I)
    cost = np.array(RULES.cost, I)
    state = np.zeros(3, np.uint64)
    s = E.pick_species(0, egg, dsp, supply, species, cost, 4, state, E.S_GREEDY)
    assert s == BRONTO                                  # greedy prefers the Brontosaurus (cost 3)
    assert E.hatch(0, s, egg, res, dsp, dloc, supply, 4) == 0
    assert egg[0] == 0 and res[0] == 4                  # all four back, though it cost three
    assert supply[BRONTO] == 0 and dsp[0, 0] == BRONTO and dloc[0, 0] == -1  # into the reserve
    egg[0] = 3                                          # no copy left: the next best affordable
    assert E.pick_species(0, egg, dsp, supply, species, cost, 4, state, E.S_GREEDY) == TREX
    dsp[0, :4] = TRICE                                  # four bases used: no more hatching
    assert E.pick_species(0, egg, dsp, supply, species, cost, 4, state, E.S_GREEDY) == -1
    egg[0] = 1                                          # too few on the Egg space
    dsp[0, :4] = -1
    assert E.pick_species(0, egg, dsp, supply, species, cost, 4, state, E.S_GREEDY) == -1


def test_volcano_face_is_mandatory_and_takes_from_elsewhere_when_reserve_is_empty():
    volc = -np.ones(10, I)
    res, egg, cm = np.array([1, 0, 0], I), np.array([0, 0, 0], I), np.zeros((16, P), I)
    grid, state = np.arange(16, dtype=I), np.zeros(3, np.uint64)
    assert E.volcano_face(0, volc, 2, res, egg, cm, grid, E.S_GREEDY, state, P)
    assert res[0] == 0 and volc[0] == 0
    cm[6, 0] = 1                                        # reserve empty: a Cro-Magnon from tile 6
    assert E.volcano_face(0, volc, 2, res, egg, cm, grid, E.S_GREEDY, state, P)
    assert cm[6, 0] == 0 and volc[1] == 0
    cm[6, 0] = 1                                        # every space taken: no effect
    assert not E.volcano_face(0, volc, 2, res, egg, cm, grid, E.S_GREEDY, state, P)
    assert cm[6, 0] == 1


# ---------------------------------------------------------------- whole games
def _order_state():
    """One Cro-Magnon in reserve, none on the board; dice: one Egg, one Hut, one Footprint."""
    b = board()
    b["res"][0] = 1
    extra = dict(egg=np.zeros(P, I), volc=-np.ones(10, I), supply=np.full(6, 2, I),
                 hatched=np.zeros((P, 6), I), stats=np.zeros(E.N_STATS, I), pts=np.zeros(P, I),
                 bparent=np.zeros(16, I))
    return b, extra


def _act_fixed(b, x, params, st):
    """Greedy's action step in the fixed order (ORDERS[0]) with one Egg, one Hut, one Footprint."""
    params = params.copy()
    params[E.P_FREE_ORDER] = 0
    return E.act_step(0, E.S_GREEDY, st, b["grid"], b["ttype"], RULES_SPECIES, RULES_COST, params, b["cm"],
                      b["dsp"], b["dloc"], b["res"], x["egg"], x["volc"], x["supply"], x["hatched"], x["stats"],
                      b["label"], b["size"], b["st"], b["reg"], x["pts"], b["dist"], b["parent"], x["bparent"],
                      np.zeros(P, I), np.zeros(16, I), (0, 1, 0, 1, 1), E.new_workspace(P), E.new_workspace(P))


RULES_SPECIES = np.array(RULES.species, I)
RULES_COST = np.array(RULES.cost, I)


def test_seed_reading_free_order_of_the_dice():
    """"Les résultats finaux sont ensuite utilisés dans l'ordre qui vous convient": with one
    Cro-Magnon in reserve and Egg + Hut + Footprint, the fixed order (eggs first) spends it on
    the Egg space; greedy's best order enters it at the hut and walks it onto a jungle, where it
    holds a region."""
    params = RULES.kernel_params(P)
    assert params[E.P_FREE_ORDER] == 1
    b, x = _order_state()
    o = E.act_step(0, E.S_GREEDY, np.zeros(3, np.uint64), b["grid"], b["ttype"], RULES_SPECIES, RULES_COST,
                   params, b["cm"], b["dsp"], b["dloc"], b["res"], x["egg"], x["volc"], x["supply"],
                   x["hatched"], x["stats"], b["label"], b["size"], b["st"], b["reg"], x["pts"], b["dist"],
                   b["parent"], x["bparent"], np.zeros(P, I), np.zeros(16, I), (0, 1, 0, 1, 1),
                   E.new_workspace(P), E.new_workspace(P))
    order = list(E.ORDERS[o])
    assert order.index(E.B_ENTRIES) < order.index(E.B_EGGS) < 4
    assert x["egg"][0] == 0 and b["cm"][[10, 13], 0].sum() == 1          # on jungle 10 or 13
    st = np.zeros(3, np.uint64)
    b, x = _order_state()                   # the fixed order: the egg takes it, nothing enters
    assert _act_fixed(b, x, params, st.copy()) == 0
    assert x["egg"][0] == 1 and b["cm"][:, 0].sum() == 0


def test_end_of_round_option_gives_every_seat_as_many_turns():
    """end = "round" (not the seed's): the game ends after the last seat's turn, so every
    game lasts a multiple of the players; "eruption" (the seed) ends at once."""
    assert RULES.end == "eruption"
    df = simulate(load_rules(None, {"end": "round"}), games=60, players=3, seed=5)
    assert (df["length"] % 3 == 0).all()
    df = simulate(RULES, games=60, players=3, seed=5)
    assert (df["length"] % 3 != 0).any()


def test_core_columns_and_consistency():
    df = simulate(RULES, games=60, players=3, seed=5, strategies=["greedy", "random", "greedy"])
    check_core_columns(df)
    assert df["seats"].iloc[0] == "greedy,random,greedy" and df["strategies"].iloc[0] == "greedy,random,greedy"
    assert df["finished"].all()
    target = RULES.score_target[1]
    scores = df[["score_0", "score_1", "score_2"]].to_numpy()
    assert (scores.max(axis=1) >= target).all()
    assert (scores[np.arange(len(df)), df["winner"]] == scores.max(axis=1)).all()
    assert (df["quake_flips"] <= df["quakes"]).all() and (df["eruptions"] >= 1).all()
    hatched = df[[c for c in df if c.startswith("hatched_")]].to_numpy()
    assert hatched.sum(axis=1).max() <= 3 * 4 and hatched.max() <= RULES.copies


def test_batches_are_reproducible_whatever_the_split():
    whole = simulate(RULES, games=40, players=4, seed=11)
    a = simulate(RULES, games=25, players=4, seed=11)
    b = simulate(RULES, games=15, players=4, seed=11, first_game=25)
    import pandas as pd
    pd.testing.assert_frame_equal(whole, pd.concat([a, b], ignore_index=True))
    other = simulate(RULES, games=40, players=4, seed=12)
    assert not whole["length"].equals(other["length"])   # the seed matters


def test_greedy_beats_random():
    # 300 two-player games, greedy against random in both seats; a fair coin would give 0.5
    # (sd 0.029): require more than 0.5 + 5 sd.
    df1 = simulate(RULES, games=150, players=2, seed=3, strategies=["greedy", "random"])
    df2 = simulate(RULES, games=150, players=2, seed=4, strategies=["random", "greedy"])
    wins = (df1["winner"] == 0).sum() + (df2["winner"] == 1).sum()
    assert wins / 300 > 0.5 + 5 * 0.029


def test_summary_answers_the_questions():
    df = simulate(RULES, games=50, players=4, seed=2)
    text = summarize(df)
    for needle in ("Seat advantage", "Game length", "Strategy win rates", "brontosaurus",
                   "flip the majority", "%"):
        assert needle in text


# ---------------------------------------------------------------- rules and command line
def test_rules_defaults_and_overrides():
    r = load_rules(None, {"species": {"names": ["stegosaurus", "plesiosaurus"]}, "dice": 4})
    assert r.species == (STEGO, PLESIO) and r.dice == 4
    assert sorted(RULES.faces) == [0, 1, 2, 3, 3, 4] and RULES.cost[SPECIES.index("brontosaurus")] == 3


@pytest.mark.parametrize("over, field", [
    ({"colour": 1}, "colour"),
    ({"layout": ["PPJL", "JPPJ", "LHJC", "PJLP"]}, "layout"),
    ({"volcano_spaces": [3, 4]}, "volcano_spaces"),
    ({"faces": {"volcano": 0}}, "faces"),
    ({"species": {"names": ["dragon"]}}, "species.names"),
    ({"dice": 0}, "dice"),
])
def test_bad_rules_name_the_field(over, field):
    with pytest.raises(RulesError, match=f"^{field}.*allowed"):
        load_rules(None, over)


def test_cli_bad_input_exit_code_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("score_target = [20, 18, -1]\n")
    runner = CliRunner()
    for args in (["--rules", str(bad)], ["--players", "5"], ["--strategy", "clever"]):
        res = runner.invoke(app, ["game", "fire-mountain", "simulate", "--games", "3", *args])
        assert res.exit_code == 2, res.output
        lines = [ln for ln in res.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error:")


def test_cli_simulates():
    res = CliRunner().invoke(app, ["game", "fire-mountain", "simulate", "--games", "20",
                                   "--players", "3", "--seed", "1"])
    assert res.exit_code == 0, res.output
    assert "Seat advantage" in res.output and get("fire-mountain").name == "fire-mountain"


@pytest.mark.slow
def test_greedy_beats_random_at_scale():
    # 4000 two-player games, greedy in each seat half the time: sd of a fair rate 0.008
    df1 = simulate(RULES, games=2000, players=2, seed=13, strategies=["greedy", "random"])
    df2 = simulate(RULES, games=2000, players=2, seed=14, strategies=["random", "greedy"])
    assert df1["finished"].all() and df2["finished"].all()
    wins = (df1["winner"] == 0).sum() + (df2["winner"] == 1).sum()
    assert wins / 4000 > 0.5 + 5 * 0.008


# ---------------------------------------------------------------- negative control
def _turned(layout, k):
    """The 4x4 layout turned k quarter turns clockwise: the same board, positions renumbered."""
    g = np.array([list(r) for r in layout])
    return ["".join(r) for r in np.rot90(g, -k)]


def _rotation(games, k, players, seed):
    base = load_rules(None, {})
    layout = ["PPJL", "JVPJ", "LHJC", "PJLP"]
    rules = load_rules(None, {"layout": _turned(layout, k)}) if k else base
    return simulate(rules, games=games, players=players, seed=seed)


def test_negative_control_turning_the_board_keeps_seat_shares():
    from tests.games.controls import assert_rotation_invariant
    assert_rotation_invariant(_rotation(1200, 0, 4, 31), _rotation(1200, 1, 4, 32))


@pytest.mark.slow
def test_negative_control_turning_the_board_keeps_seat_shares_long():
    from tests.games.controls import assert_rotation_invariant
    for players in (2, 3, 4):
        base = _rotation(8000, 0, players, 41)
        for k in (1, 2, 3):
            assert_rotation_invariant(base, _rotation(8000, k, players, 41 + k))


def _run_kernel(rules, players, games, seed, strategies, replay):
    """The batch kernel's raw outputs; ``replay`` sets the reference way of playing free_order
    (every order tried, the best one replayed on the real state)."""
    strat = np.array([E.STRATEGY_ID[s] for s in strategies], I)
    params = rules.kernel_params(players)
    params[E.P_REPLAY_ORDERS] = int(replay)
    out = (np.empty(games, I), np.empty(games, I), np.empty(games, np.bool_), np.empty((games, players), I),
           np.empty((games, players, 6), I), np.empty((games, E.N_STATS), I))
    E.run_games(seed, 0, games, strat, np.array(rules.layout, I), np.array(rules.faces, I),
                np.array(rules.species, I), np.array(rules.cost, I), params, *out)
    return out


@pytest.mark.parametrize("players,over,strategies", [
    (2, {}, ["greedy"] * 2),
    (3, {"triceratops_guards": True, "end": "round"}, ["greedy", "random", "greedy"]),
    (4, {}, ["greedy"] * 4),
    (4, {"species": {"names": ["stegosaurus", "plesiosaurus", "pteranodon", "tyrannosaurus"]}}, ["greedy"] * 4),
    (3, {"dice": 7, "rolls": 2, "faces": {"footprint": 1, "hut": 2}}, ["greedy"] * 3),
])
def test_free_order_quick_path_plays_the_reference_games(players, over, strategies):
    """greedy's free order is played the quick way (orders that make the same moves skipped,
    the best order's end state kept instead of replayed): every game, draw for draw, must be
    the one the reference way gives (every order tried, the best replayed)."""
    rules = load_rules(None, over)
    quick = _run_kernel(rules, players, 120, 7, strategies, replay=False)
    ref = _run_kernel(rules, players, 120, 7, strategies, replay=True)
    for a, b in zip(quick, ref):
        np.testing.assert_array_equal(a, b)


def test_move_search_updates_the_evaluation_to_the_last_bit():
    """Greedy's move search evaluates a move by updating the base position's projected points in
    the regions the move changes (moved_value); on random positions and changes it must give
    evaluate's value exactly (same float bits), since ties between moves are decided on it."""
    from numba import njit

    @njit
    def both(reg, size, n_reg, n_players, p, rows, players, deltas):
        pts, pts0, lead0 = np.zeros(n_players, np.int64), np.zeros(n_players, np.int64), np.zeros(16, np.int64)
        E.evaluate(reg, size, n_reg, n_players, p, pts)
        mine = 0
        for q in range(n_players):
            pts0[q] = pts[q]
        for r in range(n_reg):
            lead0[r] = E.leaders(reg, r, n_players)
            mine += reg[r, p]
        changed = 0
        for i in range(rows.shape[0]):
            reg[rows[i], players[i]] += deltas[i]
            changed |= 1 << rows[i]
            if players[i] == p:
                mine += deltas[i]
        quick = E.moved_value(reg, size, n_players, p, pts, pts0, lead0, changed, mine)
        return E.evaluate(reg, size, n_reg, n_players, p, pts), quick

    gen = np.random.default_rng(2024)
    moved = 0
    for _ in range(400):
        n_players, n_reg = int(gen.integers(2, 5)), int(gen.integers(1, 17))
        reg = np.zeros((16, n_players), I)
        reg[:n_reg] = gen.integers(0, 5, (n_reg, n_players))
        size = gen.integers(1, 5, 16).astype(I)
        k = int(gen.integers(1, 5))
        rows, players = gen.integers(0, n_reg, k).astype(I), gen.integers(0, n_players, k).astype(I)
        deltas = gen.integers(-3, 4, k).astype(I)
        p = int(gen.integers(0, n_players))
        full, quick = both(reg.copy(), size, n_reg, n_players, p, rows, players, deltas)
        assert full == quick
        moved += full != both(reg.copy(), size, n_reg, n_players, p, rows[:0], players[:0], deltas[:0])[0]
    assert moved > 200   # most changes move the evaluation: the comparison is not between equal bases
