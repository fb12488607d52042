"""Files tierdeck writes for its user on the machine it runs on: a saved job file, a
layout, the lab NAS's state. Each is written atomically: a crash or a full disk leaves
the previous file or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path

from .fio.text_sniff import HEAD_BYTES

ENV_CACHE_DIR = "TIERDECK_CACHE_DIR"

# Extended attributes a replaced file keeps: the SELinux label (a relabelled /etc/fstab
# breaks confined daemons reading it) and the user's own user.* notes. Everything else
# (ACLs, capabilities) belongs to policies tierdeck does not know.
_KEPT_XATTR = "security.selinux"
_USER_XATTRS = "user."


def cache_folder() -> Path:
    """Where tierdeck keeps what it can rebuild (the demo history, each host's last
    inventory): ``$TIERDECK_CACHE_DIR``, else ``platformdirs.user_cache_dir("tierdeck")``."""
    folder = os.environ.get(ENV_CACHE_DIR)
    if folder:
        return Path(folder)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("tierdeck"))


def _create_temp(folder: Path, name: str, mode: int) -> tuple[int, str]:
    """A new file beside ``name`` with ``mode`` less the umask."""
    while True:
        # os.urandom is what secrets.token_hex reads; the secrets module would bring
        # hashlib and hmac into the dashboard's start (it keeps its inventory here).
        tmp = str(folder / f".{name}.{os.urandom(4).hex()}")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode), tmp
        except FileExistsError:
            continue


def _xattrs(path: Path) -> dict[str, bytes]:
    try:
        names = os.listxattr(path)
    except OSError:  # no xattrs on this filesystem
        return {}
    kept = {}
    for name in names:
        if name == _KEPT_XATTR or name.startswith(_USER_XATTRS):
            with contextlib.suppress(OSError):
                kept[name] = os.getxattr(path, name)
    return kept


def _keep_metadata(fd: int, old: Path) -> None:
    """Give the new file ``old``'s mode, owner and kept xattrs before it replaces it."""
    try:
        st = os.stat(old)
    except FileNotFoundError:
        return
    if (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
        # Only root may give a file away; a user rewriting a file it may write (but
        # does not own) gets it as its own, as any editor's save does.
        with contextlib.suppress(PermissionError):
            os.fchown(fd, st.st_uid, st.st_gid)
    os.fchmod(fd, st.st_mode & 0o7777)
    for name, value in _xattrs(old).items():
        with contextlib.suppress(OSError):  # a label the target filesystem refuses
            os.setxattr(fd, name, value)


def write_atomically(path: Path, text: str) -> None:
    """Temp file in the same folder, fsync it, rename over ``path``, fsync the folder
    (so the rename itself survives a power cut). The temp file never outlives a failure.
    A replaced file keeps its mode, owner and SELinux label (``/etc/fstab`` stays 0644
    root:root); a new one gets 0666 less the umask."""
    # Replacing a file: the temp starts private and gets the old file's mode once its
    # owner is set, so a 0600 file is never readable by others, not even for an instant.
    # A new file: 0666 less the umask, as a shell redirect makes it (mkstemp's 0600
    # would make a shared file private).
    fd, tmp = _create_temp(path.parent, path.name, 0o600 if path.exists() else 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            _keep_metadata(fh.fileno(), path)
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


class FileTooLarge(OSError):
    """A file the user named is larger than what tierdeck reads into memory."""


def read_user_file(
    path: Path,
    limit: int,
    *,
    check_head: Callable[[bytes], None] | None = None,
    head_size: int = HEAD_BYTES,
) -> bytes:
    """The bytes of a file the user named (``history import FILE``), at most ``limit``:
    a larger one (a disk image named by mistake) raises FileTooLarge unread.
    ``check_head`` sees the first ``head_size`` bytes before the rest is read, and
    may raise to refuse the file there."""
    with open(path, "rb") as fh:
        data = fh.read(min(head_size, limit + 1))
        if check_head is not None:
            check_head(data)
        if len(data) == head_size:
            try:
                fh.seek(0)  # read again whole: one copy in memory, not head + rest
            except OSError:  # a pipe (<(ssh nas cat out.json)) cannot seek
                data += fh.read(limit + 1 - head_size)
            else:
                data = fh.read(limit + 1)
    if len(data) > limit:
        raise FileTooLarge(f"{path}: larger than {limit // 2**20} MiB")
    return data
