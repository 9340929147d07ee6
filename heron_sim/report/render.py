"""Render report sections to ``report.html`` (one self-contained page, figures embedded as
base64 PNG) and ``report.md`` (PNG files beside it, under ``figures/``)."""

from __future__ import annotations

import base64
import html
import io
import math
import re
from pathlib import Path

import pandas as pd

from . import figures as F
from .section import Section

CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{border-bottom:2px solid #333}h2{border-bottom:1px solid #bbb;margin-top:2em}
table{border-collapse:collapse;font-size:0.85em;margin:0.6em 0}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:right}th{background:#f0f0f0}
td:first-child,th:first-child{text-align:left}
.caption{font-weight:bold;margin-top:1.2em}.note{color:#555;font-size:0.85em}
figure{margin:1em 0}figcaption{color:#444;font-size:0.9em}img{max-width:100%}
.findings li{margin:0.3em 0}
"""


def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub Markdown table of a (string) DataFrame, index included."""
    idx_names = [n if n else "" for n in (frame.index.names or [""])]
    header = idx_names + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(_md(h) for h in header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for idx, row in frame.iterrows():
        keys = list(idx) if isinstance(idx, tuple) else [idx]
        lines.append("| " + " | ".join(_md(v) for v in keys + list(row.values)) + " |")
    return "\n".join(lines)


def _md(v) -> str:
    if isinstance(v, float) and math.isnan(v):
        return ""
    return str(v).replace("|", "\\|").replace("\n", " ")


def _md_inline(text: str) -> str:
    """Markdown text to HTML for the few inline marks the findings use (`code`, **bold**)."""
    t = html.escape(text)
    t = re.sub(r"`([^`]+)`", r"<code>\1</code>", t)
    return re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", t)


def demote_headings(text: str, levels: int = 2) -> str:
    """Markdown with every ATX heading moved ``levels`` deeper (at most ######)."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^(#{1,6})\s+(.*)$", line)
        out.append(f"{'#' * min(6, len(m.group(1)) + levels)} {m.group(2)}" if m else line)
    return "\n".join(out)


def markdown_block_html(text: str, levels: int = 2) -> str:
    """A small Markdown block (headings, pipe tables, lists, paragraphs; inline `code` and
    **bold**) as HTML, headings moved ``levels`` deeper. Enough for the games' summaries."""
    lines = text.splitlines()
    h, i, para = [], 0, []

    def flush():
        if para:
            h.append(f"<p>{_md_inline(' '.join(para))}</p>")
            para.clear()

    while i < len(lines):
        line = lines[i].rstrip()
        m = re.match(r"^(#{1,6})\s+(.*)$", line)
        if not line.strip():
            flush()
        elif m:
            flush()
            lv = min(6, len(m.group(1)) + levels)
            h.append(f"<h{lv}>{_md_inline(m.group(2))}</h{lv}>")
        elif line.lstrip().startswith("|"):
            flush()
            rows = []
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append([c.strip() for c in lines[i].strip().strip("|").split("|")])
                i += 1
            body = [r for r in rows[1:] if not all(re.fullmatch(r":?-{2,}:?", c or "--") for c in r)]
            h.append("<table><tr>" + "".join(f"<th>{_md_inline(c)}</th>" for c in rows[0]) + "</tr>"
                     + "".join("<tr>" + "".join(f"<td>{_md_inline(c)}</td>" for c in r) + "</tr>" for r in body)
                     + "</table>")
            continue
        elif re.match(r"^\s*[-*]\s+", line):
            flush()
            items = []
            while i < len(lines) and re.match(r"^\s*[-*]\s+", lines[i]):
                items.append(re.sub(r"^\s*[-*]\s+", "", lines[i]))
                i += 1
            h.append("<ul>" + "".join(f"<li>{_md_inline(x)}</li>" for x in items) + "</ul>")
            continue
        else:
            para.append(line.strip())
        i += 1
    flush()
    return "\n".join(h)


def render_figures(sections: list[Section], fig_dir: Path) -> dict[tuple[str, str], Path]:
    """Draw every figure once, save it as PNG; returns {(section, name): path}."""
    fig_dir.mkdir(parents=True, exist_ok=True)
    out = {}
    for sec in sections:
        for f in sec.figures:
            path = fig_dir / f"{sec.key}-{f.name}.png"
            fig = f.draw()
            F.save(fig, path)
            out[(sec.key, f.name)] = path
    return out


def write_report(sections: list[Section], meta: dict, out_dir: str | Path, title: str = "Héron dice race — balance report") -> dict:
    """Write ``report.html``, ``report.md`` and ``figures/*.png`` under ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    fig_dir = out_dir / "figures"
    for old in fig_dir.glob("*.png") if fig_dir.is_dir() else []:
        old.unlink()
    pngs = render_figures(sections, fig_dir)
    md = _markdown(sections, meta, title, pngs, out_dir)
    page = _html(sections, meta, title, pngs)
    (out_dir / "report.md").write_text(md, encoding="utf-8")
    (out_dir / "report.html").write_text(page, encoding="utf-8")
    return {"html": out_dir / "report.html", "md": out_dir / "report.md", "figures": sorted(pngs.values())}


def _meta_rows(meta: dict) -> list[tuple[str, str]]:
    rows = []
    for k, v in meta.items():
        if isinstance(v, (list, tuple)):
            v = ", ".join(map(str, v))
        rows.append((k, str(v)))
    return rows


def _markdown(sections, meta, title, pngs, out_dir: Path) -> str:
    parts = [f"# {title}", "", "## Summary of findings", ""]
    for sec in sections:
        for f in sec.findings:
            parts.append(f"- **{sec.title}.** {f}")
    parts.append("")
    parts.append("Contents: " + ", ".join(f"[{s.title}](#{_anchor(s.title)})" for s in sections) + ", [Run metadata](#run-metadata)")
    for sec in sections:
        parts += ["", f"## {sec.title}", ""]
        if sec.intro:
            parts += [sec.intro, ""]
        if sec.findings:
            parts += [f"- {f}" for f in sec.findings] + [""]
        for t in sec.tables:
            parts += [f"**{t.caption}**", "", markdown_table(t.frame), ""]
            if t.note:
                parts += [f"*{t.note}*", ""]
        for f in sec.figures:
            rel = pngs[(sec.key, f.name)].relative_to(out_dir).as_posix()
            parts += [f"![{f.caption}]({rel})", "", f"*{f.caption}*", ""]
        for block in sec.markdown:
            parts += [demote_headings(block), ""]
        for n in sec.notes:
            parts += [f"*{n}*", ""]
    parts += ["", "## Run metadata", "", "| key | value |", "|---|---|"]
    parts += [f"| {_md(k)} | {_md(v)} |" for k, v in _meta_rows(meta)]
    return "\n".join(parts) + "\n"


def _anchor(title: str) -> str:
    a = re.sub(r"[^\w\- ]", "", title.lower()).strip().replace(" ", "-")
    return a


def _png_b64(path: Path) -> str:
    return base64.b64encode(Path(path).read_bytes()).decode("ascii")


def _html(sections, meta, title, pngs) -> str:
    h = ["<!DOCTYPE html>", "<html lang='en'><head><meta charset='utf-8'>", f"<title>{html.escape(title)}</title>",
         f"<style>{CSS}</style></head><body>", f"<h1>{html.escape(title)}</h1>",
         "<section id='summary'><h2>Summary of findings</h2><ul class='findings'>"]
    for sec in sections:
        for f in sec.findings:
            h.append(f"<li><b>{html.escape(sec.title)}.</b> {_md_inline(f)}</li>")
    h.append("</ul><p>Contents: " + ", ".join(f"<a href='#{sec.key}'>{html.escape(sec.title)}</a>" for sec in sections)
             + ", <a href='#metadata'>Run metadata</a></p></section>")
    for sec in sections:
        h.append(f"<section id='{html.escape(sec.key)}'><h2>{html.escape(sec.title)}</h2>")
        if sec.intro:
            h.append(f"<p>{_md_inline(sec.intro)}</p>")
        if sec.findings:
            h.append("<ul class='findings'>" + "".join(f"<li>{_md_inline(f)}</li>" for f in sec.findings) + "</ul>")
        for t in sec.tables:
            h.append(f"<p class='caption'>{html.escape(t.caption)}</p>")
            h.append(t.frame.to_html(border=0, escape=True, na_rep=""))
            if t.note:
                h.append(f"<p class='note'>{_md_inline(t.note)}</p>")
        for f in sec.figures:
            b64 = _png_b64(pngs[(sec.key, f.name)])
            h.append(f"<figure><img alt='{html.escape(f.caption, quote=True)}' src='data:image/png;base64,{b64}'>"
                     f"<figcaption>{html.escape(f.caption)}</figcaption></figure>")
        for block in sec.markdown:
            h.append(f"<div class='game-summary'>{markdown_block_html(block)}</div>")
        for n in sec.notes:
            h.append(f"<p class='note'>{_md_inline(n)}</p>")
        h.append("</section>")
    h.append("<section id='metadata'><h2>Run metadata</h2><table>")
    h += [f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in _meta_rows(meta)]
    h.append("</table></section></body></html>")
    return "\n".join(h)
