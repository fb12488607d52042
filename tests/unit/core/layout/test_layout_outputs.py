"""Outputs of a layout: seed 000's real fstab options come back as written, unit names
escape as the real systemd-escape does, and the units say what the layout says."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tierdeck.core.layout.model import (
    Branch,
    BranchMode,
    CreatePolicy,
    PoolOptions,
    PoolSpec,
    default_layout,
    parse_pool_options,
)
from tierdeck.core.layout.outputs import (
    OutputError,
    branches_text,
    escape_path,
    fstab_line,
    layout_outputs,
    mergerfs_size,
    mount_unit_name,
    pool_options_text,
)

from .test_layout_toml import SEED_CACHED_LINE, SEED_SLOW_LINE, seed_layout

SYSTEMD_ESCAPE = shutil.which("systemd-escape")
needs_systemd_escape = pytest.mark.skipif(SYSTEMD_ESCAPE is None, reason="no systemd-escape")


def real_escape(path: str) -> str | None:
    """systemd-escape's answer, None when it refuses the path."""
    assert SYSTEMD_ESCAPE is not None
    done = subprocess.run([SYSTEMD_ESCAPE, "--path", "--suffix=mount", "--", path],
                          capture_output=True, check=False)  # fmt: skip
    if done.returncode != 0:
        return None
    return done.stdout.decode().strip()


@pytest.mark.parametrize("line", [SEED_CACHED_LINE, SEED_SLOW_LINE])
def test_seed_options_round_trip(line: str) -> None:
    written = line.split()[3]
    options = parse_pool_options(written)
    text = pool_options_text(options)
    assert sorted(text.split(",")) == sorted(written.split(","))
    assert parse_pool_options(text) == options


def test_seed_layout_fstab_lines() -> None:
    out = layout_outputs(seed_layout())
    tiered, slow = out.fstab
    assert tiered.split()[:3] == [
        "/cache=RW:/mnt/disk1=RW:/mnt/disk2=RW", "/mnt/cached", "fuse.mergerfs"]  # fmt: skip
    assert slow.split()[:3] == ["/mnt/disk1=RW:/mnt/disk2=RW", "/mnt/slow-storage",
                                "fuse.mergerfs"]  # fmt: skip
    assert tiered.endswith(" 0 0") and slow.endswith(" 0 0")
    seed_options = {
        tiered: SEED_CACHED_LINE.split()[3],
        slow: SEED_SLOW_LINE.split()[3],
    }
    for line, written in seed_options.items():
        assert sorted(line.split()[3].split(",")) == sorted(written.split(","))


def test_sizes_in_mergerfs_notation() -> None:
    assert mergerfs_size(300 * 1024**3) == "300G"
    assert mergerfs_size(4 * 1024**3) == "4G"
    assert mergerfs_size(2 * 1024**4) == "2T"
    assert mergerfs_size(1536 * 1024**2) == "1536M"
    assert mergerfs_size(4 * 1024**3 - 1) == str(4 * 1024**3 - 1)
    assert mergerfs_size(0) == "0"


def test_branch_modes_and_the_slow_pool_lifts_nc() -> None:
    layout = default_layout(("/mnt/ssd",), (Branch("/mnt/d1", BranchMode.NC),
                            Branch("/mnt/d2", BranchMode.RO)), "/mnt/pool", "/mnt/slow")  # fmt: skip
    tiered, slow = layout_outputs(layout).fstab
    assert tiered.split()[0] == "/mnt/ssd=RW:/mnt/d1=NC:/mnt/d2=RO"
    assert slow.split()[0] == "/mnt/d1=RW:/mnt/d2=RO"


def test_one_slow_branch_without_slow_pool_gives_one_line_and_its_units() -> None:
    layout = default_layout(("/mnt/ssd",), (Branch("/mnt/d1"),), "/mnt/pool")
    out = layout_outputs(layout)
    assert len(out.fstab) == 1
    assert list(out.units) == ["mnt-pool.mount", "tierdeck-mover-mnt-pool.service",
                               "tierdeck-mover-mnt-pool.timer"]  # fmt: skip


def test_a_colon_in_a_branch_cannot_be_listed() -> None:
    with pytest.raises(OutputError) as err:
        branches_text((Branch("/mnt/a:b"),))
    assert err.value.path == "/mnt/a:b"


def test_fstab_escapes_blanks() -> None:
    line = fstab_line(PoolSpec("/mnt/my pool", PoolOptions()), (Branch("/mnt/a b\\c"),))
    assert line.split(" ")[:2] == ["/mnt/a\\040b\\134c=RW", "/mnt/my\\040pool"]


def test_units_of_the_seed_layout() -> None:
    layout = seed_layout()
    out = layout_outputs(layout, command="/usr/bin/tierdeck", layout_path="/etc/t/my %lay.toml")
    assert list(out.units)[:2] == ["mnt-cached.mount", "mnt-slow\\x2dstorage.mount"]
    cached = out.units["mnt-cached.mount"]
    assert "What=/cache=RW:/mnt/disk1=RW:/mnt/disk2=RW\n" in cached
    assert "Where=/mnt/cached\n" in cached
    assert "Type=fuse.mergerfs\n" in cached
    assert f"Options={pool_options_text(layout.tiered_pool.options)}\n" in cached
    assert "RequiresMountsFor=/cache /mnt/disk1 /mnt/disk2\n" in cached
    service = out.units[out.mover_service]
    assert out.mover_service == "tierdeck-mover-mnt-cached.service"
    assert 'ExecStart=/usr/bin/tierdeck mover run --layout "/etc/t/my %%lay.toml"\n' in service
    assert "Type=oneshot\n" in service
    # the mover writes to the slow branches, not through the slow pool
    assert "RequiresMountsFor=/cache /mnt/disk1 /mnt/disk2\n" in service
    timer = out.units[out.mover_timer]
    assert out.mover_timer == "tierdeck-mover-mnt-cached.timer"
    assert "OnCalendar=hourly\n" in timer


def test_mover_schedule_goes_to_the_timer() -> None:
    layout = seed_layout()
    mover = type(layout.mover)(source=layout.mover.source, destination=layout.mover.destination,
                               schedule="*-*-* 03:00:00")  # fmt: skip
    layout = type(layout)(layout.cache, layout.slow, layout.tiered_pool, layout.slow_pool, mover)
    assert "OnCalendar=*-*-* 03:00:00\n" in layout_outputs(layout).units[
        "tierdeck-mover-mnt-cached.timer"]  # fmt: skip


def test_moveonenospc_as_a_policy() -> None:
    text = pool_options_text(PoolOptions(moveonenospc=CreatePolicy.LFS))
    assert "moveonenospc=lfs" in text.split(",")


# Paths from systemd's own documentation and test-unit-name.c, and the awkward cases.
ESCAPES = {
    "/": "-.mount",
    "/mnt/cached": "mnt-cached.mount",
    "/mnt/slow-storage": "mnt-slow\\x2dstorage.mount",
    "/home/lennart": "home-lennart.mount",
    "/foo/bar/": "foo-bar.mount",
    "//mnt//a/./b/": "mnt-a-b.mount",
    "/mnt/.hidden": "mnt-.hidden.mount",
    "/.x": "\\x2ex.mount",
    "/mnt/a b": "mnt-a\\x20b.mount",
    "/mnt/é": "mnt-\\xc3\\xa9.mount",
    "/mnt/a:b_c.d": "mnt-a:b_c.d.mount",
    "/mnt/~x+y@z": "mnt-\\x7ex\\x2by\\x40z.mount",
}


@pytest.mark.parametrize(("path", "name"), ESCAPES.items())
def test_mount_unit_names(path: str, name: str) -> None:
    assert mount_unit_name(path) == name


@needs_systemd_escape
@pytest.mark.parametrize("path", [*ESCAPES, "/mnt/../a", "/mnt/" + "a" * 256])
def test_escape_agrees_with_systemd_escape(path: str) -> None:
    want = real_escape(path)
    if want is None:
        with pytest.raises(OutputError):
            mount_unit_name(path)
    else:
        assert mount_unit_name(path) == want


PATH_CHARS = st.sampled_from(list("ab-_.:/ é\\x%~") + ["..", "."])


@needs_systemd_escape
@settings(max_examples=60, deadline=None)
@given(st.lists(PATH_CHARS, min_size=1, max_size=12).map(lambda p: "/" + "".join(p)))
def test_escape_agrees_with_systemd_escape_on_any_path(path: str) -> None:
    want = real_escape(path)
    if want is None:
        with pytest.raises(OutputError):
            escape_path(path)
    else:
        assert escape_path(path) + ".mount" == want


def test_a_relative_path_is_refused() -> None:
    with pytest.raises(OutputError):
        escape_path("mnt/a")
