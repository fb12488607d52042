"""A remote host over SSH (asyncssh): ``SshHost``. See ``host.py``.

asyncssh is imported by ``link.py`` (through ``asyncssh_import``), only when a command
connects itself: one served by a keeper (``kept.py``) never imports it."""

from .host import SshHost
from .target import BadTarget, SshTarget

__all__ = ["BadTarget", "SshHost", "SshTarget"]
