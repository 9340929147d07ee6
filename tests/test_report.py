"""Rendering: every section in the HTML with embedded images; Markdown beside its PNGs."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from heron_sim.cli import app
from heron_sim.report import Figure, Section, Table, plot, write_report
from heron_sim.report import figures as F
from heron_sim.sections import PLOTS, Plot

pytestmark = [pytest.mark.exact, pytest.mark.cli]

EXPERIMENTS = {
    "modes": 'kind = "modes"\nmodes = ["8d8", "7d8"]\nseating = "greedy,random"',
    "pond": 'kind = "pond"\nmodes = ["8d8"]\nseating = "greedy"',
    "anxiety": 'kind = "anxiety"\nmodes = ["8d8"]\nstrategies = ["greedy", "random"]',
    "guides": 'kind = "guides"\nmodes = ["8d8"]\nseating = "greedy"\nrungs = ["novice", "expert"]',
    "strategies": 'kind = "strategies"\nmodes = ["8d8"]\nstrategies = ["greedy", "random"]',
    "games": 'kind = "games"\nlight_games = ["fire-mountain", "rampage"]',
    "sensitivity": 'kind = "sensitivity"\nmodes = ["8d8"]\nseating = "greedy"',
    "variant": 'kind = "compare"\nmodes = ["8d8"]\nseating = "greedy"\n[a]\nlabel = "default"\n[b]\nlabel = "4 rolls"\nset = { rolls = 4 }',
}


def synthetic_section():
    t = pd.DataFrame({"mode": ["8d8", "10d6"], "rate": [0.2, 0.3], "low": [0.18, 0.28], "high": [0.22, 0.32], "n": [100, 100]})
    return Section(key="demo", title="Demo section", intro="An `intro`.", findings=["It is 20.0 % [18.0, 22.0]."],
                   tables=[Table("A table", t.set_index("mode").astype(str), note="a note")],
                   figures=[Figure("bars", "Bars.", plot("grouped_rates", t, group="mode", category="mode", title="T",
                                                                 xlabel="x", ylabel="y (%)"))])


def test_every_plot_an_analysis_may_name_is_a_drawing_of_the_report():
    # the kinds name their figures' drawings as data (heron_sim.sections.Plot); the report draws them
    assert all(callable(getattr(F, name, None)) for name in PLOTS)
    with pytest.raises(ValueError, match="unknown drawing"):
        Plot("pie")
    fig = F.draw(synthetic_section().figures[0].plot)
    assert fig.axes[0].get_title() == "T"
    F.plt.close(fig)


def test_write_report_synthetic(tmp_path):
    paths = write_report([synthetic_section()], {"package version": "0.1.0", "seeds": "1"}, tmp_path)
    brief, page = paths["html"].read_text(), paths["annex"]["en"]["html"].read_text()  # the English annex
    assert paths["html"].name == "report.html" and paths["annex_html"].name == "report-annex.html"
    assert paths["annex"]["en"]["html"].name == "report-annex.en.html" and '<html lang="fr">' in paths["annex_html"].read_text()
    assert 'id="verdict"' in brief and 'href="report-annex.html"' in brief and 'id="demo"' not in brief
    assert 'id="demo"' in page and "Answers at a glance" in page and "Run metadata" in page and 'id="verdict"' not in page
    assert page.count("data:image/png;base64,") == 1 and "<code>intro</code>" in page
    md = paths["annex_md"].read_text()
    refs = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert refs == ["figures/demo-bars.png"] and (tmp_path / refs[0]).stat().st_size > 1000
    # each language's annex shows its own figures: figures/NAME.png French, figures/NAME.en.png English
    md_en = paths["annex"]["en"]["md"].read_text()
    assert re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md_en) == ["figures/demo-bars.en.png"]
    assert (tmp_path / "figures/demo-bars.en.png").stat().st_size > 1000
    assert sorted(p.name for p in paths["figures"]) == ["demo-bars.en.png", "demo-bars.png"]


def test_a_french_figure_is_lettered_from_the_catalogue():
    """Issue 33: a figure of the French pages takes its title, axis labels and legend from
    fr.po (read on the figure's text artists before it is saved, not on its pixels) and writes its
    numbers the French way; the English figure keeps the English; a text without an entry is
    listed."""
    from heron_sim.i18n import catalogue, typography
    from heron_sim.report.annex_lang import AnnexWords

    fr = {en: typography(words, "fr") for en, words in catalogue("fr").items()}  # with French spacing
    rate = [0.26, 0.25, 0.25, 0.24, 0.27, 0.25, 0.24, 0.24]
    d = pd.DataFrame({"mode": ["8 D8"] * 4 + ["7 D8"] * 4, "seat": [1, 2, 3, 4] * 2, "rate": rate,
                      "low": [r - 0.01 for r in rate], "high": [r + 0.01 for r in rate], "n": [10000] * 8})
    words = {"title": "First-player advantage: win rate by seat", "xlabel": "seat (1 plays first)",
             "ylabel": "win rate (% of games)"}
    spec = plot("grouped_rates", d, group="mode", category="seat", fair=0.25, **words)
    w = AnnexWords("fr")
    fig = F.draw(spec, w.tr, "fr")
    ax = fig.axes[0]
    assert (ax.get_title(), ax.get_ylabel()) == (fr[words["title"]], fr[words["ylabel"]])
    assert ax.get_xlabel() == fr["seat ({0} plays first)"].format(1)  # its figure a placeholder of the entry
    assert ax.get_title() != words["title"]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert sorted(legend) == sorted(["8 D8 (n = 10\u202f000)", "7 D8 (n = 10\u202f000)", fr["fair share"]])
    assert w.missing == [] and all(t.get_text() in fr.values() or re.search(r"\d", t.get_text()) for t in F.figure_texts(fig))
    assert F.tick_labels(fig) == ["1", "2", "3", "4"]
    fmt = ax.yaxis.get_major_formatter()
    fmt.set_locs([0.0, 2.5, 5.0])
    assert fmt(2.5) == "2,5"
    en = F.draw(spec)
    assert en.axes[0].get_title() == words["title"] and "fair share" in [t.get_text() for t in en.axes[0].get_legend().get_texts()]
    missing = AnnexWords("fr")
    other = F.draw(plot("grouped_rates", d, group="mode", category="seat", title="A title nobody translated",
                        xlabel="seat (1 plays first)", ylabel="win rate (% of games)"), missing.tr, "fr")
    assert missing.missing == ["A title nobody translated"]
    for f in (fig, en, other):
        F.plt.close(f)


@pytest.fixture(scope="module")
def plan_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("plan")
    (d / "experiments").mkdir()
    for name, text in EXPERIMENTS.items():
        (d / "experiments" / f"{name}.toml").write_text(f'name = "{name}"\n' + text, encoding="utf-8")
    return d


def test_plan_report_and_rerender(plan_dir):
    runner = CliRunner()
    out, run = plan_dir / "results", plan_dir / "run"
    res = runner.invoke(app, ["plan", "--experiments", str(plan_dir / "experiments"), "--games", "24",
                              "--run-dir", str(run), "--out", str(out)])
    assert res.exit_code == 0, res.output
    brief = (out / "report.html").read_text()
    page = (out / "report-annex.en.html").read_text()  # every section, in the annex (the English one here)
    for key in EXPERIMENTS:
        if key != "games":
            assert f'<section id="{key}">' in page
    # the lighter games: a page of their own each (figures, tables, own summary), linked from the
    # index and from the Héron page, which no longer holds them
    index = (out / "index.html").read_text()
    assert 'href="report.html"' in index
    for game in ("fire-mountain", "rampage"):
        gp = (out / f"game-{game}.en.html").read_text()  # the English page (the French: the test below)
        assert f'href="game-{game}.html"' in index and f'href="game-{game}.html"' in brief
        body = gp.split(f'<section id="games-{game}">')[1].split("</section>")[0]
        assert "Seat win shares" in body and "Strategy win shares" in body and "game-summary" in body
        assert body.count("data:image/png;base64,") == 3
        assert (out / "figures" / f"games-{game}-seats.png").is_file()
        assert f'<section id="games-{game}">' not in page
        # the page opens on the game's verdict (issue 34 item 2), with its "what to change" slot
        assert gp.index('<section id="verdict">') < gp.index(f'<section id="games-{game}">')
        assert "[game." in gp and "What to change:</b> No study run yet for this game." in gp
    assert "Game length (player turns" in (out / "game-fire-mountain.en.html").read_text() and "Game length (rounds" in page
    # the brief: the verdict first, then what to change, then the answers; the annex: the answers'
    # table, then the sections
    assert brief.index('id="verdict"') < brief.index('id="changes"') < brief.index('id="answers"')
    assert '<section id="modes">' not in brief and 'href="report-annex.html"' in index
    answers = page.split('<section id="answers">')[1].split("</section>")[0]
    assert answers.count("<tr id=") >= 8 and "test plan" in answers and "balance" in answers
    assert page.index('id="answers"') < page.index('<section id="modes">') \
        < page.index('<section id="across">') < page.index('<section id="metadata">')
    for word in ("Glossary", "Étang Paisible", "Angoisse du Héron", "Puissance du Guide", "Assumptions"):
        assert word in page
    # no sentence twice among the answers and the sections' findings
    sentences = re.findall(r"<li>(.*?)</li>", page.split('<section id="metadata">')[0])
    texts = [t for t in sentences if len(t) > 40 and "href" not in t]
    assert len(texts) == len(set(texts))
    import json
    found = json.loads((out / "findings.json").read_text())
    ids = {f["id"] for f in found["findings"]}
    assert {"modes.length.8d8", "pond.rate.8d8", "anxiety.per_turn.8d8.greedy", "guides.doubling_effect.8d8.heron",
            "balance.seat1.pooled.8d8", "sensitivity.anxiety4.length_rel", "players.7.minutes"} <= ids
    assert all(set(f) >= {"id", "estimate", "interval", "n", "unit"} for f in found["findings"])
    # guides: the clean per-power ablation beside the all-off one; pond: how often a Pond decides the lead
    assert "one power switched off at a time" in page and "all powers off instead" in page
    # the balance per rung: its tables in the guides section, its row among the answers
    assert "balance per rung of the skill ladder" in page and 'id="q-rungs"' in answers
    assert {"rungs.novice.spread.8d8", "rungs.expert.seat1.8d8"} <= ids
    assert "Étangs that cost the leader the lead" in page and "an Étang decides the lead" in page
    assert "mid-game leader loses: no Étang / with Étang" not in page  # the association-only estimate is gone
    assert page.count("data:image/png;base64,") >= 12 and "src='figures/" not in page
    for word in ("rules hashes", "git commit", "package version", "seeds", "simulation run time"):
        assert word in page
    md = (out / "report-annex.en.md").read_text()
    refs = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert len(refs) >= 12 and all((out / r).is_file() for r in refs)
    assert "Answers at a glance" in md and "[" in md.split("## Answers at a glance")[1].split("##")[0]
    # re-render from the run folder, no simulation: the same tables
    out2 = plan_dir / "again"
    res = runner.invoke(app, ["report", "--from", str(run), "--out", str(out2)])
    assert res.exit_code == 0, res.output
    md2 = (out2 / "report-annex.en.md").read_text()
    strip = lambda s: s.split("## Run metadata")[0]  # noqa: E731
    assert strip(md) == strip(md2)
    assert (out / "report.md").read_text().split("## Verdict")[1] == (out2 / "report.md").read_text().split("## Verdict")[1]


def test_compare_command(plan_dir, tmp_path):
    a = tmp_path / "a.toml"
    b = tmp_path / "b.toml"
    a.write_text("rolls = 3\n")
    b.write_text("rolls = 4\n")
    res = CliRunner().invoke(app, ["compare", str(a), str(b), "--games", "40", "--strategy", "greedy",
                                   "--run-dir", str(tmp_path / "run"), "--out", str(tmp_path / "cmp")])
    assert res.exit_code == 0, res.output
    assert "rounds (finished games)" in res.output and "b - a [95 % CI]" in res.output
    assert (tmp_path / "cmp" / "report.html").is_file()


def test_no_table_has_an_empty_column(plan_dir):
    from heron_sim.report import build_sections
    from heron_sim.runner import RunData

    run = plan_dir / "run"
    if not (run / "manifest.json").is_file():
        pytest.skip("needs the plan run of test_plan_report_and_rerender")
    for sec in build_sections(RunData(run)):
        for t in sec.tables:
            f = t.frame.replace("", np.nan)
            empty = [c for c in f.columns if f[c].isna().all() and c not in ("flag", "never fired")]
            assert not empty, (sec.key, t.caption, empty)


def test_the_game_pages_are_french_with_the_english_beside_them(plan_dir, tmp_path):
    """Issue 33 item 1: each lighter game's page is French (game-NAME.html) with the English beside
    it (game-NAME.en.html); every text of the page has a French entry (write_report lists those
    without one), no English sentence of the catalogue is left on the French page, and the French
    index links the French pages, the English index the English ones."""
    from heron_sim.report import build_sections
    from heron_sim.report.game_lang import GameWords
    from heron_sim.runner import RunData
    from tests.test_report_brief import _visible, english_left

    run = plan_dir / "run"
    if not (run / "manifest.json").is_file():
        pytest.skip("needs the plan run of test_plan_report_and_rerender")
    games = [s for s in build_sections(RunData(run)) if s.part == "appendix"]
    assert {s.key for s in games} == {"games-fire-mountain", "games-rampage"}
    paths = write_report(games, {"games played (all)": "12,345"}, tmp_path)
    assert paths["missing"] == [], f"no French entry in heron_sim/locale/fr.po for: {paths['missing']}"
    index, index_en = (tmp_path / "index.html").read_text(), (tmp_path / "index.en.html").read_text()
    for game, name in (("fire-mountain", "La Colère de la Montagne de Feu"), ("rampage", "Rampage")):
        fr, en = (tmp_path / f"game-{game}.html").read_text(), (tmp_path / f"game-{game}.en.html").read_text()
        assert '<html lang="fr">' in fr and '<html lang="en">' in en
        assert f'href="game-{game}.en.html"' in fr and f'href="game-{game}.html"' in en  # each links the other
        text = _visible(fr)
        assert english_left(text) == [], (game, english_left(text)[:5])
        assert not re.search(r"\b[a-z]+_[a-z_]+\b", text), re.findall(r"\b[a-z]+_[a-z_]+\b", text)[:5]
        # the verdict, the sections' words, the players' names and the numbers in French
        assert "Ce qu'il faut changer" in text and "Parts de victoires par place" in fr and "gourmand" in text and "greedy" not in text
        assert re.search(r"\d+,\d\u00a0% \[\d+,\d\u202f; \d+,\d\]", fr) and "12\u202f345 parties" in fr
        assert f"<h1>{name}</h1>" in fr and english_left(_visible(en))  # the check finds English where it is
        # the index in each language links the page in its language, and the other beside it
        assert f'<a href="game-{game}.html">{name}</a>' in index and f'href="game-{game}.en.html"' in index  # not marked English
        assert f'<a href="game-{game}.en.html">' in index_en
    w = GameWords("fr")
    assert w.tr("A sentence nobody wrote, 3 × greedy.") and w.missing == ["A sentence nobody wrote, {0} × {t0}."]
    assert w.tr("2,140") == "2\u202f140" and w.missing == ["A sentence nobody wrote, {0} × {t0}."]  # figures need none


def test_the_annex_is_french_with_the_english_beside_it(plan_dir, tmp_path):
    """Issue 33 item 1: the annex of a real plan run (every Héron section's tables, figures and
    notes) is French (report-annex.html, .md) with the English beside it; every text of it and of
    its figures has a French entry (write_report lists those without one), no English sentence of
    the catalogue and no key id is left on the French annex, its numbers are written the French way."""
    from heron_sim.report import build_sections
    from heron_sim.runner import RunData
    from tests.test_report_brief import _visible, english_left

    run = plan_dir / "run"
    if not (run / "manifest.json").is_file():
        pytest.skip("needs the plan run of test_plan_report_and_rerender")
    heron = [s for s in build_sections(RunData(run)) if s.part != "appendix"]
    paths = write_report(heron, {"games played (all)": "12,345", "seeds": "1, 2 (game i of a batch draws from stream (seed, i))",
                                 "rules hashes": "f20aec6d786a (first used by modes/games_8d8)"}, tmp_path)
    assert paths["missing"] == [], f"no French entry in heron_sim/locale/fr.po for: {paths['missing']}"
    fr, en = (tmp_path / "report-annex.html").read_text(), (tmp_path / "report-annex.en.html").read_text()
    assert '<html lang="fr">' in fr and '<html lang="en">' in en
    md = re.sub(r"<a id=[^>]*></a>|\]\([^)]*\)|`[^`]*`", " ", (tmp_path / "report-annex.md").read_text())
    for text in (_visible(fr), md):
        assert english_left(text) == [], english_left(text)[:5]
        assert not re.search(r"\b[a-z]+_[a-z_]+\b", text), re.findall(r"\b[a-z]+_[a-z_]+\b", text)[:5]
    assert re.search(r"\d+,\d+\u00a0% \[\d+,\d+\u202f; \d+,\d+\]", fr) and "12\u202f345 parties" in fr
    assert "Étang Paisible" in fr and "Angoisse du Héron" in fr and "tours de table" in fr and "rounds" not in _visible(fr)
    assert english_left(_visible(en))  # the check finds English where it is
    # each language's figures: the French annex embeds the French PNGs, the Markdown links them
    refs = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", (tmp_path / "report-annex.md").read_text())
    refs_en = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", (tmp_path / "report-annex.en.md").read_text())
    assert refs and all(not r.endswith(".en.png") for r in refs) and refs_en == [r.replace(".png", ".en.png") for r in refs]


def test_markdown_blocks_render_in_both_formats(tmp_path):
    from heron_sim.report.render import demote_headings, markdown_block_html

    block = "# Title\n\nSome `code`.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- item"
    assert demote_headings(block).startswith("### Title")
    h = markdown_block_html(block)
    flat = re.sub(r">\s+<", "><", str(h))
    assert "<h3>Title</h3>" in h and "<code>code</code>" in h and "<td>1</td><td>2</td>" in flat
    assert "<th>a</th>" in h and "---" not in h and "<li>item</li>" in h
    sec = synthetic_section()
    sec.markdown.append(block)
    paths = write_report([sec], {"seeds": "1"}, tmp_path)
    paths = {**paths, "html": paths["annex_html"], "md": paths["annex_md"]}  # the sections: in the annex
    assert "### Title" in paths["md"].read_text() and "<h3>Title</h3>" in paths["html"].read_text()


def test_run_json_prints_the_findings(plan_dir, tmp_path):
    import json

    res = CliRunner().invoke(app, ["run", str(plan_dir / "experiments" / "modes.toml"), "--games", "30", "--json",
                                   "--run-dir", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    by_id = {f["id"]: f for f in data["findings"]}
    f = by_id["modes.length.8d8"]
    assert f["unit"] == "rounds" and f["n"] > 0 and f["interval"][0] <= f["estimate"] <= f["interval"][1]
    assert by_id["modes.length_rel.7d8"]["unit"] == "relative change"
    assert "git commit (report)" in data["meta"]
