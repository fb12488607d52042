"""``tierdeck bench run --clients`` against a hand-written ``fio --client`` run of the
same job on the same hosts, paired.

    .venv/bin/python bench/clients.py [--rounds 5] [--runtime 3] [--no-append]

Two hosts of their own on this machine (network namespaces joined by veth pairs,
10.200.N.0/24, each with its own sshd: tests/support/netns.py). The hand-written side
is what an admin would type: ``fio --server`` started in each namespace on its veth
address, then one ``fio --client=ADDR job --client=ADDR job``. tierdeck's side starts
its own servers on each host's loopback over SSH, forwards a port to each, and runs
the same job text (``jobfile_text`` of the placed jobs). Per round:

- ratio: tierdeck's total bandwidth over the hand-written run's (each the sum of the
  hosts' ``bw_bytes`` as fio reports them), the two run in alternating order;
- A/A: a second hand-written run over the first, the noise of the same test.

Medians of the rounds are printed, and tierdeck's set-up time before the first I/O
(servers started, forwards opened: its own "set-up" line). Run as root.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests.support, as bench/remote.py does

from tierdeck.app.clients.plan import ClientSpot  # noqa: E402

from bench._report import append_run  # noqa: E402
from tests.support.netns import (  # noqa: E402
    NsHost,
    client_config,
    known_hosts,
    release_run_netns,
    run_netns_mounted,
    start_ns_host,
    teardown,
)

CLI = [sys.executable, "-m", "tierdeck.app.cli"]
SESSION_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
JOB = "[w]\nrw=write\nbs=1M\nsize=64M\nnumjobs=2\nioengine=psync\n"


def job_text(runtime: int, path: str) -> str:
    from tierdeck.backends.fio.jobfile import parse_jobfile
    from tierdeck.core.jobspec import jobfile_text, with_overrides
    from tierdeck.core.placement import place_jobs

    jobs = with_overrides(parse_jobfile(JOB), None, runtime, False)
    return jobfile_text(place_jobs(jobs, path).jobs, path)


def hand_run(hosts: list[NsHost], ports: list[int], folder: Path, runtime: int) -> int:
    argv = ["fio", "--output-format=json"]
    for h, port in zip(hosts, ports, strict=True):
        job = folder / f"{h.name}.fio"
        job.write_text(job_text(runtime, str(h.folder)))
        argv += [f"--client={h.address},{port}", str(job)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True)
    from tierdeck.backends.fio.client_stats import read_client_report

    reports = read_client_report(done.stdout)
    for h in hosts:
        for leftover in h.folder.iterdir():
            leftover.unlink()
    return sum(r.write.bw_bytes for r in reports.by_port.values())


def tierdeck_run(
    hosts: list[NsHost], env: dict[str, str], job: Path, runtime: int, cli: list[str] = CLI
) -> tuple[int, float, float]:
    """Total bandwidth, set-up time (its own line) and the time from the command's
    start to its "running on" line: connecting, every check, the set-up."""
    targets = [a for h in hosts for a in ("--target", f"{h.name}:{h.folder}")]
    argv = [*cli, "bench", "run", "--clients", ",".join(h.name for h in hosts), "--job", str(job),
            *targets, "--runtime", str(runtime), "--direct", "0", "--json", "--no-save"]  # fmt: skip
    started = time.monotonic()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)  # fmt: skip
    assert proc.stderr is not None
    said, to_io = [], float("nan")
    for line in proc.stderr:
        said.append(line)
        if line.startswith("running on"):
            to_io = time.monotonic() - started
            break
    stdout, rest = proc.communicate(timeout=180)
    stderr = "".join(said) + rest
    if proc.returncode != 0:
        raise SystemExit(f"tierdeck failed: {stderr}")
    out = json.loads(stdout)
    setup = re.search(r"set-up ([0-9.]+) s", stderr)
    total = sum(h["summary"]["write"]["bw_bytes"] for h in out["hosts"])
    assert total == out["aggregate"]["summary"]["write"]["bw_bytes"]
    return total, float(setup.group(1)) if setup else float("nan"), to_io


def preflight_rounds(hosts: list[NsHost], home: Path, rounds: int) -> list[float]:
    """Paired, in this process: the checks of every host as they are (``prepare``:
    folder, space, O_DIRECT, fio versions, and each host's inventory for where its
    folder is, the hosts at once) over the checks without the inventory, one host
    after the other (as before the inventory was read). Connections are made once."""
    from tierdeck.app.clients.plan import check_spot, check_versions, fio_version
    from tierdeck.app.clients.run import existing_test_files
    from tierdeck.app.clients.session import Prepared, prepare
    from tierdeck.backends.host import LiveHost
    from tierdeck.backends.host.ssh import SshHost

    os.environ["HOME"] = str(home)  # the hosts' aliases and keys (client_config)
    jobs = parse_jobs()
    connected = {h.name: SshHost(h.name) for h in hosts}
    spots = [ClientSpot(h.name, str(h.folder)) for h in hosts]
    local = LiveHost()

    def new() -> None:
        prepare(spots, jobs, (), local, connected.__getitem__, lambda _: None, Prepared())

    def old() -> None:
        versions = {"here": fio_version(local)}
        for spot in spots:
            versions[spot.name] = fio_version(connected[spot.name])
        check_versions(versions)
        for spot in spots:
            check_spot(connected[spot.name], spot, jobs)
            existing_test_files(connected[spot.name], spot.path)

    ratios = []
    try:
        new(), old()  # warm-up: the connections, the shells
        for round_no in range(rounds):
            timed = {}
            for name, check in (("new", new), ("old", old))[:: 1 if round_no % 2 else -1]:
                started = time.perf_counter()
                check()
                timed[name] = time.perf_counter() - started
            ratios.append(timed["new"] / timed["old"])
    finally:
        for host in connected.values():
            host.close()
    return ratios


def parse_jobs() -> tuple[Any, ...]:
    from tierdeck.backends.fio.jobfile import parse_jobfile
    from tierdeck.core.jobspec import with_overrides

    return with_overrides(parse_jobfile(JOB), None, 3, False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runtime", type=int, default=3)
    parser.add_argument("--no-append", action="store_true", help="print only")
    parser.add_argument("--before", metavar="PYTHON",
                        help="also run another tree's tierdeck (its venv's python) each round, "
                        "paired: this tree's bandwidth and time to the first I/O over its")  # fmt: skip
    parser.add_argument("--netns-index", type=int, default=1, metavar="N",
                        help="the hosts are namespaces tdcN and tdcN+1 (another pair when "
                        "tests on this machine use tdc1 and tdc2 meanwhile)")  # fmt: skip
    args = parser.parse_args()
    indexes = (args.netns_index, args.netns_index + 1)
    before_cli = [args.before, "-m", "tierdeck.app.cli"] if args.before else None
    hosts: list[NsHost] = []
    servers: list[subprocess.Popen[bytes]] = []
    was_mounted = run_netns_mounted()
    with tempfile.TemporaryDirectory(prefix="tierdeck-bench-clients-") as tmp:
        base = Path(tmp)
        try:
            for index in indexes:
                hosts.append(start_ns_host(index, base / f"host{index}", {"PATH": SESSION_PATH}))
            home = base / "home"
            (home / ".ssh").mkdir(parents=True)
            (home / ".ssh" / "config").write_text(client_config(hosts))
            (home / ".ssh" / "known_hosts").write_text(known_hosts(hosts))
            env = {**os.environ, "HOME": str(home), "TIERDECK_DATA_DIR": str(base / "data")}
            env.pop("SSH_AUTH_SOCK", None)
            ports = [random.randint(20000, 60999) for _ in hosts]
            for h, port in zip(hosts, ports, strict=True):
                servers.append(subprocess.Popen(
                    ["ip", "netns", "exec", h.name, "fio", f"--server=ip:{h.address},{port}"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))  # fmt: skip
            time.sleep(1)  # the hand-started servers: nothing to wait on but their socket
            job = base / "job.fio"
            job.write_text(JOB)
            ratios, controls, setups, to_ios = [], [], [], []
            vs_before: list[tuple[float, float]] = []
            hand_run(hosts, ports, base, args.runtime)  # warm-up, both sides
            tierdeck_run(hosts, env, job, args.runtime)
            for round_no in range(args.rounds):
                if round_no % 2 == 0:
                    hand = hand_run(hosts, ports, base, args.runtime)
                    ours, setup, to_io = tierdeck_run(hosts, env, job, args.runtime)
                else:
                    ours, setup, to_io = tierdeck_run(hosts, env, job, args.runtime)
                    hand = hand_run(hosts, ports, base, args.runtime)
                again = hand_run(hosts, ports, base, args.runtime)
                ratios.append(ours / hand)
                controls.append(again / hand)
                setups.append(setup)
                to_ios.append(to_io)
                if before_cli is not None:
                    theirs, _, their_io = tierdeck_run(hosts, env, job, args.runtime, before_cli)
                    vs_before.append((ours / theirs, to_io / their_io))
            checks = preflight_rounds(hosts, home, max(args.rounds, 7))
        finally:
            for server in servers:
                server.kill()
                server.wait()
            for h in hosts:
                h.lab.stop()
            for index in indexes:
                teardown(f"tdc{index}")
            release_run_netns(was_mounted)
    lines = [
        f"2 hosts (network namespaces), job: write 1M x2 clones, {args.runtime} s, "
        f"{args.rounds} rounds",
        f"tierdeck --clients / hand fio --client, total bandwidth: median "
        f"{statistics.median(ratios):.3f} (rounds {', '.join(f'{r:.3f}' for r in ratios)})",
        f"A/A hand / hand: median {statistics.median(controls):.3f} "
        f"(rounds {', '.join(f'{r:.3f}' for r in controls)})",
        f"tierdeck set-up before the first I/O: median {statistics.median(setups):.2f} s",
        f"tierdeck command start to the first I/O (connect, checks, set-up): median "
        f"{statistics.median(to_ios):.2f} s",
    ]
    lines.append(
        f"checks of every host with the inventory, at once / without it, one after the "
        f"other: median {statistics.median(checks):.2f}x "
        f"(rounds {', '.join(f'{r:.2f}' for r in checks)})"
    )
    if vs_before:
        bw, io = zip(*vs_before, strict=True)
        tree = Path(args.before).absolute().parents[2]  # TREE/.venv/bin/python
        head = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=False).stdout.strip()  # fmt: skip
        lines.append(
            f"this tree / {tree} at {head or '?'}, paired: bandwidth median "
            f"{statistics.median(bw):.3f} (rounds {', '.join(f'{r:.3f}' for r in bw)}); "
            f"start to first I/O median {statistics.median(io):.2f}x "
            f"(rounds {', '.join(f'{r:.2f}' for r in io)})"
        )
    print("\n".join(lines))
    if not args.no_append:
        append_run("Several hosts at once: `bench/clients.py`", "bench/clients.py", lines)


if __name__ == "__main__":
    main()
