"""The expert's tables, built by one module: the dynamic programme of
heron_sim.strategies.expert_dp for the keep/stop columns, then the roll-time power decisions of
heron_sim.strategies.expert_powers; cached in memory and on disk (checksummed, checked against the
rules they are read for), built one thread at a time.

``expert_tables(rules)`` is what the seats' rows are made of (heron_sim.strategies.seat_arrays);
``optimal_turn_value`` the exact value of a fresh turn (the tests' and ``exact``'s reference).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..animals import HERON
from ..errors import HeronSimError, OutputError
from ..io import atomic_path
from .expert_dp import (
    BEST_VALUES, ENTRY, MAGIC, N_TABLES, ROW_ANX, ROW_B, ROW_DIR, ROW_F, ROW_MAGIC, ROW_P1, ROW_PI,
    PAR_BULL, PAR_BULL_MIN, PAR_HERON_K, PAR_HERON_MIN, ROW_FIRST, ROW_G, ROW_POWERS, ROW_RMAX, ROW_STRIDE, ROW_TSEAT, T_BULL_EXHAUSTED, T_BULL_READY, T_LION_READY, T_NODOUBLE, T_PLAIN, VERSION,
    ExpertTables, _first_roll, _key, merged_rank_counts, _outcomes, _params, _post_states, _pre_states, _rank_tables,
    _run_dp, _state_ranks, _table_flags, cache_folder, dice_model, dir_index, table_rolls,
)
from .expert_column import first_roll_section
from .expert_powers import fill_power_values


@dataclass(frozen=True)
class _Structure:
    """What a build reads that depends on the dice (their number, the heron's chance) and the
    Anxiety's threshold alone: the roll outcomes, the states, their ranks and the rank tables.
    Read only (shared by every build of these dice)."""

    offs: np.ndarray
    cnt: np.ndarray
    probs: np.ndarray
    post_K: np.ndarray
    post_C: np.ndarray
    post_codes: np.ndarray
    pre_T: np.ndarray
    pre_index: np.ndarray
    P: int
    F: np.ndarray
    sels: list
    pair_tab: np.ndarray
    f_tab: np.ndarray


@functools.lru_cache(maxsize=8)
def _structure(n: int, p_heron: float, anx_eff: int) -> _Structure:
    offs, cnt, probs = _outcomes(n, p_heron)
    post_K, post_C, post_codes = _post_states(n, anx_eff)
    pre_T, pre_index = _pre_states(n)
    hs = n - (post_K + post_C).sum(axis=1)
    pidx, size, P, F = _rank_tables(n)
    ranks = _state_ranks(post_K, post_C, n, pidx, size, F)
    sels = []
    for h in range(anx_eff):
        sel = np.flatnonzero(hs == h)
        rk = ranks[sel]
        # the ranks of a block are exactly 0 .. m - 1 (a perfect index)
        assert np.array_equal(np.sort(rk), np.arange(sel.size))
        assert sel.size == F[6, P, n - h]
        sels.append((sel, rk))
    pair_tab = np.stack([pidx, size], axis=1).astype(np.float64).ravel()
    f_tab = F.astype(np.float64).ravel()
    return _Structure(offs, cnt, probs, post_K, post_C, post_codes, pre_T, pre_index, P, F, sels, pair_tab, f_tab)


#: Each table's programme (its values and actions) is kept for the next builds in this process,
#: keyed on exactly what it reads: a study's candidates change a few keys each, and most of the
#: five tables of a candidate (the plain one, the Lion's, the Héron's...) are a table an earlier
#: candidate already built. The same numbers as a build from scratch (tests/test_expert_build_memo.py).
PROGRAMMES_MB = 300  # the memo's size cap (8 D8: about 2.7 MB a table, 110 tables; 10 D8: 11 MB)
_PROGRAMMES: OrderedDict = OrderedDict()
_PROGRAMMES_LOCK = threading.Lock()


def build_tables(rules, powers: bool = True) -> ExpertTables:
    """Run the programme for every table (no cache). ``powers=False``: without the roll-time
    powers' columns (left "not stored"): the keep/stop values alone, in seconds (the luck's row,
    heron_sim.strategies.expert_luck; the powers' look-ahead is most of a build)."""
    t0 = time.perf_counter()
    model = dice_model(rules)
    n, anx, pond = model.n, rules.anxiety_threshold, rules.pond_threshold
    anx_eff = min(anx, n + 1)
    rmax = table_rolls(rules)  # rolls left after a roll: rolls - 1, + the Wolf's or first-turn bonus
    B = n + 1
    st = _structure(n, model.p_heron, anx_eff)
    offs, cnt, probs = st.offs, st.cnt, st.probs
    post_K, post_C, post_codes = st.post_K, st.post_C, st.post_codes
    pre_T, pre_index = st.pre_T, st.pre_index
    adv = np.array(rules.combo_advance, dtype=np.int64)
    eff = np.array(rules.combo_effect, dtype=np.int64)
    P, F, sels = st.P, st.F, st.sels
    pair_tab, f_tab = st.pair_tab, st.f_tab
    blocks = []
    directory = np.zeros(N_TABLES * (rmax + 1) * anx_eff * 2 * 2)
    values = np.zeros(N_TABLES)
    pi_off = ROW_DIR + directory.size
    f_off = pi_off + pair_tab.size
    pos = f_off + f_tab.size

    def programme(t):  # one table's backward induction (numba, without the GIL), or its memo
        dbl, bull, lion = _table_flags(t, rules.guide_power_doubling)
        par = _params(rules, t)
        read = par.copy()
        if bull == 0:  # the Bull's keys are read by the Bull's tables only (expert_dp._raw_score)
            read[PAR_BULL] = read[PAR_BULL_MIN] = 0
        if read[PAR_HERON_K] == 0:  # the smallest doubled set is read only with a herons' count
            read[PAR_HERON_MIN] = 0
        key = (n, model.p_heron, anx_eff, rmax, pond, rules.rolls, tuple(adv), tuple(eff), bool(dbl), bull,
               bool(lion), tuple(int(x) for x in read))
        with _PROGRAMMES_LOCK:
            hit = _PROGRAMMES.get(key)
            if hit is not None:
                _PROGRAMMES.move_to_end(key)
                return hit
        Q, A, QR, AR = _run_dp(n, anx_eff, rmax, post_K, post_C, post_codes, pre_T, pre_index, offs, cnt,
                               probs, adv, eff, dbl, bull, lion, B, par)
        v = _first_roll(n, pond, anx_eff, rules.rolls - 1, offs, cnt, probs, post_codes,
                        Q, lion, adv, eff, dbl, bull, B, par)
        out = (Q, A, QR, AR, v)
        with _PROGRAMMES_LOCK:
            _PROGRAMMES[key] = out
            while sum(x[0].nbytes * 4 for x in _PROGRAMMES.values()) > PROGRAMMES_MB * 10**6 and len(_PROGRAMMES) > 1:
                _PROGRAMMES.popitem(last=False)
        return out

    # the five tables are independent: built side by side on the cores (the same numbers)
    with ThreadPoolExecutor(max_workers=max(1, min(N_TABLES, os.cpu_count() or 1))) as pool:
        programmes = list(pool.map(programme, range(N_TABLES)))
    for t in range(N_TABLES):
        Q, A, QR, AR, values[t] = programmes[t]
        for r in range(rmax + 1):
            for h in range(anx_eff):
                sel, rk = sels[h]
                for fl in range(2):
                    d = dir_index(t, r, h, fl, rmax, anx_eff)
                    directory[2 * d] = pos
                    directory[2 * d + 1] = sel.size
                    block = np.full((sel.size, ENTRY), -2.0)  # power columns: not stored
                    block[rk, 0] = A[r, sel, fl]
                    block[rk, 1] = Q[r, sel, fl]
                    block[rk, 2] = AR[r, sel, fl]
                    block[rk, 3] = QR[r, sel, fl]
                    blocks.append(block.ravel())
                    pos += ENTRY * sel.size
    head = np.zeros(ROW_DIR)
    head[ROW_MAGIC] = MAGIC
    head[ROW_B] = B
    head[ROW_RMAX] = rmax
    head[ROW_ANX] = anx_eff
    head[ROW_TSEAT] = -1
    head[ROW_PI] = pi_off
    head[ROW_F] = f_off
    head[ROW_P1] = P + 1
    head[ROW_STRIDE] = n + 1
    first = f_off + f_tab.size
    best = [np.full(BEST_VALUES * ((pos - first) // ENTRY), -2.0)] if model.exact else []
    head[ROW_G] = pos + sum(b.size for b in best)  # the merged rank counts close the row
    row = np.concatenate([head, directory, pair_tab, f_tab] + blocks + best + [merged_rank_counts(n)])
    if model.exact and powers:
        order = [(post_K[sel][np.argsort(rk)], post_C[sel][np.argsort(rk)]) for sel, rk in sels]
        fill_power_values(row, rules, order, first, pos)
    row = first_roll_section(row, n, rules.rolls - 1)  # the first rolls' columns close the row
    return ExpertTables(row, values, model.exact, time.perf_counter() - t0, False)


def _checksum(row: np.ndarray, value: np.ndarray, exact: bool) -> str:
    digest = hashlib.sha256(np.ascontiguousarray(row, dtype=np.float64).tobytes())
    digest.update(np.ascontiguousarray(value, dtype=np.float64).tobytes())
    digest.update(b"exact" if exact else b"approx")
    return digest.hexdigest()


def check_tables(tab: ExpertTables, rules) -> str | None:
    """Why tables loaded from a file cannot be the tables of ``rules`` (None: they can): the
    row's head, directory and blocks must have the sizes these rules imply."""
    row, value = tab.row, tab.value
    if row.ndim != 1 or row.dtype != np.float64 or value.shape != (N_TABLES,):
        return "wrong shape or type"
    model = dice_model(rules)
    if tab.exact != model.exact:
        return "built for other dice"
    n = model.n
    anx_eff = min(rules.anxiety_threshold, n + 1)
    rmax = table_rolls(rules)
    _, _, P, F = _rank_tables(n)
    n_dir = N_TABLES * (rmax + 1) * anx_eff * 2
    pi_off = ROW_DIR + 2 * n_dir
    f_off = pi_off + 2 * (n + 1) * (n + 1)
    pos = f_off + F.size
    if row.size < pos:
        return "too short"
    head = {ROW_MAGIC: MAGIC, ROW_B: n + 1, ROW_RMAX: rmax, ROW_ANX: anx_eff, ROW_TSEAT: -1,
            ROW_PI: pi_off, ROW_F: f_off, ROW_P1: P + 1, ROW_STRIDE: n + 1}
    if any(row[k] != v for k, v in head.items()):
        return "head does not match the rules"
    for t in range(N_TABLES):
        for r in range(rmax + 1):
            for h in range(anx_eff):
                for fl in range(2):
                    d = dir_index(t, r, h, fl, rmax, anx_eff)
                    if row[ROW_DIR + 2 * d] != pos or row[ROW_DIR + 2 * d + 1] != F[6, P, n - h]:
                        return "directory does not match the rules"
                    pos += ENTRY * int(F[6, P, n - h])
    if model.exact:  # the best uses' values follow the entries (expert_dp.BEST_VALUES)
        first = f_off + F.size
        if row[ROW_POWERS] != 2 * pos - first:
            return "power columns not filled"
        pos += BEST_VALUES * ((pos - first) // ENTRY)
    merged = merged_rank_counts(n)
    if row[ROW_G] != pos or row.size < pos + merged.size or not np.array_equal(row[pos:pos + merged.size], merged):
        return "merged rank counts do not match the rules"
    pos += merged.size
    if row[ROW_FIRST] != pos or row.size <= pos + 1 or row[pos] != rules.rolls - 1:
        return "first rolls' columns do not match the rules"
    if not np.array_equal(first_roll_section(row[:pos], n, rules.rolls - 1), row):
        return "first rolls' columns are not the tables' columns"
    pos = row.size
    if row.size != pos:
        return f"{row.size} values where the rules imply {pos}"
    if not (np.isfinite(row).all() and np.isfinite(value).all()):
        return "values that are not numbers"
    return None


class _TablesMemo:
    """The last ``size`` tables used in this process, by their key alone (``_key(rules)``, as
    JSON): rules that differ only in what the tables do not read (the players, the board, the
    seats' compensation) share one copy. Keyed on the rules themselves, a study's eight tables
    of people (2 to 7 players) each missed it and read the same file again, once a batch.
    Called under _TABLES_LOCK."""

    def __init__(self, size: int):
        self.size = size
        self._memo: OrderedDict[str, ExpertTables] = OrderedDict()

    def __call__(self, key_json: str, rules) -> ExpertTables:
        tab = self._memo.get(key_json)
        if tab is not None:
            self._memo.move_to_end(key_json)
            return tab
        tab = _load_or_build(key_json, rules)
        self._memo[key_json] = tab
        while len(self._memo) > self.size:
            self._memo.popitem(last=False)
        return tab

    def cache_clear(self) -> None:
        self._memo.clear()


def _load_or_build(key_json: str, rules) -> ExpertTables:
    from .._numba_cache import say_once

    digest = hashlib.sha256(key_json.encode()).hexdigest()[:16]
    path = cache_folder() / f"expert-v{VERSION}-{digest}.npz"
    if not _TRIMMED and path.parent.is_dir():  # once a process: a folder filled before the cap
        _TRIMMED.append(path.parent)
        trim_tables(path.parent, cap_bytes(), keep=path)
    if path.exists():
        t0 = time.perf_counter()
        with contextlib.suppress(OSError):  # its time of last use, for the size cap's eviction
            os.utime(path)
        try:
            with np.load(path) as z:
                if int(z["version"]) != VERSION:
                    raise ValueError("tables of another format version")
                tab = ExpertTables(z["row"], z["value"], bool(z["exact"]), 0.0, True)
                if str(z["checksum"]) != _checksum(tab.row, tab.value, tab.exact):
                    raise ValueError("checksum mismatch")
            reason = check_tables(tab, rules)
            if reason is not None:
                raise ValueError(reason)
            tab.seconds = time.perf_counter() - t0
            return tab
        except Exception as err:  # noqa: BLE001 — torn, damaged or foreign: rebuild (and say so)
            say_once("tables", f"the expert tables {path} were unusable ({err}); rebuilding them once")
            with contextlib.suppress(OSError):
                path.unlink()
    tab = build_tables(rules)
    try:
        with atomic_path(path) as tmp, open(tmp, "wb") as fh:  # synced, renamed, or removed
            np.savez(fh, row=tab.row, value=tab.value, exact=tab.exact, version=VERSION,
                     checksum=_checksum(tab.row, tab.value, tab.exact))
        _forget_other_versions(path.parent)
        trim_tables(path.parent, cap_bytes(), keep=path)
    except (OSError, OutputError) as err:
        say_once("unwritable", f"cannot write the expert tables to {path.parent} "
                                      f"({getattr(err, 'strerror', None) or err}); they are rebuilt each run")
    return tab


def _forget_other_versions(folder: Path) -> None:
    """Delete cached tables of other format versions (they are never read again; 10d8 tables
    take tens of MB)."""
    for old in folder.glob("expert-*.npz"):
        if not old.name.startswith(f"expert-v{VERSION}-"):
            with contextlib.suppress(OSError):  # best effort: another process may hold it
                old.unlink()


#: Default size cap of the tables' disk cache, in MB (HERON_SIM_TABLES_MB): a study builds the
#: tables of every candidate that changes a rule the expert reads (8 D8: 14 MB each; 10 D8: about 58 MB).
TABLES_MB = 2000


def cap_bytes() -> int:
    """The disk cache's size cap: ``HERON_SIM_TABLES_MB`` megabytes (default :data:`TABLES_MB`;
    0 keeps only the tables just built)."""
    raw = os.environ.get("HERON_SIM_TABLES_MB", "").strip()
    if not raw:
        return TABLES_MB * 10**6
    try:
        mb = int(raw)
    except ValueError:
        mb = -1
    if mb < 0:
        raise HeronSimError(f"HERON_SIM_TABLES_MB: {raw!r}; allowed: a whole number of megabytes >= 0")
    return mb * 10**6


def to_evict(files: list[tuple[str, int, float]], cap: int, keep: str | None = None) -> list[str]:
    """The files to delete so that the rest fit in ``cap`` bytes: the least recently used first
    (``files``: (name, size, time of last use)); ``keep`` is never deleted."""
    total = sum(size for _, size, _ in files)
    out = []
    for name, size, _ in sorted(files, key=lambda f: (f[2], f[0])):
        if total <= cap:
            break
        if name != keep:
            out.append(name)
            total -= size
    return out


def trim_tables(folder: Path, cap: int, keep: Path | None = None) -> list[str]:
    """Delete the least recently used cached tables (a hit refreshes a file's time) until the
    folder's tables fit in ``cap`` bytes; ``keep`` (the tables just written) stays. Best effort:
    a file another process holds or has already removed is left to it. Returns the names deleted."""
    files = []
    for f in folder.glob("expert-*.npz"):
        with contextlib.suppress(OSError):
            st = f.stat()
            files.append((f.name, st.st_size, st.st_mtime))
    gone = to_evict(files, cap, keep.name if keep is not None else None)
    for name in gone:
        with contextlib.suppress(OSError):
            (folder / name).unlink()
    return gone


_TABLES_LOCK = threading.Lock()
_tables_cached = _TablesMemo(16)
_TRIMMED: list = []  # the folder trimmed at this process's first look-up


def expert_tables(rules) -> ExpertTables:
    """The expert's tables for these rules (memory, then disk cache, then built); one thread
    at a time (two batches side by side must not build and write the same tables twice)."""
    key = json.dumps(_key(rules), sort_keys=True)
    with _TABLES_LOCK:
        return _tables_cached(key, rules)


def optimal_turn_value(rules, guide: int, powers: bool | None = None) -> float:
    """Optimal expected advance of a fresh turn (guide ready) over keep/stop decisions.

    powers off (or a guide other than Bull/Lion): Guide Power doubling only; Bull ready: +2
    on sets of 3+; Lion ready: the rescue of an Anxiety.
    """
    pw = rules.powers if powers is None else powers
    pw = pw and guide not in rules.disabled_powers
    return float(expert_tables(rules).value[table_for(guide, True, pw)])


def table_for(guide: int, ready: bool, powers: bool) -> int:
    """The table used with this guide (Python mirror of the kernel's choice)."""
    from ..animals import LION, TAUREAU

    if powers and guide == TAUREAU:
        return T_BULL_READY if ready else T_BULL_EXHAUSTED
    if powers and guide == LION and ready:
        return T_LION_READY
    return T_NODOUBLE if guide == HERON else T_PLAIN
