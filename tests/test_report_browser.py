"""The committed report in a real browser (Debian's headless Chromium; .ci/run installs it).

The page is embedded (srcdoc) in an iframe 390 px and then 1280 px wide inside a small checking
page; Chromium loads it, the checking script writes what it finds into the DOM, and --dump-dom
hands it back (headless Chromium will not make its window narrower than 500 px, an iframe
can be any width). Nothing is
downloaded: the page is self-contained and the browser runs with networking features off.
Screenshots of the first screen at both widths are kept under the test's tmp folder (and under
$HERON_SCREENSHOTS when set) for a person to look at.
"""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
REPORT = Path(os.environ.get("HERON_REPORT", ROOT / "results" / "report.html"))
CHROMIUM = next((p for p in (shutil.which("chromium"), "/usr/bin/chromium", shutil.which("chromium-browser"))
                 if p and Path(p).exists()), None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--disable-extensions", "--mute-audio"]

CHECK = r"""<!DOCTYPE html>
<html><head><meta charset="utf-8"></head><body style="margin:0">
<iframe id="page" style="width:WIDTHpx;height:900px;border:0" srcdoc="SRCDOC"></iframe>
<script>
document.getElementById('page').addEventListener('load', function () {
  var win = this.contentWindow, doc = this.contentDocument;
  var out = {width: win.innerWidth, images: 0, broken: [], bad_cells: [], bad_links: [], overflow: [], links: 0};
  doc.querySelectorAll('img').forEach(function (img) {
    out.images++;
    if (!img.complete || img.naturalWidth === 0) out.broken.push(img.alt.slice(0, 60));
  });
  var bad = /(^|[^\w])(nan|NaN|None|undefined)([^\w]|$)|\*\*|`|(^|\s)\*[^*\s][^*]*\*(\s|$)|^\s*\|/;
  doc.querySelectorAll('td, th, li, p, figcaption, h2, h3').forEach(function (c) {
    var t = c.textContent;
    if (bad.test(t)) out.bad_cells.push(t.trim().slice(0, 80));
  });
  doc.querySelectorAll('a[href^="#"]').forEach(function (a) {
    out.links++;
    var id = decodeURIComponent(a.getAttribute('href').slice(1));
    if (!doc.getElementById(id)) out.bad_links.push(id);
  });
  var W = doc.documentElement.clientWidth;
  if (doc.documentElement.scrollWidth > W + 1) out.overflow.push('page ' + doc.documentElement.scrollWidth + ' > ' + W);
  doc.querySelectorAll('main *, header *').forEach(function (e) {
    if (e.closest('.table-wrap')) return;
    var r = e.getBoundingClientRect();
    if (r.width > 0 && r.right > W + 1 && out.overflow.length < 20)
      out.overflow.push(e.tagName + ' ' + (e.id || e.className || '') + ' ' + Math.round(r.right));
  });
  var pre = document.createElement('pre');
  pre.id = 'check-result';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script></body></html>
"""


def _chromium(args, tmp_path, name):
    profile = tmp_path / f"profile-{name}"
    cmd = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def _check(report: str, width: int, tmp_path) -> dict:
    import html

    page = tmp_path / f"check-{width}.html"
    page.write_text(CHECK.replace("WIDTH", str(width)).replace("SRCDOC", html.escape(report, quote=True)), encoding="utf-8")
    res = _chromium(["--window-size=1400,1000", "--virtual-time-budget=15000", "--dump-dom", page.as_uri()],
                    tmp_path, f"dom{width}")
    m = re.search(r"<pre id=\"check-result\">(.*?)</pre>", res.stdout, re.S)
    assert m, f"no check result from Chromium at {width} px: {res.stderr[-800:]}"
    import html

    return json.loads(html.unescape(m.group(1)))


@pytest.fixture(scope="module")
def checked_page(tmp_path_factory):
    if CHROMIUM is None:
        if os.environ.get("HERON_REQUIRE_BROWSER"):
            pytest.fail("Chromium is not installed (apt-get install chromium; .ci/run does it)")
        pytest.skip("Chromium is not installed (apt-get install chromium; .ci/run does it)")
    if not REPORT.is_file():
        pytest.fail("results/report.html is missing: run `make report`")
    return REPORT.read_text(encoding="utf-8"), tmp_path_factory.mktemp("browser")


@pytest.mark.parametrize("width", [390, 1280])
def test_report_in_chromium(checked_page, width):
    report, tmp = checked_page
    r = _check(report, width, tmp)
    assert r["width"] == width
    assert r["images"] >= 10 and not r["broken"], r["broken"]
    assert not r["bad_cells"], r["bad_cells"][:10]
    assert r["links"] >= 10 and not r["bad_links"], r["bad_links"][:10]
    assert not r["overflow"], r["overflow"][:10]
    # a screenshot of the first screen, for a person to look at
    shot = tmp / f"report-{width}.png"
    _chromium([f"--window-size={width},900", f"--screenshot={shot}", REPORT.as_uri()], tmp, f"shot{width}")
    assert shot.is_file() and shot.stat().st_size > 10_000
    keep = os.environ.get("HERON_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / shot.name)
