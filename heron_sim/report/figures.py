"""Matplotlib figures of the report (Agg backend): every one has a title, axis labels with
units, error bars (95 % intervals) and its sample size.

Each function takes a table computed beforehand, draws on ``ax`` (a new figure when None)
and returns the figure. The analyses name the drawing and its data as a
:class:`heron_sim.sections.Plot`; :func:`draw` makes it.
"""

from __future__ import annotations

import functools
import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.ticker import FixedFormatter, ScalarFormatter  # noqa: E402

COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]


def _axes(ax, size=(8, 4.5)):
    if ax is None:
        fig, ax = plt.subplots(figsize=size, dpi=110)
    else:
        fig = ax.figure
    return fig, ax


def _finish(fig, ax, title, xlabel, ylabel, note=None):
    ax.set_title(title, fontsize=12)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    if note:
        fig.text(0.99, 0.01, note, ha="right", va="bottom", fontsize=8, color="#444444")
        fig.tight_layout(rect=(0, 0.04, 1, 1))
    else:
        fig.tight_layout()
    return fig


def grouped_rates(table: pd.DataFrame, *, group: str, category: str, title: str, xlabel: str,
                  ylabel: str, value: str = "rate", low: str = "low", high: str = "high",
                  percent: bool = True, fair: float | None = None, fair_label: str = "fair share",
                  note: str | None = None, ax=None):
    """Bars of ``value`` by ``category`` (x) and ``group`` (colour), 95 % error bars."""
    fig, ax = _axes(ax)
    cats = list(dict.fromkeys(table[category]))
    groups = list(dict.fromkeys(table[group]))
    width = 0.8 / max(len(groups), 1)
    scale = 100.0 if percent else 1.0
    x = np.arange(len(cats))
    for i, g in enumerate(groups):
        sub = table[table[group] == g].set_index(category).reindex(cats)
        v = sub[value].to_numpy(float) * scale
        lo = sub[low].to_numpy(float) * scale
        hi = sub[high].to_numpy(float) * scale
        # clipped at 0: a Wilson bound of 0 wins can sit a rounding error above the rate
        err = np.clip(np.vstack([np.nan_to_num(v - lo), np.nan_to_num(hi - v)]), 0, None)
        label = str(g)
        if "n" in sub.columns and sub["n"].notna().any():
            label += f" (n = {int(np.nanmax(sub['n'].to_numpy(float))):,})"
        ax.bar(x + (i - (len(groups) - 1) / 2) * width, v, width, yerr=err, capsize=2,
               color=COLORS[i % len(COLORS)], label=label, error_kw={"elinewidth": 1})
    if fair is not None:
        ax.axhline(fair * scale, color="black", ls="--", lw=1, label=fair_label)
    ax.set_xticks(x, [str(c) for c in cats])
    if len(groups) > 1 or fair is not None or "n" in table.columns:
        top = np.nanmax((table[high].to_numpy(float) if high in table else table[value].to_numpy(float)) * scale)
        if np.isfinite(top) and top > 0:
            ax.set_ylim(0, top * (1.15 + 0.07 * ((len(groups) + (fair is not None) + 1) // 2)))
        ax.legend(fontsize=8, loc="upper right", ncol=2 if len(groups) + (fair is not None) > 2 else 1)
    return _finish(fig, ax, title, xlabel, ylabel, note)


def length_distributions(dists: dict[str, pd.Series], stats: pd.DataFrame, ax=None, *, unit: str = "rounds",
                         title: str = "Game length by dice mode (points: mean with 95 % interval)",
                         legend_below: bool = False):
    """Share of games ending in each round, one line per mode; the mean and its 95 % interval
    as a point with error bar above the curves. ``stats`` has label, mean, low, high, n."""
    fig, ax = _axes(ax)
    top = max(float(s.max()) for s in dists.values()) * 100 if dists else 1
    for i, (label, s) in enumerate(dists.items()):
        row = stats.set_index("label").loc[label]
        c = COLORS[i % len(COLORS)]
        ax.step(s.index, s.to_numpy() * 100, where="mid", color=c,
                label=f"{label}: mean {row['mean']:.1f} {unit} (n = {int(row['n']):,})")
        y = top * (1.08 + 0.06 * i)
        ax.errorbar([row["mean"]], [y], xerr=[[row["mean"] - row["low"]], [row["high"] - row["mean"]]],
                    fmt="o", color=c, capsize=3, ms=4)
    tails = [_quantile_of_share(s, 0.995) for s in dists.values() if len(s)]
    if tails:
        ax.set_xlim(0, max(tails) * 1.05)
        ax.text(0.99, 0.02, "x axis cut at the 99.5th percentile", transform=ax.transAxes, ha="right",
                va="bottom", fontsize=7, color="#666666")
    if legend_below:  # the mean points can sit anywhere across the top
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
    else:
        ax.legend(fontsize=8, loc="upper right")
    return _finish(fig, ax, title, f"game length ({unit})", "share of finished games (%)")


def _quantile_of_share(s: pd.Series, q: float) -> float:
    c = s.sort_index().cumsum()
    return float(c.index[np.searchsorted(c.to_numpy(), q * c.iloc[-1])]) if len(c) else 0.0


def pushback(table: pd.DataFrame, ax=None):
    """Simulated push-back law of the Pond (bars with Wilson intervals) beside the exact law
    (black ticks), by mode. Columns: mode, k, share, low, high, exact, n."""
    fig, ax = _axes(ax, (9, 4.8))
    modes = list(dict.fromkeys(table["mode"]))
    ks = sorted(table["k"].unique())
    width = 0.8 / len(modes)
    x = np.arange(len(ks))
    for i, m in enumerate(modes):
        sub = table[table["mode"] == m].set_index("k").reindex(ks)
        v = sub["share"].to_numpy(float) * 100
        err = np.vstack([np.nan_to_num(v - sub["low"].to_numpy(float) * 100),
                         np.nan_to_num(sub["high"].to_numpy(float) * 100 - v)])
        xs = x + (i - (len(modes) - 1) / 2) * width
        n = int(np.nanmax(sub["n"]))
        ax.bar(xs, v, width, yerr=err, capsize=2, color=COLORS[i], label=f"{_mode_label(m)} simulated (n = {n:,} Étangs)")
        ax.scatter(xs, sub["exact"].to_numpy(float) * 100, marker="_", s=120, color="black", zorder=3,
                   label="exact" if i == 0 else None)
    ax.set_xticks(x, [str(k) for k in ks])
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    return _finish(fig, ax, "Étang push-back: simulated vs exact", "push-back H (squares per opponent)",
                   "share of Étangs (%, log scale)")


def hazard(table: pd.DataFrame, ax=None):
    """P(Anxiety at roll k | roll k made), one line per label. Columns: label, roll, rate,
    low, high, n."""
    fig, ax = _axes(ax)
    for i, (label, sub) in enumerate(table.groupby("label", sort=False)):
        v = sub["rate"].to_numpy(float) * 100
        err = np.vstack([v - sub["low"].to_numpy(float) * 100, sub["high"].to_numpy(float) * 100 - v])
        ax.errorbar(sub["roll"].to_numpy() + (i - 1.5) * 0.03, v, yerr=err, marker="o", capsize=3,
                    color=COLORS[i % len(COLORS)], label=f"{label} (n = {int(sub['n'].iloc[0]):,} turns)")
    ax.set_xticks(sorted(table["roll"].unique()))
    ax.legend(fontsize=8)
    return _finish(fig, ax, "Risk of the third heron by roll", "roll within the turn",
                   "P(Angoisse at this roll | roll made) (%)")


def forest(table: pd.DataFrame, *, title: str, xlabel: str, label: str = "label", value: str = "diff",
           low: str = "low", high: str = "high", scale: float = 1.0, note: str | None = None, ax=None):
    """Horizontal point-and-interval plot of differences (zero line drawn)."""
    n = len(table)
    fig, ax = _axes(ax, (8, max(2.5, 0.35 * n + 1.2)))
    y = np.arange(n)[::-1]
    v = table[value].to_numpy(float) * scale
    lo = table[low].to_numpy(float) * scale
    hi = table[high].to_numpy(float) * scale
    ax.errorbar(v, y, xerr=np.vstack([np.nan_to_num(v - lo), np.nan_to_num(hi - v)]), fmt="o",
                capsize=3, color=COLORS[0])
    ax.axvline(0, color="black", lw=1)
    ax.set_yticks(y, table[label].astype(str))
    fig = _finish(fig, ax, title, xlabel, "", note)
    ax.grid(axis="x", alpha=0.3)
    return fig


def heatmap(rate: pd.DataFrame, low: pd.DataFrame, high: pd.DataFrame, n: pd.DataFrame, ax=None,
            baselines: tuple = ("random",)):
    """Head-to-head win share of the row strategy against the column strategy (%), with the
    95 % interval and the games under each cell. Rows and columns of a baseline (``random``)
    are printed on grey and kept out of the colour scale, which spans the AI cells only."""
    fig, ax = _axes(ax, (1.6 * len(rate.columns) + 3, 1.2 * len(rate.index) + 2))
    data = rate.to_numpy(float) * 100
    base_r = np.array([x in baselines for x in rate.index])
    base_c = np.array([x in baselines for x in rate.columns])
    shown = data.copy()
    shown[base_r, :] = np.nan
    shown[:, base_c] = np.nan
    ai = shown[np.isfinite(shown)]
    spread = max(5.0, float(np.abs(ai - 50).max())) if ai.size else 50.0
    cmap = plt.get_cmap("RdBu").with_extremes(bad="#e6e6e6")
    im = ax.imshow(np.ma.masked_invalid(shown), cmap=cmap, vmin=50 - spread, vmax=50 + spread)
    for i in range(data.shape[0]):
        for j in range(data.shape[1]):
            if np.isfinite(data[i, j]):
                ax.text(j, i, f"{data[i, j]:.1f} %\n[{100 * low.iat[i, j]:.1f}, {100 * high.iat[i, j]:.1f}]\nn = {int(n.iat[i, j]):,}",
                        ha="center", va="center", fontsize=8,
                        color="white" if np.isfinite(shown[i, j]) and abs(shown[i, j] - 50) > 0.6 * spread else "black")
            else:
                ax.text(j, i, "—", ha="center", va="center")
    ax.set_xticks(range(len(rate.columns)), rate.columns)
    ax.set_yticks(range(len(rate.index)), rate.index)
    fig.colorbar(im, ax=ax, label="row strategy's share of wins (%)")
    ax.set_title("Head to head: share of wins of the row strategy\n(two seats each, seats rotated; grey: random baseline)", fontsize=12)
    ax.set_xlabel("opponent strategy")
    ax.set_ylabel("strategy")
    fig.tight_layout()
    return fig


def board(per_game, effects: dict, ax=None, *, finish: int = 63, title: str = "", games: int = 0):
    """The board (the explorer's drawing, heron_sim.analysis.board.board_svg): squares 1 ..
    ``finish`` on a serpentine grid, each shaded by its landings per game (``per_game[square]``)
    and written with it, each special square outlined in its effect's colour with its mark."""
    from matplotlib.patches import FancyBboxPatch

    from ..analysis.board import COLS, EFFECT_COLOURS, EFFECT_MARKS, cell_xy

    rows = -(-finish // COLS)
    fig, ax = _axes(ax, size=(7.2, 0.8 * rows + 0.9))
    per_game = np.asarray(per_game, dtype=float)
    top = float(per_game[1: finish + 1].max()) if finish >= 1 and len(per_game) > 1 else 0.0
    for sq in range(1, finish + 1):
        c, r = cell_xy(sq)
        v = float(per_game[sq]) if sq < len(per_game) else 0.0
        shade = v / top if top > 0 else 0.0
        eff = effects.get(sq)
        edge = EFFECT_COLOURS.get(eff, "#999999") if eff else "#bbbbbb"
        ax.add_patch(FancyBboxPatch((c + 0.05, rows - r - 0.95), 0.9, 0.9, boxstyle="round,pad=0,rounding_size=0.1",
                                    facecolor=(31 / 255, 119 / 255, 180 / 255, 0.06 + 0.6 * shade), edgecolor=edge,
                                    linewidth=2.2 if eff else 0.6))
        ax.text(c + 0.12, rows - r - 0.25, str(sq), fontsize=7, va="center")
        ax.text(c + 0.12, rows - r - 0.52, f"{v:.2f}", fontsize=6, va="center", color="#333333")
        mark = EFFECT_MARKS.get(eff) if eff else ("★" if sq == finish else None)
        if mark:
            ax.text(c + 0.88, rows - r - 0.78, mark, fontsize=7, ha="right", va="center", fontweight="bold",
                    color=edge if eff else "#222222")
    ax.set_xlim(0, COLS)
    ax.set_ylim(0, rows)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title, fontsize=11)
    if games:
        fig.text(0.99, 0.01, f"n = {games:,} games replayed; shade and number: landings per game", ha="right",
                 va="bottom", fontsize=7, color="#444444")
    fig.tight_layout()
    return fig


def chance_curves(table: pd.DataFrame):
    """Each seat's chance of winning at the start of every turn slot, one panel per game.
    Columns: game, label, slot, round, seat, chance, winner (seats from 1)."""
    labels = list(dict.fromkeys(table["label"]))
    fig, axes = plt.subplots(1, max(len(labels), 1), figsize=(4 * max(len(labels), 1), 3.8), dpi=110,
                             sharey=True, squeeze=False)
    for ax, label in zip(axes[0], labels):
        sub = table[table["label"] == label]
        winner = int(sub["winner"].iloc[0])
        for s, one in sub.groupby("seat", sort=True):
            won = int(s) == winner
            ax.plot(one["round"].to_numpy(float), 100 * one["chance"].to_numpy(float),
                    color=COLORS[(int(s) - 1) % len(COLORS)], lw=2.2 if won else 1.1,
                    label=f"player {int(s)}" + (" (winner)" if won else ""))
        ax.axhline(80, color="#888888", lw=0.8, ls="--")
        ax.axhline(10, color="#888888", lw=0.8, ls=":")
        ax.set_title(label, fontsize=11)
        ax.set_xlabel("round")
        ax.set_ylim(0, 100)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    axes[0][0].set_ylabel("chance of winning (%)")
    fig.suptitle("Each player's chance of winning, turn by turn (dashed: 80 %, dotted: 10 %)", fontsize=11)
    fig.tight_layout()
    return fig


def draw(spec, tr=None, lang: str = "en"):
    """The matplotlib figure of a :class:`heron_sim.sections.Plot`: the function of this module
    it names, called with its data and options; ``tr`` (a text in the page's language, e.g.
    :meth:`heron_sim.report.annex_lang.AnnexWords.tr`): its lettering in ``lang``
    (:func:`localize`)."""
    fig = globals()[spec.kind](*spec.args, **spec.options)
    if tr is not None and lang != "en":
        localize(fig, tr, lang)
    return fig


#: A special square's mark on the board (heron_sim.analysis.board.EFFECT_MARKS) or the finish's star.
_MARK = re.compile(r"[A-Za-zÀ-ÿ]{1,2}|★")


class _DecimalComma(ScalarFormatter):
    """Matplotlib's numbers with the decimal comma (« 2,5 ») for a French figure."""

    def __call__(self, x, pos=None):
        return super().__call__(x, pos).replace(".", ",").replace("-", "\u2212")


def figure_texts(fig) -> list:
    """Every text artist a reader sees on ``fig``: the titles, the axis labels, the legends'
    entries and titles, the texts written on the axes and on the figure (not the tick labels:
    :func:`localize` translates a categorical axis's labels through its formatter)."""
    out = []
    for ax in fig.axes:
        out += [ax.title, getattr(ax, "_left_title", None), getattr(ax, "_right_title", None), ax.xaxis.label,
                ax.yaxis.label, *ax.texts]
        leg = ax.get_legend()
        if leg is not None:
            out += [leg.get_title(), *leg.get_texts()]
    out += list(fig.texts)
    return [t for t in out if t is not None and t.get_text().strip()]


def _fixed_labels(fmt):
    """A categorical axis's labels and how to replace them (``None``: a numeric axis): a
    ``FixedFormatter``'s, or the tick-to-label table that ``set_ticks(ticks, labels)`` gives a
    ``FuncFormatter`` (matplotlib 3.10 and later)."""
    if isinstance(fmt, FixedFormatter):
        return [str(x) for x in fmt.seq], lambda new: setattr(fmt, "seq", list(new))
    func = getattr(fmt, "func", None)
    if isinstance(func, functools.partial) and func.args and isinstance(func.args[0], dict):
        table = func.args[0]
        keys = list(table)
        return [str(table[k]) for k in keys], lambda new: table.update(zip(keys, new))
    return None


def tick_labels(fig) -> list[str]:
    """The categorical tick labels of ``fig`` (the fixed ones: strategies, modes, guides)."""
    out = []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            fixed = _fixed_labels(axis.get_major_formatter())
            if fixed is not None:
                out += fixed[0]
    return out


def localize(fig, tr, lang: str) -> None:
    """``fig``'s lettering in ``lang``: each text artist (:func:`figure_texts`), line by line,
    and each categorical tick label through ``tr``; a French figure's numeric ticks with the
    decimal comma; the layout made again for the new words' lengths."""
    def one(text: str) -> str:  # a square's mark on the board ("Lo", "Éc") is the game's own: kept
        return "\n".join(tr(line) if line.strip() and not _MARK.fullmatch(line.strip()) else line
                         for line in text.split("\n"))

    for t in figure_texts(fig):
        if not t.get_text().startswith("$"):  # mathtext (a log axis's 10^k) is no words
            t.set_text(one(t.get_text()))
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            fmt = axis.get_major_formatter()
            fixed = _fixed_labels(fmt)
            if fixed is not None:
                fixed[1]([one(x) for x in fixed[0]])
            elif type(fmt) is ScalarFormatter and lang == "fr":
                axis.set_major_formatter(_DecimalComma())
    fig.tight_layout(rect=(0, 0.04, 1, 1) if fig.texts else (0, 0, 1, 1))


def save(fig, path) -> None:
    """Write ``fig`` as a PNG atomically (a temporary file beside ``path``, renamed into place)."""
    from ..io import atomic_path

    try:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format="png")
    finally:
        plt.close(fig)


def _mode_label(m: str) -> str:
    """A dice mode as the page writes it ("8d8" -> "8 D8")."""
    n, _, d = str(m).partition("d")
    return f"{n} D{d}" if d else str(m)
