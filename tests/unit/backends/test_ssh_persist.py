"""Whether a host's SSH connection is kept (backends/host/ssh/persist.py): hosts.toml's
``persist``, else ssh's ControlPersist for the alias, else off; and the keepers'
folder, which must be the user's alone."""

from __future__ import annotations

import math
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from tierdeck.app.fleet.config import FleetConfigError, fleet_toml, parse_fleet
from tierdeck.backends.host.ssh import persist
from tierdeck.backends.host.ssh.persist import BadPersist, parse_persist


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("no", None), ("off", None), ("yes", 600.0), ("10m", 600.0), ("600", 600.0),
     ("1h30m", 5400.0), ("45s", 45.0), ("0", 600.0), ("2H", 7200.0)],
)  # fmt: skip
def test_persist_takes_ssh_time_formats(text: str, seconds: float | None) -> None:
    assert parse_persist(text) == seconds


@pytest.mark.parametrize("text", ["", "ten minutes", "10x", "-5m", "5m junk"])
def test_a_bad_persist_is_refused(text: str) -> None:
    with pytest.raises(BadPersist):
        parse_persist(text)


def _config(tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".ssh").mkdir(parents=True, exist_ok=True)
    (tmp_path / ".ssh" / "config").write_text(text)
    monkeypatch.setenv("HOME", str(tmp_path))


def test_control_persist_is_read_for_the_alias_as_ssh_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _config(tmp_path, "# mine\nHost backup\n  ControlPersist 1m\nHost nas* !nasty\n"
            "  ControlPersist=10m\n  ControlPersist 5m\nMatch all\n  ControlPersist 2m\n"
            "Host *\n  ControlPersist yes\n", monkeypatch)  # fmt: skip
    assert persist.idle_limit("nas", None) == 600.0  # the first value wins
    assert persist.idle_limit("nas2", None) == 600.0
    assert persist.idle_limit("backup", None) == 60.0
    assert persist.idle_limit("nasty", None) == math.inf  # negated: Host * then, yes
    # hosts.toml's value wins over ssh's, and "no" there turns it off
    assert persist.idle_limit("nas", "2m") == 120.0
    assert persist.idle_limit("nas", "no") is None


def test_without_a_setting_there_is_no_keeper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _config(tmp_path, "Host nas\n  HostName 10.0.0.2\n", monkeypatch)
    assert persist.idle_limit("nas", None) is None
    _config(tmp_path / "x", "Host nas\n  ControlPersist soon\n", monkeypatch)
    assert persist.idle_limit("nas", None) is None  # unreadable: off, never a guess


def test_hosts_toml_persist_round_trips_and_is_checked() -> None:
    hosts = parse_fleet('[[host]]\nname = "nas"\nssh = "nas"\npersist = "10m"\n')
    assert hosts[0].persist == "10m"
    assert parse_fleet(fleet_toml(hosts)) == hosts
    with pytest.raises(FleetConfigError, match="persist"):
        parse_fleet('[[host]]\nname = "nas"\nssh = "nas"\npersist = "often"\n')
    with pytest.raises(FleetConfigError, match="persist"):
        parse_fleet('[[host]]\nname = "nas"\nssh = "nas"\npersist = 10\n')


def test_the_keepers_folder_is_private_or_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    # a short folder: pytest's tmp_path is near a unix socket's 108 bytes already
    tmp_path = Path(tempfile.mkdtemp(prefix="tdk-"))
    try:
        _private_or_not_used(tmp_path, monkeypatch)
    finally:
        shutil.rmtree(tmp_path)


def _private_or_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    path = persist.socket_path("nas", create=True)
    assert path is not None and path.parent == tmp_path / "tierdeck-keepers"
    assert path.parent.stat().st_mode & 0o777 == 0o700
    path.parent.chmod(0o755)  # others may enter: nothing in it is trusted
    assert persist.socket_path("nas", create=True) is None
    path.parent.chmod(0o700)
    # another ssh config is another keeper (never one connected where it no longer points)
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "config").write_text("Host nas\n  Port 2222\n")
    assert persist.socket_path("nas", create=True) != path
    # a path too long for a unix socket: no keeper rather than a broken one
    deep = tmp_path / ("d" * 90)
    deep.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep))
    assert persist.socket_path("nas", create=True) is None
    assert os.geteuid() == path.parent.stat().st_uid


def test_connect_timeout_is_sshs_for_the_alias_else_10_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierdeck.backends.host.ssh.ssh_config import CONNECT_TIMEOUT_S, connect_timeout

    _config(tmp_path, "Host nas\n  ConnectTimeout 3\nHost odd\n  ConnectTimeout=soon\n"
            "Host zero\n  ConnectTimeout 0\nHost *\n  ConnectTimeout 7\n", monkeypatch)  # fmt: skip
    assert connect_timeout("nas") == 3.0
    assert connect_timeout("backup") == 7.0  # Host *
    for garbage in ("odd", "zero"):  # unreadable, or not above 0: the default, never a guess
        assert connect_timeout(garbage) == CONNECT_TIMEOUT_S == 10.0


def test_include_is_followed_where_it_stands_as_ssh_follows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierdeck.backends.host.ssh.ssh_config import connect_timeout, ssh_config_value

    ssh = tmp_path / ".ssh"
    (ssh / "config.d").mkdir(parents=True)
    # globbed in lexical order, relative to ~/.ssh; the first value still wins
    (ssh / "config.d" / "10-nas.conf").write_text("Host nas\n  ConnectTimeout 4\n")
    (ssh / "config.d" / "20-all.conf").write_text("Host *\n  ConnectTimeout 9\n")
    (tmp_path / "elsewhere.conf").write_text("ControlPersist 1m\n")
    (ssh / "loop.conf").write_text("Include loop.conf\nHost loopy\n  ConnectTimeout 2\n")
    _config(tmp_path, "Host backup\n  Include ~/elsewhere.conf\n"
            "Host *\n  Include config.d/*.conf loop.conf\n  ControlPersist 5m\n", monkeypatch)  # fmt: skip
    assert connect_timeout("nas") == 4.0
    assert connect_timeout("other") == 9.0
    assert connect_timeout("loopy") == 9.0  # 20-all.conf came first; the loop ends
    # an Include inside a Host block applies to that host only
    assert ssh_config_value("backup", "controlpersist") == "1m"
    # after the Include, the lines are the enclosing block's again (Host *)
    assert ssh_config_value("nas", "controlpersist") == "5m"


def test_an_include_under_a_block_that_does_not_apply_gives_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierdeck.backends.host.ssh.ssh_config import ssh_config_value

    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "more").write_text("ConnectTimeout 3\nHost *\n  ConnectTimeout 4\n")
    _config(tmp_path, 'Host backup\n  Include more "no such file" [\nHost nas\n', monkeypatch)
    assert ssh_config_value("nas", "connecttimeout") is None
    assert ssh_config_value("backup", "connecttimeout") == "3"
