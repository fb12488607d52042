"""The shell lines a remote host runs for each host call.

Every argument is quoted with :func:`shlex.quote` (a path with spaces, quotes, newlines,
``$(...)`` or a leading dash reaches the command as one word, and ``--`` ends the
options where the command takes it). Nothing secret is ever on these lines. They need a
POSIX shell and the tools an ordinary Linux has (coreutils, util-linux's setsid and
flock, attr's getfattr for mergerfs settings).

Exit statuses carry errno values (2 ENOENT, 13 EACCES, 20 ENOTDIR, 22 EINVAL) so the
host raises the same errors as this machine's, without reading any message text.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence

from ...processes import GROUP_MARK

# A line of our own on stderr that says the command is not installed (127 alone could
# be the tool's own status).
MISSING_MARK = "tierdeck-remote: tool missing"
# timeout(1)'s statuses when it stopped the command (TERM, then KILL).
TIMEOUT_STATUSES = (124, 137)


def q(word: str) -> str:
    return shlex.quote(word)


def command_line(argv: Sequence[str]) -> str:
    return " ".join(q(a) for a in argv)


def run_line(argv: Sequence[str], timeout: float) -> str:
    """Run argv to its end in the C locale; timeout(1) kills its whole process group."""
    tool = q(argv[0])
    return (
        "LC_ALL=C; export LC_ALL; "
        f"command -v -- {tool} >/dev/null 2>&1 || {{ echo {q(MISSING_MARK)} >&2; exit 127; }}; "
        f"exec timeout -k 2 {max(timeout, 0.1):g} {command_line(argv)}"
    )


def has_tool_line(tool: str) -> str:
    return f"command -v -- {q(tool)} >/dev/null 2>&1"


def read_line(path: str) -> str:
    p = q(path)
    return (
        f"if [ ! -e {p} ]; then exit 2; elif [ -d {p} ]; then exit 21; "
        f"elif [ ! -r {p} ]; then exit 13; else exec cat -- {p}; fi"
    )


def listdir_line(path: str) -> str:
    """Entries each ended by a NUL (a name may hold a newline; hidden ones too), or an
    errno status."""
    p = q(path)
    return (
        f"if [ ! -e {p} ]; then exit 2; elif [ ! -d {p} ]; then exit 20; "
        f"elif [ ! -r {p} ] || [ ! -x {p} ]; then exit 13; fi; "
        f'for e in {p}/* {p}/.[!.]* {p}/..?*; do [ -e "$e" ] || [ -L "$e" ] || continue; '
        'printf "%s\\000" "${e##*/}"; done'
    )


def test_line(flag: str, path: str) -> str:
    return f"[ {flag} {q(path)} ]"


def readlink_line(path: str) -> str:
    p = q(path)
    return f"[ -L {p} ] || {{ [ -e {p} ] && exit 22; exit 2; }}; exec readlink -- {p}"


def realpath_line(path: str) -> str:
    # -m: like os.path.realpath, a missing part is kept as it is, never an error
    return f"exec readlink -m -- {q(path)}"


def statvfs_line(path: str) -> str:
    p = q(path)
    return f"[ -e {p} ] || exit 2; exec timeout 10 stat -f -c '%S %b %f %a' -- {p}"


def xattrs_line(path: str) -> str:
    p = q(path)
    return (
        f"[ -e {p} ] || exit 2; command -v getfattr >/dev/null 2>&1 || "
        f"{{ echo {q(MISSING_MARK)} >&2; exit 127; }}; "
        f"exec getfattr -d -m - -e hex --absolute-names -- {p}"
    )


def setxattr_line(path: str, name: str, value: str) -> str:
    return f"exec setfattr -n {q(name)} -v {q(value)} -- {q(path)}"


def write_line(path: str) -> str:
    """stdin into the file (a kernel knob or a small file)."""
    p = q(path)
    return f'd=$(dirname -- {p}); [ -d "$d" ] || exit 2; cat > {p}'


def write_atomically_line(path: str) -> str:
    """stdin into a temp file beside ``path``, flushed, renamed over it, the folder
    flushed; a replaced file's mode, owner and SELinux label are kept."""
    p = q(path)
    return (
        "set -e; umask 022; "
        f'd=$(dirname -- {p}); [ -d "$d" ] || exit 2; '
        f't=$(mktemp "$d/.tierdeck-tmp.XXXXXX"); trap \'rm -f -- "$t"\' EXIT; '
        'cat > "$t"; chmod 644 "$t"; '
        f'if [ -e {p} ]; then chmod --reference={p} "$t"; '
        f'chown --reference={p} "$t" 2>/dev/null || :; '
        f"if command -v selinuxenabled >/dev/null 2>&1 && selinuxenabled; then "
        f'chcon --reference={p} "$t" || :; fi; fi; '
        'sync -- "$t"; '
        f'mv -f -- "$t" {p}; trap - EXIT; sync -- "$d"'
    )


def remove_line(path: str) -> str:
    p = q(path)
    return f"[ -e {p} ] || [ -L {p} ] || exit 2; exec rm -f -- {p}"


def make_dirs_line(path: str) -> str:
    return f"exec mkdir -p -m 0755 -- {q(path)}"


def remove_dir_line(path: str) -> str:
    p = q(path)
    return f'[ -e {p} ] || exit 2; [ -z "$(ls -A -- {p})" ] || exit 39; exec rmdir -- {p}'


def probe_line(directory: str, name: str, *, direct: bool) -> str:
    """Create, write one 4 KiB block (O_DIRECT if asked), remove: dd's status."""
    target = q(directory.rstrip("/") + "/" + name)
    flag = " oflag=direct" if direct else ""
    return (
        f"dd if=/dev/zero of={target} bs=4096 count=1 conv=fsync{flag} 2>&1 >/dev/null; "
        f"s=$?; rm -f -- {target}; exit $s"
    )


# The processes carrying a group's mark (backends/processes.py: fio's jobs leave the
# leader's process group), as pids: one grep over every environment.
def _marked(pgid_var: str) -> str:
    return (
        f'$(grep -lxz "{GROUP_MARK}=${pgid_var}" /proc/[0-9]*/environ 2>/dev/null'
        " | sed 's,^/proc/,,; s,/environ$,,')"
    )


def signal_line(pgid: int, sig: str) -> str:
    """Signal the group and every process with its mark; status 0 when any was."""
    return (
        f"g={int(pgid)}; kill -s {sig} -- -$g 2>/dev/null; s=$?; "
        f"for k in {_marked('g')}; do kill -s {sig} $k 2>/dev/null && s=0; done; exit $s"
    )


def group_alive_line(pgid: int) -> str:
    """Status 0 when a process of the group, or one with its mark, runs (not a zombie)."""
    return (
        f"g={int(pgid)}; m=' '$(echo {_marked('g')})' '; for s in /proc/[0-9]*/stat; do "
        'IFS= read -r l < "$s" 2>/dev/null || continue; r=${l##*) }; set -- $r; '
        '[ "$1" = Z ] && continue; [ "$3" = "$g" ] && exit 0; '
        'k=${s#/proc/}; case $m in *" ${k%/stat} "*) exit 0;; esac; done; exit 1'
    )


def _stop_spawned(sig: str) -> str:
    """Signal the spawned group ``$p`` and every process with its mark."""
    return (
        f"kill -s {sig} -- -$p 2>/dev/null; "
        f"for k in {_marked('p')}; do kill -s {sig} $k 2>/dev/null; done"
    )


def spawn_line(
    argv: Sequence[str], env: Mapping[str, str] | None, *, kill_after: int | None = 5
) -> str:
    """Start argv in a session of its own, print its pid, then pass its output through.

    Tied to the channel: a watcher reads the channel's stdin, which ends only when
    tierdeck closes it or the connection dies; then the whole group is stopped (TERM,
    KILL ``kill_after`` s later). So a link that drops never leaves fio running on the
    NAS. ``kill_after`` None: TERM alone, for a command that stops cleanly on it and
    must not be cut short (the mover finishes or undoes the file at hand). When the
    command itself ends, what it left running with its mark is killed, as a local run's
    stragglers are."""
    assignments = " ".join(f"{k}={q(v)}" for k, v in (env or {}).items() if k.isidentifier())
    run = f"env LC_ALL=C {assignments} {command_line(argv)}".replace("  ", " ")
    kill = ":" if kill_after is None else f"sleep {int(kill_after)}; {_stop_spawned('KILL')}"
    # A background job's stdin is /dev/null in a script: the watcher gets the
    # channel's explicitly (fd 3). The pid is told once setsid made it a group.
    # The command marks itself with its own pid (the group's), as a local spawn does.
    marking = GROUP_MARK + "=$$; export " + GROUP_MARK + '; exec "$@"'
    mark = f"sh -c {q(marking)} sh"
    return (
        f"exec 3<&0; setsid {mark} {run} </dev/null & p=$!; "
        "while IFS= read -r l < /proc/$p/stat 2>/dev/null; do r=${l##*) }; set -- $r; "
        '[ "$3" = "$p" ] && break; done; echo $p; '
        f"( while IFS= read -r _; do :; done; {_stop_spawned('TERM')}; {kill} ) <&3 & w=$!; "
        # a leader that died (killed) may leave jobs holding the channel: stop them
        f"exec 3<&-; wait $p; s=$?; kill $w 2>/dev/null; {_stop_spawned('KILL')}; exit $s"
    )


def lock_line(key_path_name: str) -> str:
    """Hold an flock on the lock file tierdeck uses on that host while the channel is
    open: ``held`` once taken, status 75 when another holds it. The kernel releases it
    when the channel's shell dies with the connection."""
    name = q(key_path_name)
    return (
        'd=${TIERDECK_LOCK_DIR:-/run/lock}; [ -w "$d" ] || d=${TMPDIR:-/tmp}; '
        f"exec flock -n -E 75 \"$d\"/{name} sh -c 'echo held; while IFS= read -r _; do :; done'"
    )


FACTS_LINE = (
    "uname -n; uname -r; id -u; "
    'm=; IFS= read -r m < /etc/machine-id 2>/dev/null; echo "$m"; '
    "command -v tierdeck >/dev/null 2>&1 && tierdeck --version 2>/dev/null | head -n 1 || echo"
)

# udev's properties are used only while udevd runs and has a database (as on this machine)
UDEV_CURRENT_LINE = (
    '[ -S /run/udev/control ] && [ -n "$(ls -A /run/udev/data 2>/dev/null)" ] || exit 1; '
    'for c in /proc/[0-9]*/comm; do IFS= read -r n < "$c" 2>/dev/null || continue; '
    "case $n in systemd-udevd|udevd) exit 0;; esac; done; exit 1"
)
