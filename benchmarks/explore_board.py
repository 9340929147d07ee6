"""The explorer's board view after a change (issue 60 item 3): seconds from the designer's change
to the board view on screen, through the real server (uvicorn on 127.0.0.1) and the page's own
requests: the page's pause after an edit, ``POST /api/run`` (the change's games start: 100,000 a
side, which play on while the board is computed, as on the page), then ``POST /api/board``: the
first view (``quick``) and the refined one. The page's default table (people: the lab's regulars),
a new variant each repeat (``anxiety_threshold`` 5 and a ``bull_bonus`` this process has not
played: the expert's tables are read from the tables folder or built). Medians.

    python benchmarks/explore_board.py [--repeats 3]     # also part of benchmarks/bench.py --explore
    python benchmarks/explore_board.py --before          # as before issue 60: no first view, nothing kept

With ``HERON_SIM_CACHE`` set to an empty folder (and ``NUMBA_CACHE_DIR`` to the usual kernels'
folder), every change's expert tables are built: the worst case, a value never played here.
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time


def figures(repeats: int = 3, before: bool = False) -> dict:
    """``before``: the board view as it was before issue 60 (the full view at once, no side kept)."""
    import httpx
    import uvicorn

    from heron_sim.explore.app import create_app
    from heron_sim.explore import board
    from heron_sim.explore.server import bind

    if before:
        board.CACHE_ENTRIES = 0

    sock = bind(0)
    app = create_app()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    debounce = 0.150  # the page waits this long after an edit before it asks (explore.js)

    def change(client, values):
        doc = {"tab": "bench-board", "mode": "8d8", "players": 4, "rotate": True, "seed": 1, "games": 100_000,
               "values": values, "lang": "fr"}
        t = time.perf_counter()
        assert client.post("/api/run", json=doc).status_code == 200
        quick = client.post("/api/board", json={**doc, "quick": not before})
        assert quick.status_code == 200, quick.text
        t_quick = time.perf_counter() - t
        full = client.post("/api/board", json=doc)
        assert full.status_code == 200, full.text
        return debounce + t_quick, debounce + time.perf_counter() - t, quick.json().get("games"), full.json().get("games")

    try:
        while not getattr(server, "started", False):
            time.sleep(0.05)
        with httpx.Client(base_url=base, timeout=900) as client:
            change(client, {"anxiety_threshold": 4})  # the kernels loaded, the rulings' board kept
            runs = [change(client, {"anxiety_threshold": 5, "bull_bonus": b}) for b in range(4, 4 + repeats)]
    finally:
        app.state.stopping = True
        server.should_exit = True
        thread.join(10)
        app.state.engine.close()
    return {"board_first_s": statistics.median(r[0] for r in runs), "board_full_s": statistics.median(r[1] for r in runs),
            "board_first_games": runs[0][2], "board_full_games": runs[0][3], "board_load": os.getloadavg()[0]}


def rows(fig: dict) -> list[tuple]:
    return [("`explore`: a change to its board view on screen (first view, "
             f"{fig['board_first_games']:,} games a side replayed)", f"{fig['board_first_s']:.2f} s", "", "<= 10 s"),
            (f"  ... to the refined board view ({fig['board_full_games']:,} games a side)", f"{fig['board_full_s']:.2f} s", "", "")]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--before", action="store_true", help="the board view as before issue 60")
    args = parser.parse_args()
    print(f"load average at start {os.getloadavg()[0]:.2f}")
    for label, value, _, target in rows(figures(args.repeats, args.before)):
        print(f"{label:<84} {value:>8}  {target}")
