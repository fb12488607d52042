"""Typed errors shared by every layer.

Backends raise these (never bare OSError or CalledProcessError) so that the CLI and the
TUI can say *what* went wrong in one line, and so a failure of one source (ZFS, say)
never hides what the other sources found.
"""

from __future__ import annotations


class TierdeckError(Exception):
    """Base of every error tierdeck raises on purpose."""


class HostError(TierdeckError):
    """Something on the host could not be read or run."""


class ToolMissing(HostError):
    """An external command is not installed (not on PATH)."""

    def __init__(self, tool: str) -> None:
        super().__init__(f"{tool}: not installed (not found on PATH)")
        self.tool = tool


class ToolFailed(HostError):
    """An external command ran and exited non-zero."""

    def __init__(self, argv: list[str], returncode: int, stderr: str) -> None:
        first = stderr.strip().splitlines()[0] if stderr.strip() else "no message"
        super().__init__(f"{' '.join(argv)} exited {returncode}: {first}")
        self.argv = argv
        self.returncode = returncode
        self.stderr = stderr


class ToolTimeout(HostError):
    """An external command did not finish within its timeout and was killed."""

    def __init__(self, argv: list[str], timeout: float) -> None:
        super().__init__(f"{' '.join(argv)} did not finish within {timeout:g}s")
        self.argv = argv
        self.timeout = timeout


class PermissionDenied(HostError):
    """A file or command needs more privilege than tierdeck has."""

    def __init__(self, what: str) -> None:
        super().__init__(f"permission denied: {what} (try as root)")
        self.what = what


class HostUnreachable(HostError):
    """A remote host could not be reached, refused us, or its connection was lost."""

    def __init__(self, target: str, reason: str) -> None:
        super().__init__(f"{target}: {reason}")
        self.target = target
        self.reason = reason


class HostNotAnswering(HostUnreachable):
    """No SSH server answered: the connection timed out, was refused, or the name did
    not resolve. Nothing about the login: trying again at once gets the same answer."""


class HostKeyRefused(HostUnreachable):
    """A remote host's key is not the one known for it (``changed``) or is not known at
    all: nothing was sent to it. ``fingerprint`` is the key it offered."""

    def __init__(self, target: str, *, changed: bool, fingerprint: str, accept_hint: str) -> None:
        if changed:
            reason = (f"HOST KEY CHANGED: it now offers {fingerprint}, not the key "
                      f"~/.ssh/known_hosts holds for it. Someone may be in between; "
                      f"if the machine was reinstalled, remove its old line "
                      f"(ssh-keygen -R) and check the new key")  # fmt: skip
        else:
            reason = (f"unknown host key {fingerprint}: not in ~/.ssh/known_hosts. "
                      f"Check it on the machine (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub), "
                      f"then accept it with: {accept_hint}")  # fmt: skip
        super().__init__(target, reason)
        self.changed = changed
        self.fingerprint = fingerprint


class SecretNeeded(HostUnreachable):
    """The host asks for a password, or a key wants its passphrase, and there was no one
    to ask (a fleet row, a script): it is asked where someone can answer (``what``:
    "a password", "the passphrase of ~/.ssh/id_ed25519")."""

    def __init__(self, target: str, what: str) -> None:
        super().__init__(target, f"needs {what}")
        self.what = what


class ParseError(TierdeckError):
    """A tool's output did not have the shape its parser expects."""

    def __init__(self, source: str, detail: str, line: str | None = None) -> None:
        msg = f"cannot parse {source}: {detail}"
        if line is not None:
            msg += f" (at: {line[:80]!r})"
        super().__init__(msg)
        self.source = source
        self.detail = detail
        self.line = line


def one_line(exc: BaseException, limit: int = 160) -> str:
    """A notification-sized description: our errors speak for themselves, others get
    their type name so "KeyError: 'x'" does not read as just "'x'"."""
    if isinstance(exc, OSError) and exc.strerror:
        # The system's words, and the file: "x.toml: No such file or directory" rather
        # than "FileNotFoundError: [Errno 2] ...", which reads as a crash.
        text = exc.strerror if exc.filename is None else f"{exc.filename}: {exc.strerror}"
    else:
        text = str(exc) if isinstance(exc, TierdeckError) else f"{type(exc).__name__}: {exc}"
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return first if len(first) <= limit else first[: limit - 1] + "…"
