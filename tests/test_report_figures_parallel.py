"""The report's figures drawn in several processes (issue 61, item 5): the same PNG bytes and the
same missing French phrases, in the same order, as one process drawing them one after the other;
Ctrl-C draws no more, leaves every PNG whole and goes on up."""

import multiprocessing
import os
import signal

import pandas as pd
import pytest

from heron_sim.errors import HeronSimError
from heron_sim.report import Figure, Section, plot, timings_line
from heron_sim.report import figures as F
from heron_sim.report import render

pytestmark = [pytest.mark.exact]

needs_fork = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork here")


def _sections(titles=("Nobody translated this first title", "A second title without an entry")):
    d = pd.DataFrame({"mode": ["8 D8"] * 2 + ["7 D8"] * 2, "seat": [1, 2] * 2, "rate": [0.26, 0.24, 0.25, 0.25],
                      "low": [0.25, 0.23, 0.24, 0.24], "high": [0.27, 0.25, 0.26, 0.26], "n": [1000] * 4})
    lengths = pd.DataFrame({"label": ["a", "b"], "diff": [0.5, -1.2], "low": [0.1, -2.0], "high": [0.9, -0.4],
                            "n": [100, 100]})

    def bars(title):
        return plot("grouped_rates", d, group="mode", category="seat", fair=0.25, title=title,
                    xlabel="seat (1 plays first)", ylabel="win rate (% of games)")

    return [Section(key="one", title="One", figures=[Figure("bars", "Bars.", bars(titles[0])),
                                                       Figure("forest", "Forest.", plot("forest", lengths, title=titles[1],
                                                                                        xlabel="difference"))]),
            Section(key="two", title="Two", figures=[Figure("seats", "Seats.", bars("First-player advantage: win rate by seat"))])]


def _files(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@needs_fork
def test_figures_drawn_in_processes_are_the_bytes_and_the_missing_phrases_of_one_process(tmp_path):
    sections = _sections()
    got = {}
    for workers in (1, 2, 3):
        missing, timings = [], {}
        paths = render.render_figures(sections, tmp_path / str(workers), ("fr", "en"), "fr", missing, workers=workers,
                                      timings=timings)
        assert timings["figure workers"] == workers and timings["figures"] > 0
        got[workers] = (_files(tmp_path / str(workers)), missing, paths)
    serial, missing, paths = got[1]
    assert sorted(serial) == ["one-bars.en.png", "one-bars.png", "one-forest.en.png", "one-forest.png",
                              "two-seats.en.png", "two-seats.png"]
    # the French figures' untranslated titles, in the order of the figures (the English ones have none)
    assert missing == ["Nobody translated this first title", "A second title without an entry"]
    assert serial["one-bars.png"] != serial["one-bars.en.png"]  # lettered in each language
    for workers in (2, 3):
        files, miss, p = got[workers]
        assert sorted(files) == sorted(serial)
        assert [n for n in files if files[n] != serial[n]] == []  # every PNG byte for byte
        assert miss == missing
        assert {lg: {k: v.name for k, v in d.items()} for lg, d in p.items()} == \
               {lg: {k: v.name for k, v in d.items()} for lg, d in paths.items()}


def test_how_many_processes_draw_the_figures(monkeypatch):
    monkeypatch.delenv(render.FIGURE_WORKERS_ENV, raising=False)
    forks = "fork" in multiprocessing.get_all_start_methods()
    assert render.figure_workers(1) == 1 and render.figure_workers(0) == 1  # one figure (or none): this process
    assert render.figure_workers(50, workers=2) == (2 if forks else 1)
    assert render.figure_workers(2, workers=8) == (2 if forks else 1)  # at most one per figure
    monkeypatch.setenv(render.FIGURE_WORKERS_ENV, "1")  # one after the other, for debugging
    assert render.figure_workers(50) == 1
    assert render.figure_workers(50, workers=2) == (2 if forks else 1)  # the argument wins
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv(render.FIGURE_WORKERS_ENV, bad)
        with pytest.raises(HeronSimError, match=render.FIGURE_WORKERS_ENV):
            render.figure_workers(50)
    line = timings_line({"games": {"modes": 3.0}, "tables": {"modes": 1.0}, "pages": 2.0, "figures": 5.0,
                         "figure workers": 2})
    assert line.endswith("pages 2 s, figures 5 s (2 processes)")


@needs_fork
def test_ctrl_c_while_the_figures_are_drawn_in_processes(tmp_path, monkeypatch):
    """A KeyboardInterrupt in the report's process (here sent by the first worker to draw the
    figure titled STOP): no new figure begins, the workers end, every PNG written is whole and no
    temporary file is left; the KeyboardInterrupt goes on up."""
    draw = F.draw

    def drawing(spec, tr=None, lang="en"):
        if spec.options.get("title") == "STOP" and lang == "fr":  # once
            os.kill(os.getppid(), signal.SIGINT)
        return draw(spec, tr, lang)

    monkeypatch.setattr(F, "draw", drawing)  # the workers are forked: they draw with it too
    sections = _sections(("STOP", "After the stop"))
    sections += [Section(key=f"more{i}", title="More", figures=list(sections[1].figures)) for i in range(6)]
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            render.render_figures(sections, tmp_path, ("fr", "en"), "fr", [], workers=2)
    finally:
        signal.signal(signal.SIGINT, old)
    assert multiprocessing.active_children() == []
    names = sorted(p.name for p in tmp_path.iterdir())
    drawings = 2 * sum(len(s.figures) for s in sections)  # French and English
    assert len(names) < drawings and not [n for n in names if not n.endswith(".png")]  # stopped, no .part file
    for n in names:
        data = (tmp_path / n).read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and data.endswith(b"IEND\xaeB`\x82")
