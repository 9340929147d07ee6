"""Every text of the explorer a person reads, as message ids (English) of the catalogue
(heron_sim/locale/fr.po): the page's ``[[...]]`` markers, the script's ``t("...")`` and
``tf("...")`` calls, the form's own fields and the figures' names. tests/test_explore_i18n.py
fails when one has no French entry."""

from __future__ import annotations

import re
from importlib import resources

_JS_CALL = re.compile(r"\b(?:t|tf|tfNodes)\(\"((?:[^\"\\]|\\.)*)\"")
_PY_CALL = re.compile(r"\btr\(\"((?:[^\"\\]|\\.)*)\"")


def _js_unescape(s: str) -> str:
    return re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), s).replace('\\"', '"').replace("\\\\", "\\")


def msgids() -> list[str]:
    """The explorer's message ids, each once, in the order met."""
    from ..analysis.stats import equivalence  # noqa: F401  (the readings' words, below)
    from . import form
    from .app import page_msgids
    from .live import PANEL_RANKS
    from .stats import rows_for

    static = resources.files("heron_sim.explore").joinpath("static")
    out = list(page_msgids(static.joinpath("index.html").read_text(encoding="utf-8")))
    out += [_js_unescape(m) for m in _JS_CALL.findall(static.joinpath("explore.js").read_text(encoding="utf-8"))]
    out += _PY_CALL.findall(resources.files("heron_sim.explore").joinpath("form.py").read_text(encoding="utf-8"))
    for _gid, label, words in form.OTHER_FIELDS.values():
        out += [label, words]
    out.append("Other rules")
    from .board import TEXTS as BOARD_TEXTS

    out += list(BOARD_TEXTS)
    out += [v[0] for v in PANEL_RANKS.values()]
    templated = re.compile(r"^(seat_\d+_win_rate|guide_\w+_win_rate|power_\w+|minutes)$")
    out += [r.label for r in rows_for(7) if not templated.match(r.key)]
    return list(dict.fromkeys(out))
