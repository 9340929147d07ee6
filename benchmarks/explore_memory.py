"""The explorer's memory under many tabs: a real ``heron-sim explore`` server (127.0.0.1, a free
port) gets one change from each of ``--tabs`` tabs, each a new tab id (as every page load is),
and its resident memory (RSS, from /proc) is printed as the tabs come, at the end and after an
idle wait.

    python benchmarks/explore_memory.py --tabs 300                 # the hostile trial (nobody streams)
    python benchmarks/explore_memory.py --tabs 300 --stream        # each tab watches its games to the end
    python benchmarks/explore_memory.py --tabs 300 --stream --idle 15 --set IDLE_SECONDS=10

``--set NAME=VALUE`` sets a constant of heron_sim.explore.live in the server (e.g. a short
IDLE_SECONDS to see the memory fall back without waiting ten minutes).

A busy answer (503: too many games running) is retried after a short wait, as a page would.
Linux only (reads /proc/PID/status).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import time


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def request(port: int, method: str, path: str, doc: dict | None = None) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        body = None if doc is None else json.dumps(doc)
        conn.request(method, path, body, {"Content-Type": "application/json"})
        r = conn.getresponse()
        return r.status, json.loads(r.read() or b"{}")
    finally:
        conn.close()


def stream_to_end(port: int, job: str) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    try:
        conn.request("GET", f"/api/stream/{job}")
        r = conn.getresponse()
        while True:
            line = r.readline()
            if not line or line.startswith(b"event: end"):
                return
    finally:
        conn.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tabs", type=int, default=300)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--stream", action="store_true", help="each tab reads its stream to the end")
    ap.add_argument("--idle", type=float, default=0.0, help="seconds to wait idle at the end")
    ap.add_argument("--every", type=int, default=10, help="print the RSS every this many tabs")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="a constant of heron_sim.explore.live in the server")
    a = ap.parse_args()
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    sets = "".join(f"setattr(live, {k!r}, type(getattr(live, {k!r}))({v!r}));"
                   for k, v in (kv.split("=", 1) for kv in a.set))
    code = ("import sys; from heron_sim.explore import live; " + sets +
            "from heron_sim.explore import serve; serve(echo=lambda s: print(s, file=sys.stderr))")
    proc = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, text=True, env=env)
    try:
        line = ""
        while "http://" not in line:
            line = proc.stderr.readline()
            if not line and proc.poll() is not None:
                sys.exit(f"the server did not start (exit {proc.returncode})")
        port = int(line.split("127.0.0.1:")[1].split("/")[0])
        time.sleep(2.0)
        start = rss_mib(proc.pid)
        peak, busy = start, 0
        print(f"tabs 0: RSS {start:.0f} MiB", flush=True)
        t0 = time.monotonic()
        for i in range(a.tabs):
            doc = {"tab": f"t{i}-{os.getpid()}", "games": a.games, "seed": 1001, "values": {"rolls": 4}}
            while True:
                status, ans = request(port, "POST", "/api/run", doc)
                if status != 503:
                    break
                busy += 1
                time.sleep(0.2)
            if status != 200:
                sys.exit(f"tab {i}: {status} {ans}")
            if a.stream:
                stream_to_end(port, ans["job"])
            peak = max(peak, rss_mib(proc.pid))
            if (i + 1) % a.every == 0 or i + 1 == a.tabs:
                _, st = request(port, "GET", "/api/status")
                kept = st.get("kept_bytes")
                kept = "" if kept is None else f", kept {kept / 2**20:.1f} MiB, tabs kept {st.get('tabs')}"
                print(f"tabs {i + 1}: RSS {rss_mib(proc.pid):.0f} MiB (peak {peak:.0f}){kept}, "
                      f"{time.monotonic() - t0:.0f} s, busy answers {busy}", flush=True)
        if a.idle:
            time.sleep(a.idle)
            _, st = request(port, "GET", "/api/status")
            kept = st.get("kept_bytes")
            kept = "" if kept is None else f", kept {kept / 2**20:.1f} MiB, tabs kept {st.get('tabs')}"
            print(f"idle {a.idle:.0f} s: RSS {rss_mib(proc.pid):.0f} MiB{kept}", flush=True)
    finally:
        proc.terminate()
        proc.wait(30)


if __name__ == "__main__":
    main()
