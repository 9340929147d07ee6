"""The lab's writers that used to bypass heron_sim.io.atomic_path: the study's figures (the
sampler's state is no longer written at all). A write that fails half-way leaves the previous file and no temporary file."""

from __future__ import annotations

import errno
from types import SimpleNamespace as NS

import pytest

from heron_sim.errors import OutputError

pytestmark = pytest.mark.exact


def test_a_study_keeps_no_pickled_sampler(tmp_path):
    """optuna 5's samplers hold thread locks and cannot be pickled: the study's sampler is rebuilt
    from the study's seed and its finished trials instead (heron_sim.lab.study.make_sampler)."""
    from heron_sim.lab import study as st

    assert not hasattr(st, "save_sampler") and not hasattr(st, "load_sampler")
    assert st.trial_seed(7, 3) == st.trial_seed(7, 3) != st.trial_seed(7, 4)
    assert st.trial_seed(7, 3) != st.trial_seed(8, 3)


def test_lab_figures_are_written_atomically(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from heron_sim.lab.outputs import figures

    spec = NS(title="t", objectives=[NS(metric="length", describe=lambda: "length")], params=[NS(name="bull_bonus")])
    trials = [NS(values=[float(i)], params={"bull_bonus": i % 3}, user_attrs={}) for i in range(6)]
    paths = figures(spec, trials, [], tmp_path)
    assert [p.name for p in paths] == ["front.png", "objectives_vs_params.png"]
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in paths)
    old = {p.name: p.read_bytes() for p in paths}

    def full_disk(self, fname, *a, **kw):
        with open(fname, "wb") as fh:
            fh.write(b"\x89PNG half")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", full_disk)
    with pytest.raises((OSError, OutputError)):
        figures(spec, trials, [], tmp_path)
    figdir = tmp_path / "figures"
    assert sorted(p.name for p in figdir.iterdir()) == sorted(old)
    assert {p.name: p.read_bytes() for p in figdir.iterdir()} == old


def test_expert_tables_write_is_atomic(tmp_path, monkeypatch, capsys):
    """The expert's tables cache: a write that fails half-way (disk full) leaves no temporary
    file beside the cache, says so once, and the tables still play (rebuilt in memory)."""
    import numpy as np

    from heron_sim import _numba_cache
    from heron_sim.rules import Rules
    from heron_sim.strategies import expert_build

    monkeypatch.setenv("HERON_SIM_CACHE", str(tmp_path))
    monkeypatch.setattr(_numba_cache, "_state", dict(_numba_cache._state, said=set()))
    real_savez = np.savez

    def torn(fh, **arrays):
        real_savez(fh, row=arrays["row"][:10])  # half a file, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(expert_build.np, "savez", torn)
    expert_build._tables_cached.cache_clear()
    try:
        tab = expert_build.expert_tables(Rules.build(mode="7d8"))
    finally:
        expert_build._tables_cached.cache_clear()
    assert tab.row.size > 1000 and not tab.loaded
    assert list((tmp_path / "tables").iterdir()) == []  # neither a torn file nor a temporary
    err = capsys.readouterr().err
    assert "cannot write the expert tables" in err and "No space left" in err
