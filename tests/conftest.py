"""Fixtures shared by every test folder."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

LAB_TOOLS = ("losetup", "mkfs.btrfs", "mkfs.ext4", "mkfs.xfs", "mergerfs")


def lab_unavailable_reason() -> str | None:
    if os.geteuid() != 0:
        return "the lab NAS needs root"
    missing = [t for t in LAB_TOOLS if shutil.which(t) is None]
    if missing:
        return f"missing tools: {', '.join(missing)} (scripts/setup.sh installs them)"
    if not Path("/dev/loop-control").exists():
        return "no loop device support"
    return None


@pytest.fixture(scope="session")
def lab_nas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A real lab NAS (loops, btrfs raid1, ext4, xfs, two mergerfs pools) for the whole
    session. Always torn down, even when a test fails."""
    reason = lab_unavailable_reason()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"integration tests must run in CI: {reason}")
        pytest.skip(reason)
    from tierdeck.app.lab import lab_down, lab_up

    directory = tmp_path_factory.mktemp("lab") / "nas"
    try:
        lab_up(directory)
        yield directory
    finally:
        lab_down(directory)
