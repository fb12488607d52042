"""app/mover/run.run_mover on real branches: small tmpfs mounts standing in for a cache and
two slow disks (root only; skipped elsewhere). The lab NAS tests
(tests/integration/test_mover_lab.py) do the same on btrfs and the slow pool's disks."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tierdeck.app.layout.files import save_layout
from tierdeck.app.mover.history import MoverHistory
from tierdeck.app.mover.run import MoverOptions, MoverProgress, MoverRefused, RefusalKind, run_mover
from tierdeck.backends.host import LiveHost
from tierdeck.core.layout.model import Branch, Layout
from tierdeck.core.layout.rules import RuleId, RuleSeverity, check_layout
from tierdeck.core.mover import MoveReason, SkipReason, StopReason

from tests.support.mover_tree import small_disk_layout

OLD = 1_600_000_000
MIB = 1024**2


@dataclasses.dataclass
class Tiers:
    root: Path
    cache: Path
    slow: tuple[Path, Path]
    layout: Layout
    layout_path: Path


def _mount(path: Path, size: str) -> None:
    path.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tierdeck-test", str(path)],
                   check=True, capture_output=True)  # fmt: skip


@pytest.fixture
def tiers(tmp_path: Path, data_dir: Path) -> Iterator[Tiers]:
    if os.geteuid() != 0:
        pytest.skip("mounting tmpfs branches needs root")
    mounted: list[Path] = []
    try:
        for name, size in (("cache", "16m"), ("d1", "4m"), ("d2", "4m")):
            _mount(tmp_path / name, size)
            mounted.append(tmp_path / name)
    except subprocess.CalledProcessError:
        pytest.skip("cannot mount tmpfs here")
    layout = small_disk_layout(tmp_path / "cache", (tmp_path / "d1", tmp_path / "d2"),
                               tmp_path / "pool", tmp_path / "slow")  # fmt: skip
    path = tmp_path / "media.toml"
    save_layout(path, layout)
    try:
        yield Tiers(tmp_path, tmp_path / "cache", (tmp_path / "d1", tmp_path / "d2"), layout, path)
    finally:
        for m in reversed(mounted):
            subprocess.run(["umount", "-l", str(m)], check=False)


def put(t: Tiers, rel: str, size: int, *, age_days: float = 30) -> str:
    path = t.cache / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    data = os.urandom(size)
    path.write_bytes(data)
    stamp = OLD if age_days >= 30 else int(__import__("time").time() - age_days * 86400)
    os.utime(path, (stamp, stamp))
    return hashlib.sha256(data).hexdigest()


def where(t: Tiers, rel: str) -> list[str]:
    places = [t.cache, *t.slow]
    return [p.name for p in places if os.path.lexists(p / rel)]


def run(t: Tiers, **kw: object) -> tuple[object, list[MoverProgress]]:
    seen: list[MoverProgress] = []
    report = run_mover(LiveHost(), t.layout, t.layout_path, MoverOptions(**kw),  # type: ignore[arg-type]
                       on_progress=seen.append, cancel=threading.Event())  # fmt: skip
    return report, seen


def test_dry_run_forecasts_and_touches_nothing(tiers: Tiers) -> None:
    put(tiers, "tv/old.mkv", MIB)
    put(tiers, "tv/new.mkv", MIB, age_days=0)
    report, _ = run(tiers, dry_run=True)
    assert [(m.file.rel, m.reason) for m in report.planned] == [("tv/old.mkv", MoveReason.AGE)]
    assert report.planned[0].destination in {str(p) for p in tiers.slow}
    assert report.outcomes == () and report.forecast_note
    assert where(tiers, "tv/old.mkv") == ["cache"]
    (rec,) = MoverHistory().list()
    assert rec.dry_run and rec.files_planned == 1


def test_age_run_moves_old_files_once_with_their_content(tiers: Tiers) -> None:
    sums = {rel: put(tiers, rel, 300 * 1024) for rel in ("a/1", "a/2", "b/c/3")}
    put(tiers, "young", 1000, age_days=0)
    report, seen = run(tiers)
    assert report.ok and report.files_moved == 3, report.message
    for rel, digest in sums.items():
        (place,) = where(tiers, rel)
        assert place in ("d1", "d2")
        got = (tiers.root / place / rel).read_bytes()
        assert hashlib.sha256(got).hexdigest() == digest
    assert where(tiers, "young") == ["cache"]
    assert (tiers.cache / "b/c").is_dir()  # empty source folders stay for mergerfs
    assert seen and seen[-1].files_done == 3 and seen[-1].bytes_done == 900 * 1024
    (rec,) = MoverHistory().list()
    assert (rec.files_moved, rec.bytes_moved, rec.stopped) == (3, 900 * 1024, None)


def test_open_file_skipped_then_moved_when_closed(tiers: Tiers) -> None:
    put(tiers, "held.bin", 1000)
    with (tiers.cache / "held.bin").open("rb"):
        report, _ = run(tiers)
    assert [(o.move.file.rel, o.skip) for o in report.skipped] == [("held.bin", SkipReason.OPEN)]
    assert where(tiers, "held.bin") == ["cache"]
    report, _ = run(tiers)
    assert report.files_moved == 1 and len(where(tiers, "held.bin")) == 1


def test_full_slow_tier_leaves_the_rest_on_the_cache(tiers: Tiers) -> None:
    # 2 x 4 MiB of slow tier: twelve 1 MiB files cannot all go.
    sums = {f"f{i:02}": put(tiers, f"f{i:02}", MIB) for i in range(12)}
    report, _ = run(tiers)
    assert report.unplaced or report.stopped is StopReason.NO_SPACE
    for rel, digest in sums.items():
        (place,) = where(tiers, rel)  # exactly one copy, whole
        got = (tiers.root / place / rel).read_bytes()
        assert hashlib.sha256(got).hexdigest() == digest


def test_refusals(tiers: Tiers) -> None:
    pool_source = dataclasses.replace(
        tiers.layout,
        mover=dataclasses.replace(tiers.layout.mover, destination=str(tiers.root / "pool")),
    )
    with pytest.raises(MoverRefused) as refused:
        run_mover(LiveHost(), pool_source, tiers.layout_path, MoverOptions(),
                  on_progress=lambda p: None, cancel=threading.Event())  # fmt: skip
    assert refused.value.kind is RefusalKind.RULES
    unmounted = dataclasses.replace(tiers.layout, slow=(Branch(str(tiers.root / "nodisk")),),
                                    mover=dataclasses.replace(tiers.layout.mover,
                                    destination=str(tiers.root / "nodisk")), slow_pool=None)  # fmt: skip
    (tiers.root / "nodisk").mkdir()
    with pytest.raises(MoverRefused) as refused:
        run_mover(LiveHost(), unmounted, tiers.layout_path, MoverOptions(),
                  on_progress=lambda p: None, cancel=threading.Event())  # fmt: skip
    assert refused.value.kind is RefusalKind.RULES and "branch-mounted" in refused.value.detail
    host = LiveHost()
    with host.exclusive(f"mover-{tiers.layout_path.stem}"), pytest.raises(MoverRefused) as refused:
        run(tiers)
    assert refused.value.kind is RefusalKind.LOCKED
    assert [r.refused for r in MoverHistory().list()] == ["locked", "rules", "rules"]


def test_cancel_before_moving_stops_cleanly(tiers: Tiers) -> None:
    put(tiers, "x", 1000)
    cancel = threading.Event()
    cancel.set()
    report = run_mover(LiveHost(), tiers.layout, tiers.layout_path, MoverOptions(),
                       on_progress=lambda p: None, cancel=cancel)  # fmt: skip
    assert report.stopped is StopReason.CANCELLED and where(tiers, "x") == ["cache"]


class FillingHost(LiveHost):
    """Fills both slow disks when the run asks for open files the second time: the
    slow tier runs out of space between two batches, after the forecast fit."""

    def __init__(self, tiers: Tiers) -> None:
        super().__init__()
        self.tiers = tiers
        self.calls = 0

    def open_files(self):  # type: ignore[no-untyped-def]
        self.calls += 1
        if self.calls == 2:
            for disk in self.tiers.slow:
                with (disk / "filler").open("wb") as f:
                    try:
                        while True:
                            f.write(b"\0" * 65536)
                    except OSError:
                        pass
        return super().open_files()


def test_slow_tier_filling_up_mid_run_stops_with_nothing_lost(
    tiers: Tiers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tierdeck.app.mover.run.BATCH_FILES", 2)
    sums = {f"f{i}": put(tiers, f"f{i}", 256 * 1024) for i in range(6)}
    report = run_mover(FillingHost(tiers), tiers.layout, tiers.layout_path, MoverOptions(),
                       on_progress=lambda p: None, cancel=threading.Event())  # fmt: skip
    assert report.stopped is StopReason.NO_SPACE, report.message
    assert report.files_moved == 2 and "stopped" in report.message
    for rel, digest in sums.items():
        (place,) = where(tiers, rel)
        got = (tiers.root / place / rel).read_bytes()
        assert hashlib.sha256(got).hexdigest() == digest
    for disk in tiers.slow:
        assert not [n for n in os.listdir(disk) if n.startswith(".tierdeck-moving.")]
    (rec,) = MoverHistory().list()
    assert rec.stopped is StopReason.NO_SPACE and rec.failed


def test_destination_folder_missing_on_the_branches_is_created(tiers: Tiers) -> None:
    # The mover moves into a folder of the slow pool that no slow branch has yet: the
    # branches' free space is their own (statvfs of the branch), and the folder is made.
    pool = tiers.layout.slow_pool
    assert pool is not None
    layout = dataclasses.replace(
        tiers.layout,
        mover=dataclasses.replace(tiers.layout.mover, destination=f"{pool.mountpoint}/media"),
    )
    save_layout(tiers.layout_path, layout)
    tiers = dataclasses.replace(tiers, layout=layout)
    digest = put(tiers, "tv/old.mkv", 300 * 1024)
    report, _ = run(tiers, dry_run=True)
    assert report.stopped is None, report.message  # type: ignore[attr-defined]
    assert [m.destination for m in report.planned] in (  # type: ignore[attr-defined]
        [str(d / "media")] for d in tiers.slow
    )
    assert not any((d / "media").exists() for d in tiers.slow)  # a dry run makes nothing
    report, _ = run(tiers)
    assert report.ok and report.files_moved == 1, report.message  # type: ignore[attr-defined]
    (place,) = [d for d in tiers.slow if (d / "media/tv/old.mkv").exists()]
    assert hashlib.sha256((place / "media/tv/old.mkv").read_bytes()).hexdigest() == digest
    assert not (tiers.cache / "tv/old.mkv").exists()


def test_path_preserving_policy_sees_the_destination_folder(tiers: Tiers) -> None:
    # epmfs into the pool's "media", which only d2 has: mergerfs would create there,
    # though d1 has more room (its "media" missing counts like any missing parent).
    from tierdeck.core.mergerfs_policy import CreatePolicy

    pool = tiers.layout.slow_pool
    assert pool is not None
    epmfs = dataclasses.replace(
        pool, options=dataclasses.replace(pool.options, create=CreatePolicy.EPMFS)
    )
    layout = dataclasses.replace(
        tiers.layout, slow_pool=epmfs,
        mover=dataclasses.replace(tiers.layout.mover, destination=f"{pool.mountpoint}/media"),
    )  # fmt: skip
    save_layout(tiers.layout_path, layout)
    tiers = dataclasses.replace(tiers, layout=layout)
    (tiers.slow[1] / "media").mkdir()
    (tiers.slow[1] / "filler").write_bytes(b"\1" * MIB)
    put(tiers, "tv/old.mkv", 1000)
    report, _ = run(tiers, dry_run=True)
    assert [m.destination for m in report.planned] == [str(tiers.slow[1] / "media")]  # type: ignore[attr-defined]


def test_dry_run_refuses_what_layout_check_refuses(tiers: Tiers) -> None:
    # A pool inside a slow branch: layout check/apply refuse it, and so does every mover
    # command, the forecast included (it used to plan moves and return 0).
    inside = str(tiers.slow[0] / "pool")
    bad = dataclasses.replace(
        tiers.layout, tiered_pool=dataclasses.replace(tiers.layout.tiered_pool, mountpoint=inside)
    )
    assert any(r.rule is RuleId.BRANCH_PLACEMENT and r.severity is RuleSeverity.ERROR
               for r in check_layout(bad))  # fmt: skip
    put(tiers, "x", 1000)
    for dry_run in (True, False):
        with pytest.raises(MoverRefused) as refused:
            run_mover(LiveHost(), bad, tiers.layout_path, MoverOptions(dry_run=dry_run),
                      on_progress=lambda p: None, cancel=threading.Event())  # fmt: skip
        assert refused.value.kind is RefusalKind.RULES
        assert "branch-placement" in refused.value.detail
    assert where(tiers, "x") == ["cache"]
