"""Does a kill -9 of the mover ever lose a file? The soak: kill it hundreds of times at
random moments, then let a normal run settle what was left, and check every file.

Branches: three small tmpfs mounts made here (a cache and two slow disks, the slow
pool's branches, create policy mfs), unmounted at the end, on Ctrl-C too. Each
iteration seeds a tree on the cache (tests/support/mover_tree.make_tree: mixed sizes, a
sparse file, xattrs, nested folders, a symlink; here also a POSIX ACL on some files and
another owner on others; every time years old, so the layout's age policy selects all).

- CLI kills (most iterations): ``python -m tierdeck.app.cli mover run --layout L.toml``,
  the real process the systemd timer starts, killed with SIGKILL when a condition drawn
  at random holds, polled on the filesystem: the k-th journal file written, a temp copy
  on a slow branch, k files renamed into place, or k files gone from the cache;
- engine kills (every ``--child-every``-th): tests/support/mover_child.py stopped before
  its K-th step (K drawn from the steps of a whole move) and killed there;
- no kill (every ``--plain-every``-th): the same run left alone, the yardstick.

After each kill a normal ``mover run --json`` (which recovers first) must exit 0, and
then: every file exactly once on the slow branches, none on the cache, with its sha256,
mode, owner, ns mtime and atime, xattrs (the ACL among them) and sparseness as before;
no temp file anywhere; an empty journal. Printed: kills by kind, where they landed,
what recovery did, files checked, failures (must be 0), symlinks left whole on the cache
but dated by the killed engine's readlink (counted apart: the engine bug of
tests/integration/test_mover_symlink_atime.py), and the time of an iteration with a
kill as a ratio to one without. Exit status 1 on any failure or dated link.

Usage (root): .venv/bin/python bench/mover_soak.py [--kills 200] [--seed N]
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests/support

from tierdeck.core.mover import TEMP_PREFIX  # noqa: E402

from tests.support.mover_tree import (  # noqa: E402
    OLD_NS,
    empty,
    make_tree,
    small_disk_layout,
    snapshot,
)

FILES = 48  # per tree, besides the sparse file and the symlink
MAX_SIZE = 1024 * 1024
SEEDS = 8  # distinct trees, in turn
POLL_S = 0.0005  # the watcher's poll of the filesystem: a move of a tree takes ~0.1 s
OTHER_OWNER = (1234, 2345)
CONDITIONS = ("journal", "temp", "placed", "unlinked")


@dataclass
class Tally:
    kills: collections.Counter[str] = field(default_factory=collections.Counter)
    landed: collections.Counter[str] = field(default_factory=collections.Counter)
    recovered: collections.Counter[str] = field(default_factory=collections.Counter)
    finished_first: int = 0  # the run ended before its condition held: no kill
    dated_links: collections.Counter[str] = field(default_factory=collections.Counter)
    files_checked: int = 0
    failures: list[str] = field(default_factory=list)
    times: dict[str, list[float]] = field(default_factory=lambda: collections.defaultdict(list))


@dataclass(frozen=True)
class Bench:
    work: Path
    cache: Path
    slow: tuple[Path, Path]
    layout: Path
    journal: Path
    env: dict[str, str]


def _mount(path: Path, size: str) -> None:
    path.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tierdeck-soak",
                    str(path)], check=True)  # fmt: skip


@contextlib.contextmanager
def branches(work: Path) -> Iterator[Bench]:
    from tierdeck.app.layout.files import save_layout

    cache, d1, d2 = work / "cache", work / "d1", work / "d2"
    mounted: list[Path] = []
    try:
        for path in (cache, d1, d2):
            _mount(path, "96m")
            mounted.append(path)
        layout = small_disk_layout(cache, (d1, d2), work / "pool", work / "slow")
        path = work / "soak.toml"
        save_layout(path, layout)
        data = work / "data"
        env = {**os.environ, "TIERDECK_DATA_DIR": str(data)}
        yield Bench(work, cache, (d1, d2), path, data / "mover-journal" / path.stem, env)
    finally:
        for path in reversed(mounted):
            subprocess.run(["umount", "-l", str(path)], check=False)


def seed_tree(bench: Bench, seed: int) -> None:
    make_tree(bench.cache, seed, files=FILES, max_size=MAX_SIZE)
    rng = random.Random(seed)
    for path in sorted(bench.cache.rglob("*.bin")):
        st = path.lstat()
        roll = rng.random()
        if roll < 0.25:
            subprocess.run(["setfacl", "-m", "u:1234:rw,g:2345:r", str(path)], check=True)
        elif roll < 0.5:
            os.chown(path, *OTHER_OWNER)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # setfacl/chown change ctime only


def snapshot_before(cache: Path) -> dict[str, object]:
    """The tree's state, leaving it as it was: reading a symlink (readlink) sets its
    atime, which would make it young for the age policy."""
    links = {p: p.lstat() for p in cache.rglob("*") if p.is_symlink()}
    before: dict[str, object] = dict(snapshot(cache))
    for path, st in links.items():
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns), follow_symlinks=False)
    return before


def _files(root: Path) -> Iterator[Path]:
    """Files and symlinks under ``root`` by lstat only: following a symlink (os.walk's
    is_dir, Path.is_dir) sets its atime, and the age policy would then keep it."""
    for entry in os.scandir(root):
        if entry.is_dir(follow_symlinks=False):
            yield from _files(Path(entry.path))
        else:
            yield Path(entry.path)


def condition(bench: Bench, kind: str, k: int, tree: int) -> Callable[[], bool]:
    """The moment to kill, as a test of the filesystem."""
    if kind == "journal":
        return lambda: (bench.journal.is_dir()
                        and sum(1 for n in os.listdir(bench.journal) if n.endswith(".journal")) >= 1)  # fmt: skip
    if kind == "temp":
        return lambda: any(p.name.startswith(TEMP_PREFIX) for d in bench.slow for p in _files(d))
    if kind == "placed":
        return lambda: sum(1 for d in bench.slow for p in _files(d)
                           if not p.name.startswith(TEMP_PREFIX)) >= k  # fmt: skip
    return lambda: tree - sum(1 for _ in _files(bench.cache)) >= k


def killed_at(bench: Bench) -> str:
    """Where in a move the kill left the branches."""
    slow = {p.relative_to(d).as_posix() for d in bench.slow for p in _files(d)}
    if any(rel.rsplit("/", 1)[-1].startswith(TEMP_PREFIX) for rel in slow):
        return "temp copies"
    cached = {p.relative_to(bench.cache).as_posix() for p in _files(bench.cache)}
    if slow & cached:
        return "renamed, source kept"
    return "no copy yet" if not slow else "between files"


def cli(bench: Bench, *extra: str) -> list[str]:
    return [sys.executable, "-m", "tierdeck.app.cli", "mover", "run", "--layout",
            str(bench.layout), *extra]  # fmt: skip


def kill_cli(bench: Bench, rng: random.Random, tree: int, tally: Tally) -> str | None:
    """Start the CLI, kill it when the drawn condition holds; where the kill landed, or
    None if the run ended first."""
    kind = rng.choice(CONDITIONS)
    k = rng.randint(1, tree)
    ready = condition(bench, kind, k, tree)
    proc = subprocess.Popen(cli(bench), env=bench.env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        while proc.poll() is None:
            if ready():
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
                tally.kills["cli"] += 1
                landed = f"CLI, {kind}: {killed_at(bench)}"
                tally.landed[landed] += 1
                return landed
            time.sleep(POLL_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    tally.finished_first += 1
    tally.landed[f"CLI, {kind}: ended before it held"] += 1
    return None


def child(bench: Bench, verify: bool, pause_at: int | None) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "tests.support.mover_child", str(bench.cache),
            str(bench.slow[0]), str(bench.journal), "--group-files", "4"]  # fmt: skip
    if verify:
        argv.append("--verify")
    if pause_at is not None:
        argv += ["--pause-at", str(pause_at)]
    return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            cwd=ROOT, env=bench.env)  # fmt: skip


def child_steps(bench: Bench, seed: int) -> int:
    """Steps of a whole move of this tree by the child (it is put back afterwards)."""
    seed_tree(bench, seed)
    bench.journal.mkdir(parents=True, exist_ok=True)
    proc = child(bench, False, None)
    out, _ = proc.communicate(timeout=120)
    if proc.returncode != 0:
        raise SystemExit(f"the mover child failed: {out}")
    empty(bench.cache, *bench.slow)
    return int(out.split()[1])


def kill_child(bench: Bench, rng: random.Random, steps: int, tally: Tally) -> str:
    pause_at = rng.randint(1, steps)
    bench.journal.mkdir(parents=True, exist_ok=True)
    proc = child(bench, rng.random() < 0.5, pause_at)
    assert proc.stdout is not None and proc.stdin is not None
    try:
        line = proc.stdout.readline()  # blocks until the child is at step K
        if line != f"paused {pause_at}\n":
            raise SystemExit(f"the mover child said {line!r}, not paused {pause_at}")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
        proc.stdout.close()
    tally.kills["engine"] += 1
    landed = f"engine, step {(pause_at - 1) * 5 // steps + 1}/5: {killed_at(bench)}"
    tally.landed[landed] += 1
    return landed


def settle_and_check(
    bench: Bench, before: dict[str, object], tally: Tally, where: str, landed: str
) -> None:
    """A normal run, then every file of ``before`` exactly once on the slow tier."""
    proc = subprocess.run(cli(bench, "--json"), env=bench.env, capture_output=True, text=True)
    failures: list[str] = []
    if proc.returncode != 0:
        failures.append(
            f"normal run exited {proc.returncode}: {proc.stdout[-300:]}{proc.stderr[-300:]}"
        )
    else:
        report = json.loads(proc.stdout)
        tally.recovered.update(r["action"] for r in report["recovered"])
    # Links on the cache dated by the killed run's readlink (looked at before the
    # snapshots read them again): tests/integration/test_mover_symlink_atime.py's engine
    # bug. Whole and in one place, but left: counted apart from the failures.
    dated = {p.relative_to(bench.cache).as_posix() for p in _files(bench.cache)
             if p.is_symlink() and p.lstat().st_atime_ns > OLD_NS}  # fmt: skip
    after = [snapshot(d) for d in bench.slow]
    both = set(after[0]) & set(after[1])
    if both:
        failures.append(f"on both slow branches: {sorted(both)[:3]}")
    moved = {**after[0], **after[1]}
    left = snapshot(bench.cache)
    for rel, state in before.items():
        if rel in dated and rel not in moved and left.get(rel) == state:
            tally.dated_links[landed] += 1
            del left[rel]
        elif rel not in moved:
            failures.append(f"{rel}: not on the slow tier")
        elif moved[rel] != state:
            failures.append(f"{rel}: {state} became {moved[rel]}")
    extra = sorted(set(moved) - set(before))
    if extra:
        failures.append(f"unexpected on the slow tier: {extra[:3]}")
    if left:
        failures.append(f"left on the cache: {sorted(left)[:3]}")
    temps = [p for d in (bench.cache, *bench.slow) for p in d.rglob(f"{TEMP_PREFIX}*")]
    if temps:
        failures.append(f"temp files: {temps[:3]}")
    if bench.journal.is_dir() and os.listdir(bench.journal):
        failures.append(f"journal not empty: {os.listdir(bench.journal)}")
    tally.files_checked += len(before)
    tally.failures.extend(f"{where}: {f}" for f in failures)


def soak(bench: Bench, args: argparse.Namespace, tally: Tally) -> None:
    rng = random.Random(args.seed)
    steps = {seed: child_steps(bench, seed) for seed in range(SEEDS)}
    iteration, kills_done = 0, 0
    while kills_done < args.kills:
        seed = iteration % SEEDS
        seed_tree(bench, seed)
        before = snapshot_before(bench.cache)
        start = time.perf_counter()
        landed: str | None = None
        if iteration % args.plain_every == args.plain_every - 1:
            kind = "plain"
        elif iteration % args.child_every == 0:
            kind = "engine"
            landed = kill_child(bench, rng, steps[seed], tally)
        else:
            landed = kill_cli(bench, rng, len(before), tally)
            kind = "cli" if landed else "plain"
        kills_done += landed is not None
        where = f"iteration {iteration} ({kind}, tree {seed})"
        settle_and_check(bench, before, tally, where, landed or "no kill")
        tally.times[kind].append(time.perf_counter() - start)
        empty(bench.cache, *bench.slow)
        iteration += 1
        if args.progress and iteration % 20 == 0:
            print(f"  {iteration} iterations, {kills_done} kills, "
                  f"{len(tally.failures)} failures", file=sys.stderr, flush=True)  # fmt: skip
        if tally.failures and args.stop_on_failure:
            break


def _ratio(times: list[float], plain: float) -> str:
    if not times:
        return "none"
    r = sorted(t / plain for t in times)
    return f"{statistics.median(r):.2f}x (range {r[0]:.2f}-{r[-1]:.2f})"


def report(tally: Tally, args: argparse.Namespace) -> None:
    kills = sum(tally.kills.values())
    print(f"mover kill -9 soak: {kills} kills ({tally.kills['cli']} of the CLI process, "
          f"{tally.kills['engine']} of the engine child), seed {args.seed}")  # fmt: skip
    print("  where the kills landed:")
    for where, n in sorted(tally.landed.items()):
        print(f"    {where:<48} {n:4d}")
    rec = ", ".join(f"{a} {n}" for a, n in sorted(tally.recovered.items())) or "none"
    print(f"  recovered by the next run: {rec}")
    print(
        f"  files checked (sha256, mode, owner, ns times, xattrs/ACL, sparse): {tally.files_checked}"
    )
    print(f"  failures: {len(tally.failures)}")
    if tally.dated_links:
        print(f"  symlinks left whole on the cache, dated today by the killed run's readlink: "
              f"{sum(tally.dated_links.values())} (engine bug: "
              f"tests/integration/test_mover_symlink_atime.py); after kills at:")  # fmt: skip
        for where, n in sorted(tally.dated_links.items()):
            print(f"    {where:<48} {n:4d}")
    for failure in tally.failures[:20]:
        print(f"    {failure}")
    plain = tally.times.get("plain")
    if plain:
        base = statistics.median(plain)
        print(f"  time per iteration against one without a kill ({len(plain)} of those):")
        print(f"    kill of the CLI + normal run : {_ratio(tally.times.get('cli', []), base)}")
        print(f"    kill of the engine + normal run: {_ratio(tally.times.get('engine', []), base)}")
        print(f"  (for scale: an iteration without a kill {base:.2f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=200, help="how many kill -9s (default 200)")
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--child-every", type=int, default=5,
                        help="every N-th iteration kills the engine child at a step")  # fmt: skip
    parser.add_argument("--plain-every", type=int, default=10,
                        help="every N-th iteration runs without a kill (the yardstick)")  # fmt: skip
    parser.add_argument("--stop-on-failure", action="store_true")
    parser.add_argument("--progress", action="store_true", help="a line every 20 iterations")
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("bench/mover_soak.py needs root (tmpfs mounts, chown)")
    if shutil.which("setfacl") is None:
        raise SystemExit("bench/mover_soak.py needs setfacl (the acl package)")
    # SIGTERM as Ctrl-C: the finally blocks unmount the branches.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="tierdeck-mover-soak.") as work:
        try:
            with branches(Path(work)) as bench:
                soak(bench, args, tally)
        except KeyboardInterrupt:
            print("interrupted: the branches are unmounted", file=sys.stderr)
    report(tally, args)
    if tally.failures or tally.dated_links:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
