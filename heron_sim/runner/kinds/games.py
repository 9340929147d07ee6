"""Kind ``games``: the lighter games, one report section each."""

from __future__ import annotations

from functools import partial

import pandas as pd

from ...analysis import metrics as M
from ...analysis.stats import format_p
from ...report import figures as F
from ...report.section import Figure, Section, Table, num_ci, pct, pct_ci
from ..config import Experiment
from ..run import Job, seatings
from .common import _disp, _seating_text, _want


def light_unit(game) -> str:
    """The unit of a lighter game's ``length`` column, as its doc states it ("`length` is
    counted in **player turns**"); stored in the job labels so a re-render needs no doc."""
    import re
    from pathlib import Path

    doc = Path(__file__).resolve().parents[3] / game.doc if game.doc else None
    if doc is not None and doc.is_file():
        m = re.search(r"`length` is counted in \*\*([^*]+)\*\*", doc.read_text(encoding="utf-8"))
        if m:
            return m.group(1).strip()
    return "turns or rounds, see " + (game.doc or "the game's doc")


def _plan_light(exp: Experiment, g) -> list[Job]:
    """Each lighter game: one batch with every seat greedy (seat advantage, length, the
    game's summary), one with greedy and random rotated over the seats (strategy win rates).
    Players: ``exp.players`` clamped to the game's range."""
    from ...games import available

    registry = available()
    names = list(registry) if exp.light_games == "all" else list(exp.light_games)
    jobs = []
    for name in names:
        game = registry[name]
        P = min(max(exp.players, game.min_players), game.max_players)
        rules = game.load_rules(None, {})
        best = "greedy" if "greedy" in game.strategies else game.strategies[0]
        base = {"game": name, "title": game.title, "players": P, "unit": light_unit(game), "doc": game.doc}
        jobs.append(Job(f"{name}_{best}", "light", rules, g(exp.games), exp.seed, [[best] * P],
                        labels={**base, "part": "seats", "strategy": best}))
        other = "random" if "random" in game.strategies and best != "random" else next(
            (s for s in game.strategies if s != best), None)
        if other is not None:
            jobs.append(Job(f"{name}_mixed", "light", rules, g(exp.mixed_games or exp.games), exp.seed,
                            seatings([best, other], P), labels={**base, "part": "mixed", "strategies": [best, other]}))
    return jobs


# ---------------------------------------------------------------------- lighter games
def _light_sections(exp, data) -> list[Section]:
    games = list(dict.fromkeys(j["labels"]["game"] for j in data.entry["jobs"]))
    return [_light_game(exp, data, name) for name in games]


def _light_game(exp, data, name: str) -> Section:
    jobs = {j["labels"]["part"]: j for j in data.select(game=name)}
    main = jobs["seats"]
    lab = main["labels"]
    P, unit, best = int(lab["players"]), lab["unit"], lab["strategy"]
    df = data.frame(main["key"])
    mixed = data.frame(jobs["mixed"]["key"]) if "mixed" in jobs else None
    doc = f" (rules and assumptions: `{lab['doc']}`)" if lab.get("doc") else ""
    sec = Section(key=f"{exp.name}-{name}", title=f"{lab['title']}",
                  intro=f"Lighter game `{name}`{doc}, {P} players, its default rules. Seat advantage and length "
                        f"from {main['n']:,} games with every seat {best}; strategy win rates from "
                        + (f"{jobs['mixed']['n']:,} games with {' and '.join(lab2 for lab2 in jobs['mixed']['labels']['strategies'])} "
                           f"rotated over the seats ({_seating_text(jobs['mixed'])})." if mixed is not None else "no mixed batch (one strategy)."))

    # seat advantage
    st = M.light_seat_table(df)
    n_fin = int(st["games"].iloc[0]) if len(st) else 0
    sec.tables.append(Table(f"Seat advantage: win rate by seat, {P} × {best} (finished games)", _disp({
        "wins": st["wins"].map("{:,}".format), "games": st["games"].map("{:,}".format),
        "win rate [95 % CI]": [pct_ci(r["win_rate"], r["low"], r["high"]) for _, r in st.iterrows()],
        "fair": [pct(x) for x in st["fair"]],
        "p (Holm, vs fair)": [format_p(x) for x in st["p_holm"]],
        "flag": ["above fair" if (r["p_holm"] < 0.05 and r["win_rate"] > r["fair"]) else
                 "below fair" if r["p_holm"] < 0.05 else "" for _, r in st.iterrows()],
    }, index=pd.Index(st["seat"], name="seat")), data=st,
        note="Wilson 95 % intervals; exact binomial test against 1/players, Holm-corrected over the seats. "
             "A finished game with no single winner (winner -1) counts for no seat."))
    none = int((df.loc[df["finished"].to_numpy(bool), "winner"] < 0).sum())
    if none:
        sec.notes.append(f"{none:,} of {n_fin:,} finished games had no single winner (shared or none); "
                         "the seat shares therefore sum to less than 100 %.")
    if _want(exp, "seats") and len(st):
        fig_t = st.assign(batch=f"{P} × {best}", n=st["games"])
        sec.figures.append(Figure("seats", f"{lab['title']}: win rate by seat ({P} × {best}, n = {n_fin:,} finished games), "
                                           "95 % Wilson intervals; dashed line: fair share 1/players.",
                                  partial(F.grouped_rates, fig_t, group="batch", category="seat",
                                          title=f"{lab['title']}: win rate by seat", xlabel="seat (turn order)",
                                          ylabel="win rate (% of finished games)", value="win_rate",
                                          fair=1 / P, fair_label=f"fair share ({pct(1 / P)})",
                                          note=f"n = {n_fin:,} finished games; bars: 95 % Wilson intervals")))
    if len(st):
        i = int((st["win_rate"] - st["fair"]).abs().idxmax())
        r = st.loc[i]
        sig = ("significant after Holm" if r["p_holm"] < 0.05 else "not significant after Holm")
        sec.findings.append(f"Seat {int(r['seat'])} wins {pct_ci(r['win_rate'], r['low'], r['high'])} "
                            f"against a fair {pct(r['fair'], 0 if (100 * r['fair']).is_integer() else 1)} "
                            f"({P} × {best}, n = {n_fin:,} finished games; {sig}, {format_p(r['p_holm'])}).")

    # length
    batches = {f"{P} × {best}": df} | ({"mixed": mixed} if mixed is not None else {})
    rows = [{"batch": k, **M.light_length_table(v)} for k, v in batches.items()]
    lt = pd.DataFrame(rows)
    sec.tables.append(Table(f"Game length ({unit}, finished games)", _disp({
        "games": lt["games"].map("{:,}".format),
        "finished [95 % CI]": [pct_ci(r["finished_rate"], r["finished_low"], r["finished_high"]) for _, r in lt.iterrows()],
        f"mean ({unit}) [95 % CI]": [num_ci(r["mean"], r["mean_low"], r["mean_high"]) for _, r in lt.iterrows()],
        "median [95 % CI]": [num_ci(r["median"], r["median_low"], r["median_high"], 0) for _, r in lt.iterrows()],
        "p10 – p90": [f"{r['p10']:.0f} – {r['p90']:.0f}" for _, r in lt.iterrows()],
        "min – max": [f"{r['min']:.0f} – {r['max']:.0f}" for _, r in lt.iterrows()],
    }, index=pd.Index(lt["batch"], name="seating")), data=lt,
        note=f"length in {unit}, as docs say for this game; mean: t interval; median: order-statistic interval."))
    if _want(exp, "length"):
        dists = {k: M.light_length_distribution(v) for k, v in batches.items()}
        stats = pd.DataFrame({"label": lt["batch"], "mean": lt["mean"], "low": lt["mean_low"], "high": lt["mean_high"],
                              "n": lt["finished"]})
        sec.figures.append(Figure("length", f"{lab['title']}: distribution of game length ({unit}) over finished games; "
                                            "points: mean with 95 % t interval.",
                                  partial(F.length_distributions, dists, stats, unit=unit, legend_below=True,
                                          title=f"{lab['title']}: game length (points: mean with 95 % interval)")))

    # strategies
    if mixed is not None:
        stt = M.light_strategy_table(mixed)
        allrows = stt[stt["seat"] == "all"]
        sec.tables.append(Table("Strategy win rates per seat played (mixed seating, finished games)", _disp({
            "seat games": allrows["seat_games"].map("{:,}".format), "wins": allrows["wins"].map("{:,}".format),
            "win rate [95 % CI]": [pct_ci(r["win_rate"], r["low"], r["high"]) for _, r in allrows.iterrows()],
            "fair": [pct(x) for x in allrows["fair"]],
            **{f"seat {s}": [pct_ci(*stt[(stt["strategy"] == n_) & (stt["seat"] == s)][["win_rate", "low", "high"]].iloc[0])
                             if ((stt["strategy"] == n_) & (stt["seat"] == s)).any() else "" for n_ in allrows["strategy"]]
               for s in range(P)},
        }, index=pd.Index(allrows["strategy"], name="strategy")), data=stt,
            note="Win rate per seat played: wins / (games x seats the strategy held); Wilson 95 % intervals; "
                 f"seatings rotated: {_seating_text(jobs['mixed'])}."))
        if _want(exp, "strategies"):
            ft = stt.assign(seat=stt["seat"].map(lambda x: "all seats" if x == "all" else f"seat {x}"), n=stt["seat_games"])
            sec.figures.append(Figure("strategies", f"{lab['title']}: win rate per seat played by strategy (mixed seating, "
                                                    f"n = {len(mixed):,} games), 95 % Wilson intervals; dashed: fair share.",
                                      partial(F.grouped_rates, ft, group="strategy", category="seat",
                                              title=f"{lab['title']}: strategy win rates (mixed seating)",
                                              xlabel="seat (turn order)", ylabel="win rate per seat played (%)",
                                              value="win_rate", fair=1 / P, fair_label=f"fair share ({pct(1 / P)})",
                                              note=f"n = {len(mixed):,} games")))

    # the game's own answers
    from ...games import available

    game = available().get(name)
    if game is not None:
        sec.markdown.append(f"**The game's own summary (`summarize`), {P} × {best}:**\n\n" + game.summarize(df).strip())
        if mixed is not None:
            sec.markdown.append("**The game's own summary (`summarize`), mixed seating:**\n\n" + game.summarize(mixed).strip())
    sizes = "; ".join(f"{j['key']}: {j['n']:,} games" for j in jobs.values())
    sec.notes.append(f"Sample sizes: {sizes}; seed {exp.seed} (game i draws from stream (seed, i)); "
                     f"{sum(j.get('seconds', 0) for j in jobs.values()):.1f} s.")
    return sec


def plan(exp: Experiment, g, games_override: int | None = None) -> list[Job]:
    """The simulation jobs of this kind (``g(n)`` applies the --games override)."""
    return _plan_light(exp, g)


def analyse(exp, data) -> list[Section]:
    """One report section per lighter game."""
    return _light_sections(exp, data)
