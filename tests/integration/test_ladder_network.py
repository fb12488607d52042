"""``tierdeck bench ladder --client HOST --client-path PATH``: the ladder's network rung,
against a real client over a real network filesystem.

The client is a machine of its own on this one (tests/support/netns.py): a network
namespace joined by a veth pair, with its own sshd and Debian's fio. It mounts the lab
NAS's pool over the veth with sshfs, the network filesystem this machine can have (its
kernel has no NFS client nor server; a bind mount would carry no network): the NAS's
side is a second sshd, on this machine's end of the pair. The mount lives in the
client's own mount namespace, as it would on another machine: this machine does not
see it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tierdeck.app.history.run_sets import RunSetStore
from tierdeck.app.history.store import DB_NAME
from tierdeck.app.ladder.store import load_ladder

from tests.processes import cli_process, interrupt
from tests.support.netns import NsHost, ns_hosts
from tests.support.sshd import SshLab
from tests.waiting import wait_until_sync

pytestmark = pytest.mark.integration

CLI = [sys.executable, "-m", "tierdeck.app.cli"]
INDEX = 31  # 10.200.31.0/24: apart from the --clients tests' namespaces
TINY = ("--runtime", "1", "--size", "8M")


@dataclass
class Client:
    ns: NsHost
    share: Path  # where the client mounts the pool (in its mount namespace only)

    @property
    def pid(self) -> int:
        """The client's sshd: its mount namespace is the one the client's sessions see."""
        assert self.ns.lab.process is not None
        return self.ns.lab.process.pid

    def mounts(self) -> list[str]:
        lines = Path(f"/proc/{self.pid}/mountinfo").read_text().splitlines()
        return [line.split()[4] for line in lines]

    def inside(self, *argv: str) -> subprocess.CompletedProcess[str]:
        """A command on the client: in its network and mount namespaces."""
        return subprocess.run(["nsenter", "-t", str(self.pid), "-m", "-n", *argv],
                              capture_output=True, text=True, timeout=60, check=False)  # fmt: skip


def _sshfs_mount(client: Client, nas: SshLab, address: str, pool: Path) -> None:
    kind, key, *_ = Path(f"{nas.host_key}.pub").read_text().split()
    known = client.share.parent / "nas_known_hosts"
    known.write_text(f"[{address}]:{nas.port} {kind} {key}\n")
    options = (f"IdentityFile={nas.user_key},IdentitiesOnly=yes,Port={nas.port},"
               f"UserKnownHostsFile={known},StrictHostKeyChecking=yes")  # fmt: skip
    done = client.inside("sshfs", "-o", options, f"root@{address}:{pool}", str(client.share))
    assert done.returncode == 0, done.stderr
    wait_until_sync(lambda: str(client.share) in client.mounts(), "the client's sshfs mount")


@pytest.fixture(scope="module")
def client(lab_nas: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    from tests.support.sshd import sshd_missing

    if reason := sshd_missing():
        pytest.skip(reason)
    if subprocess.run(["which", "sshfs"], capture_output=True, check=False).returncode:
        pytest.skip("needs sshfs (scripts/setup.sh --test installs it)")
    base = tmp_path_factory.mktemp("ladder-network")
    pool = lab_nas / "pool" / "cached"
    with ns_hosts((INDEX,), base) as (ns,):
        # the NAS's sshd, on this machine's end of the veth pair: the share's server
        nas = SshLab.start(base / "nas-sshd", alias="nas", listen=f"10.200.{INDEX}.1")
        made = Client(ns, base / "share")
        made.share.mkdir()
        try:
            _sshfs_mount(made, nas, f"10.200.{INDEX}.1", pool)
            yield made
        finally:
            if str(made.share) in made.mounts():
                made.inside("fusermount3", "-u", str(made.share))
            nas.stop()


def _ladder(
    client: Client, data: Path, pool: Path, *extra: str
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(client.ns.lab.home), "TIERDECK_DATA_DIR": str(data)}
    env.pop("SSH_AUTH_SOCK", None)
    argv = [*CLI, "bench", "ladder", "--target", str(pool), *TINY, *extra]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)


def _bench_files(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if "tierdeck-bench" in p.name]


def test_the_network_rung_runs_from_the_client_over_its_share(
    client: Client, lab_nas: Path, tmp_path: Path
) -> None:
    pool = lab_nas / "pool" / "cached"
    done = _ladder(client, tmp_path, pool, "--client", client.ns.name,
                   "--client-path", str(client.share), "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    doc: dict[str, Any] = json.loads(done.stdout)
    rungs = doc["rungs"]
    assert [r["rung"] for r in rungs] == ["branch", "branch", "pool", "tmpfs", "nullrw", "network"]
    pool_rung, network = rungs[2], rungs[-1]
    assert network["path"] == f"{client.ns.name}:{client.share}"
    assert "skipped" not in network, network
    assert network["compared_to"] == "pool"
    ours, nas = network["summary"]["write"]["bw_bytes"], pool_rung["summary"]["write"]["bw_bytes"]
    assert ours > 0
    assert network["penalty_pct"] == pytest.approx((1 - ours / nas) * 100, abs=0.01)
    assert "through the network: " in doc["diagnosis"]
    assert "the pool on the NAS" in doc["diagnosis"]
    # the share is the pool's, over a network filesystem: nothing to warn about
    assert "local path" not in done.stderr and "another share" not in done.stderr
    # the client's run is one of the ladder's, made on the client
    store = RunSetStore(tmp_path / DB_NAME)
    run = store.get(network["run_id"])
    assert run is not None and f"ladder:{doc['id']}" in run.tags
    assert run.target.label == network["path"]
    assert store.cells(doc["id"])["network"] == network["run_id"]
    # nothing left: no server on the client, no test file in the pool
    wait_until_sync(lambda: not client.ns.fio_processes(), "no fio on the client", 10)
    assert _bench_files(pool) == []
    # the stored ladder comes back with its network rung and its verdict
    again = load_ladder(store, doc["id"])
    assert again.rungs[-1].kind.value == "network" and again.rungs[-1].path == network["path"]
    assert again.rungs[-1].run_id == network["run_id"]


def test_a_client_path_that_is_no_mount_is_refused(
    client: Client, lab_nas: Path, tmp_path: Path
) -> None:
    pool = lab_nas / "pool" / "cached"
    folder = client.ns.folder  # a folder of the client's root filesystem
    done = _ladder(client, tmp_path, pool, "--client", client.ns.name,
                   "--client-path", str(folder))  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "root filesystem" in done.stderr and "not a mount" in done.stderr
    missing = _ladder(client, tmp_path, pool, "--client", client.ns.name,
                      "--client-path", "/no/such/share")  # fmt: skip
    assert missing.returncode == 2 and "is not a folder on tdc31" in missing.stderr
    wait_until_sync(lambda: not client.ns.fio_processes(), "no fio on the client", 10)
    assert not (tmp_path / DB_NAME).exists() or not RunSetStore(tmp_path / DB_NAME).list()


def test_ctrl_c_during_the_network_rung_stops_the_client(
    client: Client, lab_nas: Path, tmp_path: Path
) -> None:
    pool = lab_nas / "pool" / "cached"
    env = {**os.environ, "HOME": str(client.ns.lab.home), "TIERDECK_DATA_DIR": str(tmp_path)}
    env.pop("SSH_AUTH_SOCK", None)
    argv = [*CLI, "bench", "ladder", "--target", str(pool), "--runtime", "4", "--size", "8M",
            "--client", client.ns.name, "--client-path", str(client.share), "--json"]  # fmt: skip
    with cli_process(argv, env) as proc:
        assert proc.stderr is not None
        for line in proc.stderr:
            if "rung 6 of 6: network" in line:
                break
        # the client's fio writes through its share: its files show in the pool
        wait_until_sync(lambda: _bench_files(pool) != [], "the client writing in the pool", 60)
        stdout, _, took = interrupt(proc)
    assert proc.returncode == 130
    assert took < 10
    network = json.loads(stdout)["rungs"][-1]
    assert network["rung"] == "network" and network["skipped"] == "cancelled"
    wait_until_sync(lambda: not client.ns.fio_processes(), "no fio on the client", 10)
    assert _bench_files(pool) == []


async def _tui_ladder(
    client: Client,
    lab_nas: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    path: Path,
    then: Callable[[Any, Any, Any], Awaitable[None]],
) -> None:
    """The dashboard on this machine, p on the lab's pool, the network rung typed in the
    menu as HOST:/PATH, "Run it": ``then(pilot, app, the ladder view)``."""
    from tierdeck.app.ladder import plan as ladder_plan
    from tierdeck.app.tui.app import TierdeckApp
    from tierdeck.backends.host import LiveHost
    from tierdeck.screens.modals.choice import ChoiceScreen
    from tierdeck.screens.modals.confirm import PromptScreen
    from tierdeck.screens.sequence.ladder import LadderScreen

    from tests.pilot.waiting import press_p_on_pool, screen_text
    from tests.waiting import wait_until

    monkeypatch.setenv("HOME", str(client.ns.lab.home))
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    monkeypatch.setattr(ladder_plan, "DEFAULT_RUNTIME", 1)
    pool = str(lab_nas / "pool" / "cached")
    app = TierdeckApp(LiveHost(), hotplug=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await press_p_on_pool(pilot, app, pool)
        await wait_until(pilot, lambda: "Network rung: none" in screen_text(app), "the menu")
        menu = app.screen
        await pilot.press("end", "up", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the prompt")
        await pilot.press(*f"{client.ns.name}:{path}", "enter")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, ChoiceScreen) and app.screen is not menu,
            "the menu again",
        )
        await pilot.press("home", "enter")  # "Run it"
        await wait_until(pilot, lambda: isinstance(app.screen, LadderScreen), "the ladder")
        await then(pilot, app, app.screen)


async def test_the_tui_runs_the_network_rung_typed_in_the_menu(
    client: Client, lab_nas: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierdeck.core.ladder.model import RungKind

    from tests.waiting import wait_until

    async def ran(pilot: Any, app: Any, view: Any) -> None:
        await wait_until(pilot, lambda: view.rungs_done == 6 and not view.running, "six rungs",
                         timeout=240)  # fmt: skip
        network = view.rungs[-1]
        assert network.kind is RungKind.NETWORK and network.skipped is None, network
        assert network.run_id is not None and network.path == f"{client.ns.name}:{client.share}"

    await _tui_ladder(client, lab_nas, tmp_path, monkeypatch, client.share, ran)
    wait_until_sync(lambda: not client.ns.fio_processes(), "no fio on the client", 10)
    assert _bench_files(lab_nas / "pool" / "cached") == []


async def test_the_tui_says_why_a_client_path_is_refused(
    client: Client, lab_nas: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.pilot.waiting import screen_text
    from tests.waiting import wait_until

    async def refused(pilot: Any, app: Any, view: Any) -> None:
        def said() -> str:
            return " ".join(screen_text(app).split())

        await wait_until(pilot, lambda: not view.planning, "the plan checked")
        assert "The network rung's client is refused" in said(), said()
        assert "root filesystem" in said()
        assert view.rungs_done == 0

    await _tui_ladder(client, lab_nas, tmp_path, monkeypatch, client.ns.folder, refused)
    wait_until_sync(lambda: not client.ns.fio_processes(), "no fio on the client", 10)


def test_a_clients_run_on_the_share_has_a_live_line_from_its_interface(
    client: Client, lab_nas: Path, tmp_path: Path
) -> None:
    """``bench run --clients`` with the client's folder on its sshfs mount: no disk of
    its own there, so its live line is the interface its server is reached through
    (the client's end of the veth pair), read over SSH each second."""
    env = {**os.environ, "HOME": str(client.ns.lab.home), "TIERDECK_DATA_DIR": str(tmp_path)}
    env.pop("SSH_AUTH_SOCK", None)
    name = client.ns.name
    argv = [*CLI, "bench", "run", "--clients", name, "--target", f"{name}:{client.share}",
            "--preset", "nas-seqwrite-1m-qd8x8", "--runtime", "5", "--size", "4M",
            "--direct", "0", "--json"]  # fmt: skip
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    said = done.stderr.splitlines()
    interface = client.inside("ip", "-o", "route", "get", f"10.200.{INDEX}.1").stdout.split()
    veth = interface[interface.index("dev") + 1]
    assert f"{name}: its live line is the network interface {veth}, which carries the" \
        " share's traffic" in said  # fmt: skip
    found = [re.match(rf"\s*\d+ s  {name}\s+net {veth}\s+([\d.]+) MiB/s", line) for line in said]
    lines = [m.string for m in found if m]
    assert lines, done.stderr
    rates = [float(m.group(1)) for m in found if m]
    assert max(rates) > 0  # the job's writes crossed the veth
    assert all("- IOPS" in line for line in lines)  # an interface counts no I/Os
    assert json.loads(done.stdout)["hosts"][0]["status"] == "ok"
    assert _bench_files(lab_nas / "pool" / "cached") == []
