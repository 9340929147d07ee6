"""The report's one vocabulary: the game's words (Étang, Angoisse) in every sentence of a page,
in either language. One small module, read by the page renderer and by each page's translator
(:mod:`heron_sim.report.annex_lang`) without either importing the other."""

from __future__ import annotations

import re

_VOCAB = [(re.compile(r"\bPeaceful Ponds?\b"), None), (re.compile(r"\bHeron's Anxiety\b"), None),
          (re.compile(r"\ba Pond\b"), "an Étang"), (re.compile(r"\bA Pond\b"), "An Étang"),
          (re.compile(r"\bPonds\b"), "Étangs"), (re.compile(r"\bPond\b"), "Étang"),
          (re.compile(r"\bAnxieties\b"), "Angoisses"), (re.compile(r"\bAnxiety\b"), "Angoisse"),
          (re.compile(r"\bpond\b"), "Étang"), (re.compile(r"\banxiety\b"), "Angoisse")]


def vocab(text: str) -> str:
    """The text in the page's one vocabulary (Étang, Angoisse); the glossary's English names
    ("Peaceful Pond", "Heron's Anxiety") are left as they are."""
    keep = {}
    for i, (pat, rep) in enumerate(_VOCAB):
        if rep is None:
            def hold(m, i=i):
                keep[f"\x00{len(keep)}\x00"] = m.group(0)
                return f"\x00{len(keep) - 1}\x00"
            text = pat.sub(hold, text)
        else:
            text = pat.sub(rep, text)
    for k, v in keep.items():
        text = text.replace(k, v)
    return text
