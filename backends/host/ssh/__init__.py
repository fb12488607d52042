"""A remote host over SSH (asyncssh): ``SshHost``. See ``host.py``."""

from . import asyncssh_import  # noqa: F401 - first: asyncssh's import, quicker (see there)
from .host import SshHost
from .target import BadTarget, SshTarget

__all__ = ["BadTarget", "SshHost", "SshTarget"]
