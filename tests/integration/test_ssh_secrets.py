"""Logging in with a secret (integration: the loopback sshd): a user key with a
passphrase is refused as "needs the passphrase" where no one can be asked, and asked
once (kept in the link's memory only) where someone can, however long the typing takes;
a wrong answer is asked again.
The fleet: such a host's row says so without holding the others, ``tierdeck fleet``
says what to run, and the TUI signs in on enter with the masked modal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from tierdeck.backends.host.ssh import SshHost
from tierdeck.core.errors import SecretNeeded

if TYPE_CHECKING:
    from textual.pilot import Pilot
    from tierdeck.app.fleet.collect import Fleet
    from tierdeck.app.tui.app import TierdeckApp
    from tierdeck.screens.fleet.fleet import FleetScreen

pytestmark = pytest.mark.integration

PASSPHRASE = "correct horse battery staple"


@pytest.fixture
def locked_key(ssh_lab: Any, tmp_path: Path) -> Path:
    """The lab's user key, as a copy with a passphrase; ~/.ssh/config names the copy
    for the alias "locked"."""
    key = tmp_path / "locked_key"
    key.write_bytes(ssh_lab.user_key.read_bytes())
    key.chmod(0o600)
    Path(f"{key}.pub").write_text(Path(f"{ssh_lab.user_key}.pub").read_text())
    subprocess.run(["ssh-keygen", "-q", "-p", "-P", "", "-N", PASSPHRASE, "-f", str(key)],
                   check=True, timeout=30)  # fmt: skip
    config = ssh_lab.home / ".ssh" / "config"
    config.write_text(config.read_text() + (
        f"Host locked\n  HostName 127.0.0.1\n  Port {ssh_lab.port}\n  User root\n"
        f"  IdentityFile {key}\n  IdentitiesOnly yes\n"))  # fmt: skip
    return key


def test_a_key_with_a_passphrase_needs_it_and_is_asked_once(locked_key: Path) -> None:
    nobody = SshHost("locked")
    try:
        with pytest.raises(SecretNeeded) as needed:
            nobody.facts  # noqa: B018
        assert str(locked_key) in needed.value.what and "passphrase" in str(needed.value)
    finally:
        nobody.close()

    asked: list[str] = []

    def prompt(question: str) -> str | None:
        asked.append(question)
        return "wrong" if len(asked) == 1 else PASSPHRASE

    host = SshHost("locked", prompt=prompt)
    try:
        with pytest.raises(Exception) as wrong:
            host.facts  # noqa: B018
        assert "passphrase" in str(wrong.value) and "not accepted" in str(wrong.value)
        assert host.facts.hostname  # asked again, right this time
        assert len(asked) == 2 and all(str(locked_key) in q for q in asked)
    finally:
        host.close()


def test_the_time_taken_to_type_is_not_the_connections(locked_key: Path) -> None:
    from tierdeck.backends.host.ssh import SshTarget
    from tierdeck.backends.host.ssh.link import SshLink

    def slow_typist(question: str) -> str:
        time.sleep(2.5)  # a person, longer than the connection may take
        return PASSPHRASE

    target = SshTarget.parse("locked")
    host = SshHost(target, link=SshLink(target, prompt=slow_typist, connect_timeout=1.5))
    try:
        assert host.facts.hostname
    finally:
        host.close()


def _two_hosts(config: Path) -> None:
    (config / "hosts.toml").write_text(
        '[[host]]\nname = "nas"\nssh = "nas"\n\n[[host]]\nname = "vault"\nssh = "locked"\n'
    )


def test_tierdeck_fleet_says_which_host_wants_a_secret_and_what_to_run(
    locked_key: Path, _own_config: Path
) -> None:
    _two_hosts(_own_config)
    env = {k: v for k, v in os.environ.items() if k != "SSH_AUTH_SOCK"}

    def fleet(*args: str) -> subprocess.CompletedProcess[str]:
        # at a terminal or not, no row waits for a prompt: stdin is never read
        return subprocess.run([sys.executable, "-m", "tierdeck.app.cli", "fleet", *args,
                               "--timeout", "10"], env=env, capture_output=True, text=True,
                              timeout=120, stdin=subprocess.DEVNULL)  # fmt: skip

    document = json.loads(fleet("--json").stdout)
    nas, vault = document["hosts"]
    assert nas["reachable"] and nas["needs_secret"] is None
    assert not vault["reachable"] and vault["needs_secret"] == f"the passphrase of {locked_key}"
    assert "tierdeck --host vault" in vault["error"]
    table = fleet().stdout.splitlines()
    row = next(line for line in table if line.startswith("vault"))
    assert " login " in row and "needs the passphrase" in row and "tierdeck --host vault" in row


def fleet_app() -> tuple[Fleet, TierdeckApp]:
    """The app on hosts.toml's fleet, each host given 10 s to answer."""
    from tierdeck.app.fleet.collect import Fleet
    from tierdeck.app.fleet.config import load_fleet
    from tierdeck.app.tui.app import TierdeckApp

    fleet = Fleet(load_fleet(), timeout=10)
    return fleet, TierdeckApp(None, fleet=fleet, hotplug=False)


async def fleet_answered(pilot: Pilot[None], app: TierdeckApp) -> FleetScreen:
    """The fleet screen, once every host has its row."""
    from tierdeck.screens.fleet.fleet import FleetScreen

    from tests.waiting import wait_until

    await wait_until(pilot, lambda: isinstance(app.screen, FleetScreen), "the fleet")
    screen = app.screen
    assert isinstance(screen, FleetScreen)
    await wait_until(pilot, lambda: screen.collected == 1, "every row", timeout=30)
    return screen


async def test_the_fleet_screen_signs_in_on_enter_with_the_masked_modal(
    locked_key: Path, _own_config: Path
) -> None:
    from textual.widgets import DataTable, Input
    from tierdeck.screens.dashboard.dashboard import DashboardScreen
    from tierdeck.screens.fleet.fleet import FleetScreen
    from tierdeck.screens.modals.secret import SecretScreen

    from tests.pilot.waiting import shown_text
    from tests.waiting import wait_until

    _two_hosts(_own_config)
    fleet, app = fleet_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await fleet_answered(pilot, app)
        assert screen.statuses["nas"].reachable
        assert screen.statuses["vault"].needs_secret
        table = screen.query_one("#fleet-table", DataTable)
        assert "enter to sign in" in str(table.get_cell("vault", "problems"))
        await pilot.press("down")
        assert "needs the passphrase" in shown_text(screen.query_one("#fleet-current"))
        assert "enter to sign in" in shown_text(screen.query_one("#fleet-current"))

        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SecretScreen), "the question")
        assert str(locked_key) in app.screen.question
        secret = app.screen.query_one(Input)
        assert secret.password  # masked
        secret.value = PASSPHRASE
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen),
                         "the host's dashboard", timeout=60)  # fmt: skip
        assert app.host is fleet.host("vault")
        await wait_until(pilot, lambda: app.refreshes >= 1, "its inventory", timeout=60)

        await pilot.press("f")  # back, and ask again: the link signed in is kept
        await wait_until(pilot, lambda: isinstance(app.screen, FleetScreen), "the fleet again")
        await pilot.press("r")
        await wait_until(pilot, lambda: screen.collected == 2, "the second round", timeout=30)
        assert screen.statuses["vault"].reachable
        assert not isinstance(app.screen, SecretScreen)  # not asked again


async def test_the_host_switcher_opens_a_host_asking_its_passphrase(
    locked_key: Path, _own_config: Path
) -> None:
    from textual.widgets import Input
    from tierdeck.app.machine.demo import load_demo_host
    from tierdeck.app.tui.app import TierdeckApp
    from tierdeck.screens.dashboard.dashboard import DashboardScreen
    from tierdeck.screens.modals.choice import ChoiceScreen
    from tierdeck.screens.modals.secret import SecretScreen

    from tests.waiting import wait_until

    _two_hosts(_own_config)
    app = TierdeckApp(load_demo_host(), hotplug=False)  # a start of any machine
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.refreshes == 1, "the first dashboard")
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the list")
        await pilot.press("down", "down", "enter")  # this machine, nas, vault
        await wait_until(pilot, lambda: isinstance(app.screen, SecretScreen), "the question")
        app.screen.query_one(Input).value = PASSPHRASE
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.host, SshHost), "vault", timeout=30)
        await wait_until(pilot, lambda: isinstance(app.screen, DashboardScreen)
                         and app.refreshes == 1, "vault's dashboard", timeout=60)  # fmt: skip
        assert app.inventory is not None and app.inventory.hostname == os.uname().nodename
