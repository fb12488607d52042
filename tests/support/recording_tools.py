"""What particular tool releases answer, for recorded hosts: OpenZFS 2.1.4, mergerfs 2.33.5.

A recorded host must answer tierdeck's commands the way a real NAS does, including how
an old release refuses what it does not know (OpenZFS 2.1 and ``-j``) and which of its
settings a mergerfs mount exposes. These texts come from the tools' sources, seed 000's
NAS and captures on the dev VM; the demo NAS (scripts/make_demo_host.py),
:mod:`tests.support.large_host` and the tests build their hosts from them, so every
recorded host speaks the same releases.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tierdeck.backends.zfs import inventory as zfs

from .recording import HostRecording

# ------------------------------------------------------------------ OpenZFS 2.1.4

ZFS_2_1_4_VERSION = "zfs-2.1.4-0ubuntu0.1\nzfs-kmod-2.1.4-0ubuntu0.1\n"

# What OpenZFS 2.1 prints for an option it does not know (2.3's -j), from
# cmd/zpool/zpool_main.c and cmd/zfs/zfs_main.c of 2.1: "invalid option '%c'" and then
# usage(B_FALSE), that is "usage:" and the subcommand's help text, exit status 2.
# `zfs list` follows its usage with the table of dataset properties, left out here.
ZPOOL_2_1_STATUS_USAGE = (
    "invalid option 'j'\n"
    "usage:\n"
    "\tstatus [-c [script1,script2,...]] [-igLpPstvxD]  [-T d|u] [pool] ... \n"
    "\t    [interval [count]]\n"
)
ZFS_2_1_LIST_USAGE = (
    "invalid option 'j'\n"
    "usage:\n"
    "\tlist [-Hp] [-r|-d max] [-o property[,...]] [-s property]...\n"
    "\t    [-S property]... [-t type[,...]] [filesystem|volume|snapshot] ...\n"
    "\nThe following properties are supported:\n"
    "\n\tPROPERTY       EDIT  INHERIT   VALUES\n\n"
)

# The exact argv lists the ZFS backend runs; recordings must use these, so they are
# taken from the backend (test_zfs_read pins their values).
ZFS_VERSION_ARGV = tuple(zfs.ZFS_VERSION_ARGV)
ZPOOL_STATUS_JSON_ARGV = tuple(zfs.ZPOOL_STATUS_JSON_ARGV)
ZPOOL_STATUS_ARGV = tuple(zfs.ZPOOL_STATUS_TEXT_ARGV)
ZPOOL_LIST_ARGV = tuple(zfs.ZPOOL_LIST_TEXT_ARGV)
ZFS_LIST_ARGV = tuple(zfs.ZFS_LIST_TEXT_ARGV)


def record_zfs_2_1(
    rec: HostRecording, status: str, pool_lines: Sequence[str], dataset_lines: Sequence[str]
) -> None:
    """The commands of an OpenZFS 2.1.4 host: text output only, and -j refused."""
    rec.add_command(ZFS_VERSION_ARGV, ZFS_2_1_4_VERSION)
    rec.add_command(ZPOOL_STATUS_ARGV, status)
    rec.add_command(ZPOOL_LIST_ARGV, "".join(line + "\n" for line in pool_lines))
    rec.add_command(ZFS_LIST_ARGV, "".join(line + "\n" for line in dataset_lines))
    rec.set_fallback("zpool", ZPOOL_2_1_STATUS_USAGE, 2)
    rec.set_fallback("zfs", ZFS_2_1_LIST_USAGE, 2)


def zpool_status_text(
    pool: str,
    groups: Sequence[tuple[str, Sequence[str]]],
    *,
    scan: str,
    state: str = "ONLINE",
    errors: str = "No known data errors",
    indent: str = "\t",
) -> str:
    """One pool of `zpool status` laid out as OpenZFS 2.1 prints it (status_callback and
    print_status_config): the NAME column is as wide as the deepest name plus its
    indent, at least 10; each row is "%-8s %5s %5s %5s" after two spaces. Every vdev is
    shown healthy with zero error counters. ``groups`` are (vdev name, leaf names)."""
    rows: list[tuple[str, int]] = [(pool, 0)]
    for group, leaves in groups:
        rows.append((group, 2))
        rows.extend((leaf, 4) for leaf in leaves)
    width = max(10, *(depth + len(name) for name, depth in rows))
    lines = [
        f"  pool: {pool}",
        f" state: {state}",
        f"  scan: {scan}",
        "config:",
        "",
        f"{indent}{'NAME':<{width}}  {'STATE':<8} {'READ':>5} {'WRITE':>5} {'CKSUM':>5}",
    ]
    for name, depth in rows:
        lines.append(
            f"{indent}{' ' * depth}{name:<{width - depth}}  {state:<8} {'0':>5} {'0':>5} {'0':>5}"
        )
    lines += ["", f"errors: {errors}"]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ mergerfs 2.33.5

# `getfattr -d -m - <mount>/.mergerfs` of mergerfs 2.33.5 on the dev VM, mounted with
# `-o fsname=mergerfs,nonempty,allow_other,use_ino` (app/machine/demo_host/captured/ has the raw
# dumps). Branches, srcmounts, mount and pid depend on the mount and are filled in.
MERGERFS_2_33_5_DEFAULTS: dict[str, str] = {
    "async_read": "true",
    "auto_cache": "false",
    "cache.attr": "1",
    "cache.entry": "1",
    "cache.files": "libfuse",
    "cache.negative_entry": "0",
    "cache.readdir": "false",
    "cache.statfs": "0",
    "cache.symlinks": "false",
    "cache.writeback": "false",
    "category.action": "epall",
    "category.create": "epmfs",
    "category.search": "ff",
    "direct_io": "false",
    "dropcacheonclose": "false",
    "follow-symlinks": "never",
    "fsname": "mergerfs",
    "func.access": "ff",
    "func.chmod": "epall",
    "func.chown": "epall",
    "func.create": "epmfs",
    "func.getattr": "ff",
    "func.getxattr": "ff",
    "func.link": "epall",
    "func.listxattr": "ff",
    "func.mkdir": "epmfs",
    "func.mknod": "epmfs",
    "func.open": "ff",
    "func.readlink": "ff",
    "func.removexattr": "epall",
    "func.rename": "epall",
    "func.rmdir": "epall",
    "func.setxattr": "epall",
    "func.symlink": "epmfs",
    "func.truncate": "epall",
    "func.unlink": "epall",
    "func.utimens": "epall",
    "fuse_msg_size": "256",
    "ignorepponrename": "false",
    "inodecalc": "hybrid-hash",
    "kernel_cache": "false",
    "link-exdev": "passthrough",
    "link_cow": "false",
    "log.metrics": "false",
    "minfreespace": "4294967295",
    "moveonenospc": "false",
    "nfsopenhack": "off",
    "nullrw": "false",
    "posix_acl": "false",
    "readdirplus": "false",
    "rename-exdev": "passthrough",
    "security_capability": "true",
    "statfs": "base",
    "statfs_ignore": "none",
    "symlinkify": "false",
    "symlinkify_timeout": "3600",
    "threads": "2",
    "version": "2.33.5",
    "xattr": "passthrough",
}
# Setting category.create sets every function of the create category (seen on 2.33.5
# with category.create=lfs and =eplus).
_CREATE_FUNCS = ("func.create", "func.mkdir", "func.mknod", "func.symlink")
MERGERFS_MOUNT_OPTIONS = "rw,nosuid,nodev,relatime"
MERGERFS_SUPER_OPTIONS = "rw,user_id=0,group_id=0,default_permissions,allow_other"


def mergerfs_xattrs(
    mountpoint: str,
    branches: Sequence[str],
    *,
    pid: int,
    options: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The ``user.mergerfs.*`` attributes of a 2.33.5 pool, keyed by full xattr name."""
    values = dict(MERGERFS_2_33_5_DEFAULTS)
    for key, value in (options or {}).items():
        values[key] = value
        if key == "category.create":
            values.update(dict.fromkeys(_CREATE_FUNCS, value))
    values["branches"] = ":".join(f"{b}=RW" for b in branches)
    values["srcmounts"] = ":".join(branches)
    values["mount"] = mountpoint
    values["pid"] = str(pid)
    return {f"user.mergerfs.{key}": value for key, value in sorted(values.items())}
