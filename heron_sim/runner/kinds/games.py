"""Kind ``games``: the lighter games, one report section each."""

from __future__ import annotations

from typing import Literal

import pandas as pd
from pydantic import ValidationInfo, model_validator

from ...analysis import metrics as M
from ...analysis.stats import format_p
from ...sections import Figure, Section, Table, num_ci, pct, pct_ci, plot
from ...errors import HeronSimError
from ..options import Experiment, Extra, Games, LightGames, Players, figures_of, where
from ..jobs import Job, seatings
from .base import ExperimentKind, Sizes
from .common import _disp


#: The figures this kind draws (the ``figures`` key chooses among them; default: all).
FIGURES = ('seats', 'length', 'strategies')


class GamesExperiment(Experiment):
    """The options of an experiment file of kind ``games``."""

    kind: Literal["games"] = "games"
    figures: figures_of(FIGURES) = FIGURES
    games: Games = 1000
    players: Players = 4
    mixed_games: Extra = 0
    light_games: LightGames = "all"

    @model_validator(mode="before")
    @classmethod
    def _own_rules(cls, data, info: ValidationInfo):
        if isinstance(data, dict) and {"rules", "a", "b"} & set(data):
            raise HeronSimError(f"{where(info)}: kind games plays each lighter game under its own default rules; "
                                "remove [rules], [a] and [b]")
        return data


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


def _summary_module(name: str):
    """The game's summary module (its ``PLAYERS`` and ``READINGS``), or None if the game has
    none (an error inside one is raised, not taken for an absent module)."""
    import importlib

    module = f"heron_sim.games.{name.replace('-', '_')}.summary"
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name != module:
            raise
        return None


def mixed_seatings(a: str, b: str, players: int) -> list[list[str]]:
    """Two players mixed for a seat finding: ``a`` and ``b`` alternating round the table, the
    pattern rotated over the seats, both ways round (at an odd count ``a b a`` and ``b a b``), so
    that each seat holds each player equally often."""
    out: list[list[str]] = []
    for s in seatings([a, b], players) + seatings([b, a], players):
        if s not in out:
            out.append(s)
    return out


def _plan_light(exp: GamesExperiment, g) -> list[Job]:
    """Each lighter game at every player count it allows: one batch with every seat greedy
    (seat shares, length), one per other real player of the game (``LightGame.heuristics``) in
    every seat and one with greedy and the second alternating (:func:`mixed_seatings`): the seat
    findings hold for the game only if they hold in each; one with greedy and random rotated over the seats (strategy win
    shares), and one per reading of the seed the game's summary lists in ``READINGS`` (the
    old model's reading, or an option; same seeds as the default batch)."""
    from ...games import available

    from ...analysis.judge import TARGETS

    registry = available()
    TARGETS.check_games(registry)  # a [game.NAME] of the targets file that names no game: refused before playing
    names = list(registry) if exp.light_games == "all" else list(exp.light_games)
    jobs = []
    for name in names:
        game = registry[name]
        mod = _summary_module(name)
        readings = dict(getattr(mod, "READINGS", {}) or {})
        default_label = next((k for k, v in readings.items() if not v), "default")
        best = "greedy" if "greedy" in game.strategies else game.strategies[0]
        other = "random" if "random" in game.strategies and best != "random" else next(
            (s for s in game.strategies if s != best), None)
        rules = game.load_rules(None, {})
        real = [r for r in game.real_players() if r != best]
        for P in range(game.min_players, game.max_players + 1):
            base = {"game": name, "title": game.title, "players": P, "unit": light_unit(game), "doc": game.doc}
            jobs.append(Job(f"{name}_{P}p_{best}", "light", rules, g(exp.games), exp.seed, [[best] * P],
                            labels={**base, "part": "seats", "strategy": best, "variant": default_label}))
            # the seat findings with the other real players alone, and the first two mixed
            for r in real:
                jobs.append(Job(f"{name}_{P}p_{r}", "light", rules, g(exp.games), exp.seed, [[r] * P],
                                labels={**base, "part": "seats", "strategy": r, "variant": default_label}))
            if real:
                jobs.append(Job(f"{name}_{P}p_pair", "light", rules, g(exp.games), exp.seed,
                                mixed_seatings(best, real[0], P),
                                labels={**base, "part": "seats", "strategy": f"{best}+{real[0]}",
                                        "variant": default_label}))
            if other is not None:
                jobs.append(Job(f"{name}_{P}p_mixed", "light", rules, g(exp.mixed_games or exp.games), exp.seed,
                                seatings([best, other], P),
                                labels={**base, "part": "mixed", "strategies": [best, other]}))
            for i, (label, over) in enumerate(readings.items()):
                if over:
                    jobs.append(Job(f"{name}_{P}p_reading{i}", "light", game.load_rules(None, dict(over)),
                                    g(exp.games), exp.seed, [[best] * P],
                                    labels={**base, "part": "reading", "strategy": best, "variant": label,
                                            "overrides": dict(over)}))
    return jobs


# ---------------------------------------------------------------------- lighter games
def _light_sections(kind: ExperimentKind, exp, data) -> list[Section]:
    games = list(dict.fromkeys(j["labels"]["game"] for j in data.entry["jobs"]))
    secs = [_light_game(kind, exp, data, name) for name in games]
    for s in secs:
        s.part = "appendix"
        _in_words(s)
    return secs


_SNAKE = __import__("re").compile(r"\b([a-z][a-z0-9]*)_([a-z0-9_]+)\b")


def _words(text):
    """A lighter game's action and rule names in words ("remove_stone" -> "remove stone")."""
    return _SNAKE.sub(lambda m: m.group(0).replace("_", " "), text) if isinstance(text, str) else text


def _in_words(sec: Section) -> None:
    sec.findings = [_words(f) for f in sec.findings]
    sec.notes = [_words(n) for n in sec.notes]
    sec.markdown = [_words(b) for b in sec.markdown]
    for t in sec.tables:
        t.caption, t.note = _words(t.caption), _words(t.note)
        t.frame = t.frame.map(_words)
        t.frame.index = t.frame.index.map(_words) if not isinstance(t.frame.index, __import__("pandas").MultiIndex) else t.frame.index
        t.frame.columns = [_words(c) for c in t.frame.columns]


def _seat_cell(r) -> str:
    flag = (" ▲" if r["win_rate"] > r["fair"] else " ▼") if r["p_holm"] < 0.05 else ""
    return pct_ci(r["win_rate"], r["low"], r["high"]) + flag


def _light_game(kind: ExperimentKind, exp, data, name: str) -> Section:
    """One lighter game's section: seat shares, length, the seed's readings, strategies, its own summary."""
    jobs = data.select(game=name)
    all_seats = [j for j in jobs if j["labels"]["part"] == "seats"]
    first = all_seats[0]["labels"]["strategy"]
    seats_jobs = sorted((j for j in all_seats if j["labels"]["strategy"] == first), key=lambda j: int(j["labels"]["players"]))
    panels: dict[str, dict[int, pd.DataFrame]] = {}
    for j in all_seats:
        panels.setdefault(j["labels"]["strategy"], {})[int(j["labels"]["players"])] = (
            data.frame(j["key"]) if j["labels"]["strategy"] != first else None)
    mixed_jobs = {int(j["labels"]["players"]): j for j in jobs if j["labels"]["part"] == "mixed"}
    reading_jobs = [j for j in jobs if j["labels"]["part"] == "reading"]
    lab = seats_jobs[0]["labels"]
    unit, best = lab["unit"], lab["strategy"]
    counts = [int(j["labels"]["players"]) for j in seats_jobs]
    frames = {int(j["labels"]["players"]): data.frame(j["key"]) for j in seats_jobs}
    panels[first] = frames
    doc = f" (rules and assumptions: `{lab['doc']}`)" if lab.get("doc") else ""
    n_games = seats_jobs[0]["n"]
    sec = Section(key=f"{exp.name}-{name}", title=f"{lab['title']}",
                  intro=f"Lighter game `{name}`{doc}, its default rules (the seed's readings), at every player count "
                        f"it allows ({counts[0]}–{counts[-1]}). Seat shares and length from {n_games:,} games per "
                        f"player count with every seat {best}"
                        + (f"; every seat finding also with {', '.join(k for k in panels if k != first)} on the same seeds, "
                           "and called the game's only when it holds with every one"
                           if len(panels) > 1 else "")
                        + (f"; strategy win shares from games with {best} and the other strategy rotated over the seats"
                           if mixed_jobs else "")
                        + ("; each reading of the seed against the old model's on the same seeds." if reading_jobs else "."))

    P0 = min(max(exp.players, counts[0]), counts[-1])   # the headline count first, then the others
    _seat_shares(sec, frames, counts, best, n_games, lab["title"], P0, kind.want(exp, "seats"), panels)
    _length(sec, frames, unit, lab["title"], kind.want(exp, "length"))
    if reading_jobs:
        _readings(sec, data, frames, reading_jobs, lab, unit)
    if mixed_jobs:
        _strategies(sec, data, mixed_jobs, lab["title"], kind.want(exp, "strategies"))
    sec.verdict = _verdict(sec, name, panels, unit)
    sec.verdicts = {"en": sec.verdict, "fr": _verdict(sec, name, panels, unit, "fr")}  # the page in each language
    # the game's own answers, at the experiment's player count
    from ...games import available

    game = available().get(name)
    if game is not None and P0 in frames:
        sec.markdown.append(f"**The game's own summary, {P0} × {best}:**\n\n" + game.summarize(frames[P0]).strip())
    sizes = "; ".join(f"{int(j['labels'].get('players', 0)) or ''}{' players, ' if j['labels'].get('players') else ''}"
                      f"{j['labels'].get('variant') or j['labels'].get('strategy') or 'batch'}: {j['n']:,} games"
                      if isinstance(j.get("labels"), dict) else f"{j['n']:,} games" for j in jobs)
    sec.notes.append(f"Sample sizes: {sizes}; seed {exp.seed} (game i draws from stream (seed, i)); "
                     f"{sum(j.get('seconds', 0) for j in jobs):.1f} s.")
    return sec


def _verdict(sec: Section, name: str, panels: dict, unit: str, lang: str = "en"):
    """The game's verdict (:func:`heron_sim.analysis.game_verdict.game_verdict`) from every panel of
    players: seat rows and the length in rounds (a length in player turns divided by the players)."""
    from ...analysis.game_verdict import game_verdict
    from ...analysis.judge import TARGETS
    from ...games.base import seat_rows

    seats, lengths = [], []
    for k, per in panels.items():
        for P, df in per.items():
            if df is None or not len(df):
                continue
            seats.append(seat_rows(df, panel=k, players=P))
            lt = M.light_length_table(df)
            f = 1 / P if "turn" in unit else 1.0
            lengths.append({"panel": k, "players": P, "mean": lt["mean"] * f, "low": lt["mean_low"] * f,
                            "high": lt["mean_high"] * f, "n": lt["finished"], "games": lt["games"],
                            "finished": lt["finished"]})
    ids = {t.caption: f"{sec.key}-t{i + 1}" for i, t in enumerate(sec.tables)}
    anchors = {"seats": next((v for c, v in ids.items() if c.startswith("Seat win shares by player count, with")),
                             next((v for c, v in ids.items() if c.startswith("Seat win shares")), sec.key)),
               "length": next((v for c, v in ids.items() if c.startswith("Game length")), sec.key)}
    return game_verdict(name, pd.concat(seats, ignore_index=True), pd.DataFrame(lengths), TARGETS.game(name),
                        list(panels), lang=lang, anchors=anchors)


def _seat_shares(sec: Section, frames: dict, counts: list[int], best: str, n_games: int, title: str, P0: int,
                 figure: bool, panels: dict | None = None) -> None:
    """Seat win shares at every player count: table, figure, one finding per count; with
    ``panels`` (player label -> {players: frame}: each real player alone, the two mixed), each
    finding says whether it holds with every panel (:func:`seat_verdicts`)."""
    from ...games.base import seat_rows

    st = pd.concat([seat_rows(df, players=P) for P, df in frames.items()], ignore_index=True)
    P_max = max(counts)
    disp = {"decided games": [f"{int(st[st['players'] == P]['games'].iloc[0]):,}" for P in counts],
            "fair": [pct(1 / P, 1) for P in counts]}
    for s_ in range(P_max):
        disp[f"seat {s_ + 1}"] = [_seat_cell(st[(st["players"] == P) & (st["seat"] == s_)].iloc[0])
                              if s_ < P else "" for P in counts]
    sec.tables.append(Table(f"Seat win shares by player count ({best} in every seat)", _disp(
        disp, index=pd.Index(counts, name="players")), data=st,
        note="Win share over decided games: a shared win counts 1/k to each of its k co-winners, so the fair share "
             "is 1/players. Wilson 95 % intervals; exact binomial test against 1/players (the conservative score "
             "test when a seat has shared wins), Holm-corrected over the seats; ▲/▼: above/below fair after Holm."))
    if figure and len(st):
        fig_t = st.assign(ratio=st["win_rate"] * st["players"], rlow=st["low"] * st["players"],
                          rhigh=st["high"] * st["players"], batch=st["players"].map(lambda P: f"{P} players"), n=st["games"])
        sec.figures.append(Figure("seats", f"{title}: win share by seat relative to the fair share (1 = fair), "
                                           f"every player count, {n_games:,} games each; 95 % Wilson intervals.",
                                  plot("grouped_rates", fig_t, group="batch", category="seat", value="ratio",
                                       low="rlow", high="rhigh", percent=False,
                                       title=f"{title}: seat shares / fair share", xlabel="seat (turn order)",
                                       ylabel="win share × players (1 = fair)", fair=1.0, fair_label="fair",
                                       note="a shared win counts 1/k to each co-winner")))
    if panels and len(panels) > 1:
        pt = pd.concat([seat_rows(df, panel=k, players=P) for k, per in panels.items() for P, df in per.items()
                        if df is not None and len(df)], ignore_index=True)
        order = list(panels)
        pt["panel"] = pd.Categorical(pt["panel"], order)
        pt = pt.sort_values(["players", "panel", "seat"], kind="stable").reset_index(drop=True)
        rows = {}
        for (P, k), t in pt.groupby(["players", "panel"], observed=True, sort=False):
            rows[(int(P), str(k))] = {f"seat {int(r['seat']) + 1}": _seat_cell(r) for _, r in t.iterrows()}
        disp_p = pd.DataFrame.from_dict(rows, orient="index").fillna("")
        disp_p.index = pd.Index([f"{P} players, {k}" for P, k in disp_p.index], name="player count, players at the table")
        sec.tables.append(Table("Seat win shares by player count, with each real player and the two mixed",
                                disp_p, data=pt.astype({"panel": str}),
                                note="Each row: one panel of players on the same seeds (every seat one player, or "
                                     "the two alternating round the table, rotated over the seats). A seat finding "
                                     "is the game's only when it holds in every panel; ▲/▼ as above."))
        sec.findings.extend(seat_verdicts(pt.astype({"panel": str}), [P0] + [c for c in counts if c != P0], order))
        return
    for P in [P0] + [c for c in counts if c != P0]:
        t = st[st["players"] == P]
        i = int((t["win_rate"] - t["fair"]).abs().idxmax())
        r = st.loc[i]
        sig = "significant after Holm" if r["p_holm"] < 0.05 else "not significant after Holm"
        sec.findings.append(f"Seat {int(r['seat']) + 1} wins {pct_ci(r['win_rate'], r['low'], r['high'])} against a fair "
                            f"{pct(r['fair'], 0 if (100 * r['fair']).is_integer() else 1)} ({P} players × {best}, "
                            f"n = {int(r['games']):,} decided games; {sig}, {format_p(r['p_holm'])}).")


def seat_verdicts(pt: pd.DataFrame, counts: list[int], order: list[str]) -> list[str]:
    """One finding per player count from seat rows of several panels (column ``panel``; rows of
    :func:`heron_sim.games.base.seat_rows`): a seat off fair (Holm p < 0.05) the same way in every
    panel is a property of the game; one off fair in some panels only, or different ways,
    "depends on the players", with every panel's figure; none off fair in any: balanced with
    every panel (seat 1's figures given)."""
    out = []
    for P in counts:
        t = pt[pt["players"] == P]
        if t.empty:
            continue
        fair = float(t["fair"].iloc[0])
        fair_s = pct(fair, 0 if (100 * fair).is_integer() else 1)
        sig = t[t["p_holm"] < 0.05]

        def figs(seat):
            rs = t[t["seat"] == seat].set_index("panel")
            return "; ".join(f"{k} {pct_ci(rs.loc[k, 'win_rate'], rs.loc[k, 'low'], rs.loc[k, 'high'])} "
                             f"(n = {int(rs.loc[k, 'games']):,}, {format_p(rs.loc[k, 'p_holm'])})"
                             for k in order if k in rs.index)
        if sig.empty:
            out.append(f"{P} players: no seat departs from a fair {fair_s} with any player tried (Holm p >= 0.05 "
                       f"in every panel); seat 1: {figs(0)}.")
            continue
        # the seat farthest from fair in any panel first
        seats = list(dict.fromkeys(sig.assign(gap=(sig["win_rate"] - sig["fair"]).abs())
                                   .sort_values("gap", ascending=False)["seat"].astype(int)))
        for s_ in seats[:1 if P == 2 else 2]:   # at 2 players the other seat mirrors it
            rs = t[t["seat"] == s_]
            signs = {int(((r.win_rate > r.fair) * 2 - 1) if r.p_holm < 0.05 else 0) for r in rs.itertuples()}
            if len(signs) == 1 and 0 not in signs and len(rs) == len(order):
                way = "above" if signs == {1} else "below"
                out.append(f"Seat {s_ + 1} wins {way} a fair {fair_s} ({P} players) with every player tried, a "
                           f"property of the game: {figs(s_)}.")
            else:
                out.append(f"Seat {s_ + 1} against a fair {fair_s} ({P} players): depends on the players: "
                           f"{figs(s_)}.")
    return out


def _length(sec: Section, frames: dict, unit: str, title: str, figure: bool) -> None:
    """Game length at every player count: table and figure."""
    lt = pd.DataFrame([{"players": P, **M.light_length_table(df)} for P, df in frames.items()])
    sec.tables.append(Table(f"Game length ({unit}, finished games) by player count", _disp({
        "games": lt["games"].map("{:,}".format),
        "finished [95 % CI]": [pct_ci(r["finished_rate"], r["finished_low"], r["finished_high"]) for _, r in lt.iterrows()],
        f"mean ({unit}) [95 % CI]": [num_ci(r["mean"], r["mean_low"], r["mean_high"]) for _, r in lt.iterrows()],
        "median [95 % CI]": [num_ci(r["median"], r["median_low"], r["median_high"], 0) for _, r in lt.iterrows()],
        "p10 – p90": [f"{r['p10']:.0f} – {r['p90']:.0f}" for _, r in lt.iterrows()],
        "min – max": [f"{r['min']:.0f} – {r['max']:.0f}" for _, r in lt.iterrows()],
    }, index=pd.Index(lt["players"], name="players")), data=lt,
        note=f"length in {unit}, as docs say for this game; mean: t interval; median: order-statistic interval."))
    if figure:
        dists = {f"{P} players": M.light_length_distribution(df) for P, df in frames.items()}
        stats = pd.DataFrame({"label": [f"{P} players" for P in lt["players"]], "mean": lt["mean"],
                              "low": lt["mean_low"], "high": lt["mean_high"], "n": lt["finished"]})
        sec.figures.append(Figure("length", f"{title}: distribution of game length ({unit}) over finished games, "
                                            "by player count; points: mean with 95 % t interval.",
                                  plot("length_distributions", dists, stats, unit=unit, legend_below=True,
                                       title=f"{title}: game length (points: mean with 95 % interval)")))


def _readings(sec: Section, data, frames: dict, reading_jobs: list[dict], lab: dict, unit: str) -> None:
    """The seed's readings against the old model's, the same seeds: what each changes."""
    from ...games.base import length_rows

    rows = [length_rows(df, variant=lab.get("variant", "default"), players=P) for P, df in frames.items()]
    for j in reading_jobs:
        rows.append(length_rows(data.frame(j["key"]), variant=j["labels"]["variant"], players=int(j["labels"]["players"])))
    rt = pd.concat(rows, ignore_index=True)
    rt = rt.sort_values(["players"], kind="stable").reset_index(drop=True)
    sec.tables.append(Table("The seed's readings against the old model's (same seeds)", _disp({
        "players": rt["players"],
        f"mean length ({unit}) [95 % CI]": [num_ci(r["length_mean"], r["length_low"], r["length_high"])
                                            for _, r in rt.iterrows()],
        "largest seat share": [pct(x, 1) for x in rt["max_seat_share"]],
        "balance": [f"{x:.3f}" for x in rt["balance"]],
        "smallest Holm p (seats)": [format_p(x) for x in rt["min_p_holm"]],
        "shared wins": rt["shared"].map("{:,}".format),
    }, index=pd.Index(rt["variant"], name="rules")), data=rt,
        note="Each row: every seat greedy, the default rules but for the named reading. Balance: 1 - the largest "
             "gap between two seats' win shares (1 = balanced); shares count a shared win as 1/k."))


def _strategies(sec: Section, data, mixed_jobs: dict, title: str, figure: bool) -> None:
    """Strategy win shares per seat played (mixed seating) at every player count: table, figure."""
    stt = pd.concat([M.light_strategy_table(data.frame(j["key"])).assign(players=P)
                     for P, j in sorted(mixed_jobs.items())], ignore_index=True)
    allrows = stt[stt["seat"].astype(str) == "all"]
    sec.tables.append(Table("Strategy win shares per seat played (mixed seating), by player count", _disp({
        "players": allrows["players"], "seat games": allrows["seat_games"].map("{:,}".format),
        "win share [95 % CI]": [pct_ci(r["win_rate"], r["low"], r["high"]) for _, r in allrows.iterrows()],
        "fair": [pct(x, 1) for x in allrows["fair"]],
    }, index=pd.Index(allrows["strategy"], name="strategy")), data=stt,
        note="Win share per seat played (a shared win counts 1/k); Wilson 95 % intervals; seatings rotated "
             "over the seats."))
    if figure:
        ft = allrows.assign(batch=allrows["players"].map(lambda P: f"{P} players"), n=allrows["seat_games"])
        sec.figures.append(Figure("strategies", f"{title}: win share per seat played by strategy (mixed "
                                                "seating), every player count; 95 % Wilson intervals.",
                                  plot("grouped_rates", ft, group="batch", category="strategy",
                                       title=f"{title}: strategy win shares (mixed seating)",
                                       xlabel="strategy", ylabel="win share per seat played (%)",
                                       value="win_rate")))


class GamesKind(ExperimentKind):
    """The lighter games, one report section each."""

    name = "games"
    options = GamesExperiment
    figures = FIGURES

    def jobs(self, exp: GamesExperiment, g: Sizes) -> list[Job]:
        return _plan_light(exp, g)

    def sections(self, exp: GamesExperiment, data) -> list[Section]:
        """One report section per lighter game."""
        return _light_sections(self, exp, data)
