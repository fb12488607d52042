"""`layout apply` and `undo` under --root keep /etc/fstab's mode, owner and xattrs
(the SELinux label where there is one; a user.* attribute stands in for it here):
an fstab rewritten 0600 stops non-root tools (findmnt, lsblk -f) reading it."""

from __future__ import annotations

import os
from pathlib import Path

from ..cli.test_cli_layout_apply import FSTAB, layout_file  # noqa: F401  (a fixture)
from ..cli_support import run


def _fstab(root: Path) -> Path:
    fstab = root / "etc" / "fstab"
    fstab.parent.mkdir(parents=True)
    fstab.write_text(FSTAB)
    os.chmod(fstab, 0o644)
    os.setxattr(fstab, "user.label", b"etc_t")
    if os.getuid() == 0:
        os.chown(fstab, 0, 42)
    return fstab


def _same(fstab: Path) -> None:
    st = fstab.stat()
    assert st.st_mode & 0o7777 == 0o644
    assert os.getxattr(fstab, "user.label") == b"etc_t"
    if os.getuid() == 0:
        assert (st.st_uid, st.st_gid) == (0, 42)


def test_apply_and_undo_keep_fstab_mode_owner_and_label(
    layout_file: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    root = tmp_path / "root"
    fstab = _fstab(root)
    result = run("layout", "apply", str(layout_file), "--root", str(root), "--yes")
    assert result.exit_code == 0, result.output
    assert "# BEGIN tierdeck layout mnt-tiered" in fstab.read_text()
    _same(fstab)
    units = root / "etc/systemd/system"
    assert all(p.stat().st_mode & 0o777 == 0o644 for p in units.iterdir())
    result = run("layout", "undo", "--root", str(root), "--yes")
    assert result.exit_code == 0, result.output
    assert fstab.read_text() == FSTAB
    _same(fstab)
