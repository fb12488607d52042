"""A remote host over SSH (asyncssh): ``SshHost``. See ``host.py``."""

from .host import SshHost
from .target import BadTarget, SshTarget

__all__ = ["BadTarget", "SshHost", "SshTarget"]
