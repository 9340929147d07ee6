"""A multi-worker Dask cluster on this machine, started as a user starts one (issue 61 item 4):
``dask scheduler`` and ``dask worker`` processes talking over TCP on 127.0.0.1, then the
same games played through it with 1, 2, ... workers. It prints each size's games a second
while playing (the same games each time), the CPU of the cluster's processes, and checks
that the summary is the same as the local run's, bit for bit, and that nothing the cluster
opened listens beyond loopback.

    python benchmarks/dask_scaling.py [--workers 1,2,3] [--games N] [--table greedy|mix] [--repeat K]

Each size is a fresh cluster: a scheduler (``--host 127.0.0.1``, dashboard off, its HTTP
routes on a free loopback port), then N ``dask worker --nthreads 1 --host 127.0.0.1`` commands,
each in a session of its own as on machines of their own (``--layout nworkers``: one
``dask worker --nworkers N``), with numba on one thread a worker (``HERON_SIM_WORKER_THREADS=1``) and Dask's profiler off,
as docs/outputs.md says to start a cluster of several machines. The timed runs go through
``heron_sim.runner.executor.count_games`` (what ``simulate --json --scheduler`` calls), after a
warm-up run that loads the kernel on every worker; a last ``simulate --json --scheduler``
command per size checks the user's path against the local summary.

Games a second grow with the workers only while there are idle cores for them: on a machine
of C cores, beyond C one-thread workers they share the cores (the load average is printed).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABLES = {"greedy": "greedy", "mix": "greedy,prudent,expert,racer"}
#: The environment of the workers: one numba thread each, Dask's periodic work made rarer
#: (heron_sim.runner.executor.QUIET_WORKERS, as environment variables).
WORKER_ENV = {"HERON_SIM_WORKER_THREADS": "1", "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
              "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "500ms",
              "DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__INTERVAL": "5s",
              "DASK_DISTRIBUTED__WORKER__MEMORY__MONITOR_INTERVAL": "1s"}
LOOPBACK = ("127.0.0.1", "::1")


def _dask() -> str:
    exe = Path(sys.executable).with_name("dask")
    return str(exe) if exe.exists() else "dask"


class Cluster:
    """A scheduler and ``n`` one-thread workers, processes of their own on 127.0.0.1.

    Linux shares a loaded machine's CPU between sessions first (autogroup scheduling), then
    between a session's processes: the workers of one ``dask worker --nworkers N`` command are
    one session and together get one session's share, as much as another user's single job;
    ``layout="machines"`` starts each worker as a command of its own (its own session), as each
    machine of a cluster runs its own workers."""

    def __init__(self, n: int, folder: Path, layout: str = "machines"):
        env = dict(os.environ, PYTHONPATH=str(ROOT), **WORKER_ENV)
        self.file = folder / f"scheduler-{n}.json"
        self.log = open(folder / f"cluster-{n}.log", "w")  # noqa: SIM115 - closed in close()
        self.procs = [subprocess.Popen([_dask(), "scheduler", "--host", "127.0.0.1", "--port", "0",
                                        "--no-dashboard", "--dashboard-address", "127.0.0.1:0",
                                        "--scheduler-file", str(self.file)],
                                       env=env, stdout=self.log, stderr=subprocess.STDOUT, cwd=ROOT,
                                       start_new_session=True)]
        deadline = time.monotonic() + 60
        while not self.file.exists() or not self.file.read_text().strip():
            if time.monotonic() > deadline or self.procs[0].poll() is not None:
                self.close()
                raise SystemExit(f"the scheduler did not start (see {self.log.name})")
            time.sleep(0.2)
        time.sleep(0.2)  # the file is written whole before the scheduler serves
        self.address = json.loads(self.file.read_text())["address"]
        # "machines": one `dask worker` command a worker, each in a session of its own, as one
        # per machine would be; "nworkers": one `dask worker --nworkers N` (one session)
        commands = [1] * n if layout == "machines" else [n]
        for k in commands:
            self.procs.append(subprocess.Popen([_dask(), "worker", self.address, "--nworkers", str(k),
                                                "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard",
                                                "--dashboard-address", "127.0.0.1:0"],
                                               env=env, stdout=self.log, stderr=subprocess.STDOUT, cwd=ROOT,
                                               start_new_session=True))

    def processes(self) -> list:
        import psutil

        out = []
        for p in self.procs:
            with contextlib.suppress(psutil.NoSuchProcess):  # ended since it was started: nothing to count
                pp = psutil.Process(p.pid)
                out += [pp, *pp.children(recursive=True)]
        return out

    def cpu(self) -> float:
        """CPU seconds of the scheduler, the nannies and the workers so far."""
        import psutil

        total = 0.0
        for p in self.processes():
            with contextlib.suppress(psutil.NoSuchProcess):  # ended between the listing and the reading
                t = p.cpu_times()
                total += t.user + t.system
        return total

    def listening(self) -> list[str]:
        """Every address a process of the cluster listens on."""
        import psutil

        out = []
        for p in self.processes():
            try:
                conns = p.net_connections(kind="inet")
            except psutil.NoSuchProcess:
                continue
            out += [f"{c.laddr.ip}:{c.laddr.port}" for c in conns if c.status == psutil.CONN_LISTEN]
        return sorted(out)

    def close(self) -> None:
        for p in reversed(self.procs):  # the workers first, then the scheduler
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)  # its own session: the nannies and workers too
        for p in reversed(self.procs):
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        self.log.close()


def busy_seconds() -> float | None:
    """CPU seconds every process of the machine has used since it started (/proc/stat), or None
    where that cannot be read: what the other users' jobs took during a run is this, less the
    cluster's and this process's."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    user, nice, system, idle, iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def same_counts(a, b) -> bool:
    """Every field of two SummaryCounts equal, array for array."""
    import dataclasses

    import numpy as np

    return all(np.array_equal(np.asarray(getattr(a, f.name)), np.asarray(getattr(b, f.name)))
               for f in dataclasses.fields(a))


def timed(rules, games: int, seats, ex) -> tuple[float, object]:
    from heron_sim.runner.executor import count_games

    t = time.perf_counter()
    run = count_games(rules, games, 3, seats, ex)
    return time.perf_counter() - t, run


def cli_summary(games: int, table: str, scheduler: str | None) -> dict:
    args = [sys.executable, "-m", "heron_sim", "simulate", "--mode", "8d8", "--players", "4",
            "--strategy", TABLES[table], "--games", str(games), "--seed", "3", "--json"]
    if scheduler:
        args += ["--scheduler", scheduler]
    out = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    if out.returncode:
        raise SystemExit(f"simulate --scheduler {scheduler}: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workers", default="1,2,3", help="cluster sizes, comma-separated (default 1,2,3)")
    p.add_argument("--games", type=int, default=2_000_000, help="games of each timed run (default 2,000,000)")
    p.add_argument("--table", choices=sorted(TABLES), default="greedy")
    p.add_argument("--layout", choices=("machines", "nworkers"), default="machines",
                   help="machines: one `dask worker` command a worker, each in a session of its own, as on "
                        "machines of their own (default); nworkers: one `dask worker --nworkers N`")
    p.add_argument("--repeat", type=int, default=3, help="timed runs per size (the median is printed)")
    p.add_argument("--cli-games", type=int, default=200_000,
                   help="games of the simulate --json --scheduler check per size (0: none)")
    args = p.parse_args()
    # SIGTERM as Ctrl-C: the clusters' processes (sessions of their own, which a terminal's
    # Ctrl-C does not reach) are closed on the way out
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        import distributed  # noqa: F401
        import psutil  # noqa: F401
    except ImportError:
        print("Dask scaling: skipped (dask.distributed is not installed: pip install 'distributed')")
        return
    sys.path.insert(0, str(ROOT))
    from heron_sim.rules import Rules
    from heron_sim.runner.executor import get_executor
    from heron_sim.simulation import simulate_counts

    rules = Rules.build(mode="8d8")
    seats = (TABLES[args.table].split(",") * 4)[:4]
    print(f"{os.cpu_count()} cores; load average at start {os.getloadavg()[0]:.2f}; "
          f"{args.games:,} four-player 8d8 {args.table} games a run, {args.repeat} runs a size")
    simulate_counts(rules, 20_000, 3, seats)  # the local kernel loaded
    t = time.perf_counter()
    local = simulate_counts(rules, args.games, 3, seats)
    local_s = time.perf_counter() - t
    print(f"{'this process (numba on every core)':<44} {args.games / local_s:>10,.0f} games/s  "
          f"(one run, {local_s:.1f} s)")
    ref = cli_summary(args.cli_games, args.table, None) if args.cli_games else None
    rows = []
    with tempfile.TemporaryDirectory(prefix="heron-dask-") as tmp:
        for n in (int(x) for x in args.workers.split(",")):
            cluster = Cluster(n, Path(tmp), args.layout)
            try:
                with get_executor(cluster.address) as ex:
                    ex.client.wait_for_workers(n, timeout=120)
                    timed(rules, 40_000 * n, seats, ex)  # each worker's kernel loaded
                    walls, cpus, loads, others = [], [], [], []
                    for _ in range(args.repeat):
                        c0, b0, s0 = cluster.cpu(), busy_seconds(), time.process_time()
                        wall, run = timed(rules, args.games, seats, ex)
                        cpus.append(cluster.cpu() - c0)
                        b1 = busy_seconds()
                        if b0 is not None and b1 is not None:  # the other users' cores meanwhile
                            others.append(max(0.0, (b1 - b0) - cpus[-1] - (time.process_time() - s0)) / wall)
                        walls.append(wall)
                        loads.append(os.getloadavg()[0])
                        if not same_counts(run.counts, local.counts):
                            raise SystemExit(f"{n} workers: the sums differ from the local run's")
                    tasks = sorted(ex.task_seconds)
                    listen = cluster.listening()
                same_cli = "not checked"
                if args.cli_games:
                    same_cli = "yes" if cli_summary(args.cli_games, args.table, cluster.address) == ref else "NO"
            finally:
                cluster.close()
            beyond = [a for a in listen if a.rsplit(":", 1)[0] not in LOOPBACK]
            wall = sorted(walls)[len(walls) // 2]
            row = {"workers": n, "games_per_s": args.games / wall, "walls_s": walls, "worker_cpu_s": cpus,
                   "loads": loads, "others_cores": others, "task_median_s": tasks[len(tasks) // 2], "tasks": len(tasks),
                   "same_sums": True, "same_cli_json": same_cli, "listening": listen}
            rows.append(row)
            print(f"{n} worker{'s' if n > 1 else ' '} (tcp://127.0.0.1, dask scheduler + dask worker) "
                  f"{row['games_per_s']:>10,.0f} games/s  ({rows[0]['games_per_s'] and row['games_per_s'] / rows[0]['games_per_s']:.2f}x "
                  f"1 worker; runs {', '.join(f'{w:.1f}' for w in walls)} s; cluster CPU "
                  f"{sorted(cpus)[len(cpus) // 2]:.1f} s; load {', '.join(f'{x:.1f}' for x in loads)}; "
                  f"other jobs' cores {', '.join(f'{x:.2f}' for x in others) or 'n/a'}; "
                  f"median task {row['task_median_s']:.2f} s; same sums: yes; same simulate --json: {same_cli}; "
                  f"{len(listen)} listening sockets, all on loopback: {'yes' if not beyond else 'NO ' + str(beyond)})")
            if beyond:
                raise SystemExit(f"{n} workers: listening beyond loopback: {beyond}")
    print(json.dumps({"games": args.games, "table": args.table, "cores": os.cpu_count(),
                      "local_games_per_s": args.games / local_s, "sizes": rows}))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the clusters are closed (Cluster.close)
        print("interrupted: the cluster's processes closed", file=sys.stderr)
        raise SystemExit(130) from None
