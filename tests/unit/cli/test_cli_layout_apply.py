"""tierdeck layout apply/undo into --root tmp_path: the plan printed first, --dry-run
writing nothing, the typed confirmation, the fstab block and units written, a second
apply replacing the block, undo putting fstab back byte for byte and removing the units
and the mountpoints apply created (only while empty)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..cli_support import run

# A real fstab's shape (seed 000's owner's): tabs, comments, no final newline.
FSTAB = ("# /etc/fstab: static file system information.\nUUID=1b2c-33 /\text4\t"
         "errors=remount-ro 0 1\n/dev/md0 /cache btrfs defaults 0 0")  # fmt: skip
UNITS = ["mnt-slow.mount", "mnt-tiered.mount", "tierdeck-mover-mnt-tiered.service",
         "tierdeck-mover-mnt-tiered.timer"]  # fmt: skip


def tree(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): p.read_bytes() if p.is_file() else None
            for p in sorted(root.rglob("*"))}  # fmt: skip


@pytest.fixture
def layout_file(tmp_path: Path) -> Path:
    file = tmp_path / "lay.toml"
    result = run("layout", "plan", "--demo", "--cache", "/cache", "--slow", "/mnt/disk1",
                 "--slow", "/mnt/disk2=NC", "--pool", "/mnt/tiered", "--slow-pool",
                 "/mnt/slow", "--save", str(file))  # fmt: skip
    assert result.exit_code == 0, result.output
    return file


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "root" / "etc").mkdir(parents=True)
    (tmp_path / "root" / "etc" / "fstab").write_text(FSTAB)
    return tmp_path / "root"


def test_dry_run_prints_the_plan_and_writes_nothing(layout_file: Path, root: Path) -> None:
    before = tree(root)
    result = run("layout", "apply", str(layout_file), "--root", str(root), "--dry-run")
    assert result.exit_code == 0, result.output
    assert "add a block '# BEGIN tierdeck layout mnt-tiered'" in result.output
    assert "systemctl daemon-reload" in result.output and "skipped: --root" in result.output
    assert tree(root) == before


def test_confirmation_must_be_typed(layout_file: Path, root: Path) -> None:
    before = tree(root)
    result = run("layout", "apply", str(layout_file), "--root", str(root), input="yes\n")
    assert result.exit_code == 2 and "not confirmed" in result.output
    assert tree(root) == before
    result = run("layout", "apply", str(layout_file), "--root", str(root), input="/mnt/tiered\n")
    assert result.exit_code == 0, result.output
    assert (root / "etc/systemd/system/mnt-tiered.mount").is_file()


def test_apply_twice_then_undo(layout_file: Path, root: Path) -> None:
    result = run("layout", "apply", str(layout_file), "--root", str(root), "--yes")
    assert result.exit_code == 0, result.output
    units = root / "etc/systemd/system"
    assert sorted(p.name for p in units.iterdir()) == UNITS
    assert (root / "mnt/tiered").is_dir() and (root / "mnt/slow").is_dir()
    first = (root / "etc/fstab").read_text()
    assert first.startswith(FSTAB + "\n# BEGIN tierdeck layout mnt-tiered\n/cache=RW:")
    assert first.endswith("# END tierdeck layout mnt-tiered\n") and first.count("mergerfs") == 2
    assert f"--layout {layout_file}" in (units / "tierdeck-mover-mnt-tiered.service").read_text()

    text = layout_file.read_text().replace('fsname = "tiered"', 'fsname = "tiered2"')
    assert text != layout_file.read_text()
    layout_file.write_text(text)
    result = run("layout", "apply", str(layout_file), "--root", str(root), "--yes")
    assert result.exit_code == 0, result.output
    assert "replace the block" in result.output
    second = (root / "etc/fstab").read_text()
    assert second.count("# BEGIN tierdeck layout") == 1 and "fsname=tiered2" in second
    assert second.startswith(FSTAB + "\n")

    # undo goes back one apply: the first apply's fstab and units
    result = run("layout", "undo", "--root", str(root), "--yes")
    assert result.exit_code == 0, result.output
    assert (root / "etc/fstab").read_text() == first
    assert "fsname=tiered\n" in (units / "mnt-tiered.mount").read_text()
    # and the second undo goes back to before the first apply (applies stack)
    assert run("layout", "undo", "--root", str(root), "--yes").exit_code == 0
    assert (root / "etc/fstab").read_text() == FSTAB and not list(units.iterdir())
    assert run("layout", "undo", "--root", str(root), "--yes").exit_code == 2  # nothing left


def test_undo_restores_fstab_byte_for_byte_and_removes_units(layout_file: Path, root: Path) -> None:
    assert run("layout", "apply", str(layout_file), "--root", str(root), "--yes").exit_code == 0
    result = run("layout", "undo", "--root", str(root), input="no\n")
    assert result.exit_code == 2 and "restore" in result.output  # shown, not done
    assert (root / "etc/systemd/system/mnt-tiered.mount").exists()
    result = run("layout", "undo", "--root", str(root), input="yes\n")
    assert result.exit_code == 0, result.output
    assert (root / "etc/fstab").read_bytes() == FSTAB.encode()
    assert list((root / "etc/systemd/system").iterdir()) == []
    assert [p.name for p in (root / "etc").glob("fstab.tierdeck-backup-*")]  # kept


def test_fresh_root_undo_removes_the_fstab_it_created(layout_file: Path, tmp_path: Path) -> None:
    root = tmp_path / "image"
    assert run("layout", "apply", str(layout_file), "--root", str(root), "--yes").exit_code == 0
    assert (root / "etc/fstab").read_text().startswith("# BEGIN tierdeck layout mnt-tiered\n")
    assert run("layout", "undo", "--root", str(root), "--yes").exit_code == 0
    assert not (root / "etc/fstab").exists()
    assert not (root / "mnt/tiered").exists() and not (root / "mnt/slow").exists()


def test_undo_keeps_a_mountpoint_it_created_once_something_is_in_it(
    layout_file: Path, root: Path
) -> None:
    assert run("layout", "apply", str(layout_file), "--root", str(root), "--yes").exit_code == 0
    (root / "mnt/slow/film.mkv").write_text("")
    result = run("layout", "undo", "--root", str(root), "--yes")
    assert result.exit_code == 0, result.output
    assert f"remove the mountpoint {root}/mnt/slow apply created, if empty" in result.output
    assert f"kept {root}/mnt/slow: something is in it" in result.output
    assert (root / "mnt/slow/film.mkv").exists() and not (root / "mnt/tiered").exists()


def test_refusals_exit_2(layout_file: Path, root: Path, tmp_path: Path) -> None:
    (root / "etc/fstab").write_text(FSTAB + "\n# BEGIN tierdeck layout mnt-tiered\n")
    result = run("layout", "apply", str(layout_file), "--root", str(root), "--yes")
    assert result.exit_code == 2 and "do not enclose one block" in result.output
    bad = tmp_path / "bad.toml"
    bad.write_text("not = [toml")
    assert run("layout", "apply", str(bad), "--root", str(root), "--yes").exit_code == 2
    result = run("layout", "undo", "--root", str(tmp_path / "empty"), "--yes")
    assert result.exit_code == 2 and "nothing to undo" in result.output
