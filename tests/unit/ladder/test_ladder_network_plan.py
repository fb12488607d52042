"""The ladder's network rung as planned (app/ladder/network.py through plan_ladder): the
client checked before anything runs (its fio, its path a mount of its own, the pool's
share or not), the rung last, measured against the pool, and the default job buffered
on every rung when the client's mount refuses O_DIRECT. The client is a stand-in
answering as a machine would; the real one is tests/integration/test_ladder_network.py."""

from __future__ import annotations

import errno
from collections.abc import Iterator
from typing import Any

import pytest
from tierdeck.app.ladder.network import NetworkClient
from tierdeck.app.ladder.plan import LadderRefusalKind, LadderRefused, plan_ladder
from tierdeck.app.ladder.store import expected_keys, rung_of_key
from tierdeck.app.machine.demo import load_demo_host
from tierdeck.app.machine.inventory import collect_inventory
from tierdeck.backends.host import CommandResult, FsUsage, HostCapabilities, RecordedHost
from tierdeck.core.ladder.model import COMPARED_TO, RungKind

POOL = "/mnt/cached"
SHARE = "/mnt/nas"
GIB = 1024**3
ROOT = "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
SSHFS = f"40 22 0:50 / {SHARE} rw,nosuid,nodev shared:30 - fuse.sshfs nas:{POOL} rw\n"
LOCAL = "41 22 8:17 / /data rw shared:31 - ext4 /dev/sdb1 rw\n"


class FakeClient:
    """A client machine's answers: its fio, its folders and mounts, what the NAS's
    files look like from there (``shared``: names made in the pool show under SHARE)."""

    def __init__(self, mountinfo: str = ROOT + SSHFS, fio: str = "fio-3.33") -> None:
        self.mountinfo = mountinfo
        self.fio = fio
        self.folders = {"/", SHARE, "/data", "/home/me"}
        self.shared: set[str] = set()
        self.direct_error: OSError | None = None
        self.hostname, self.identity = "laptop", "ssh:laptop-id"

    def run(self, argv: list[str], timeout: float | None = None) -> CommandResult:
        assert argv == ["fio", "--version"]
        return CommandResult(tuple(argv), 0, f"{self.fio}\n", "")

    def is_dir(self, path: str) -> bool:
        return path in self.folders

    def realpath(self, path: str) -> str:
        return path

    def read_text(self, path: str) -> str:
        assert path == "/proc/self/mountinfo"
        return self.mountinfo

    def exists(self, path: str) -> bool:
        if path in self.folders:
            return True
        return path.startswith(f"{SHARE}/") and path.rsplit("/", 1)[1] in self.shared

    def statvfs(self, path: str) -> FsUsage:
        return FsUsage(100 * GIB, 50 * GIB, 50 * GIB)

    def probe_write(self, directory: str, name: str, *, direct: bool) -> OSError | None:
        return self.direct_error if direct else None


class FakeLocal:
    def run(self, argv: list[str], timeout: float | None = None) -> CommandResult:
        return CommandResult(tuple(argv), 0, "fio-3.33\n", "")


@pytest.fixture
def nas(monkeypatch: pytest.MonkeyPatch) -> Iterator[RecordedHost]:
    monkeypatch.setattr(
        RecordedHost, "capabilities", property(lambda self: HostCapabilities(True, True, False))
    )
    yield load_demo_host()


def sharing(nas: RecordedHost, client: FakeClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file the NAS makes at the top of the pool shows on the client's share."""

    def write_text(path: str, text: str) -> None:
        assert path.startswith(f"{POOL}/.tierdeck-bench.")
        client.shared.add(path.rsplit("/", 1)[1])

    monkeypatch.setattr(nas, "write_text", write_text)
    monkeypatch.setattr(nas, "remove", lambda path: client.shared.discard(path.rsplit("/", 1)[1]))


def plan(nas: RecordedHost, client: FakeClient, path: str = SHARE, **kwargs: Any) -> Any:
    network = NetworkClient("laptop", path, client, FakeLocal())  # type: ignore[arg-type]
    inventory = collect_inventory(nas)
    return plan_ladder(nas, inventory, POOL, None, client=network, **kwargs)


def test_the_network_rung_comes_last_measured_against_the_pool(
    nas: RecordedHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = FakeClient()
    sharing(nas, client, monkeypatch)
    planned = plan(nas, client)
    kinds = [r.kind for r in planned.rungs]
    assert kinds[-1] is RungKind.NETWORK and kinds.count(RungKind.NETWORK) == 1
    assert planned.rungs[-1].path == f"laptop:{SHARE}" and planned.rungs[-1].skipped is None
    assert COMPARED_TO[RungKind.NETWORK] is RungKind.POOL
    assert planned.client_note is None  # the pool's share, over a network filesystem
    assert client.shared == set()  # the NAS's probe file is gone
    # the client runs the job every rung runs, as long
    assert [(j.rw, j.bs, j.runtime) for j in planned.client_jobs] == [
        (j.rw, j.bs, planned.runtime) for j in planned.jobs
    ]
    assert planned.definition()["client"] == {"host": "laptop", "path": SHARE}
    # stored, its cell comes back as the network rung
    assert expected_keys(planned.definition())[-1] == "network"
    assert rung_of_key("network") == (RungKind.NETWORK, None, None)


def test_a_share_that_does_not_show_the_pool_is_said(nas: RecordedHost) -> None:
    planned = plan(nas, FakeClient())  # the recorded NAS writes nothing: nothing shows
    assert planned.client_note is not None
    assert "did not show a file just made at the top of /mnt/cached" in planned.client_note
    assert planned.rungs[-1].skipped is None  # it runs all the same


def test_a_local_mount_runs_and_is_said_to_be_local(nas: RecordedHost) -> None:
    planned = plan(nas, FakeClient(ROOT + LOCAL), "/data")
    assert planned.client_note is not None
    assert planned.client_note.startswith("laptop:/data is a local path (ext4 /dev/sdb1 on /data)")
    assert "not a network share of the pool" in planned.client_note


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("/home/me", "laptop:/home/me is a folder of laptop's root filesystem"),
        ("/no/such", "laptop:/no/such is not a folder on laptop"),
    ],
)
def test_a_path_that_is_no_mount_is_refused(nas: RecordedHost, path: str, said: str) -> None:
    with pytest.raises(LadderRefused) as refused:
        plan(nas, FakeClient(), path)
    assert refused.value.kind is LadderRefusalKind.CLIENT
    assert refused.value.reason.startswith(said)


def test_another_fio_on_the_client_is_refused_with_both_versions(nas: RecordedHost) -> None:
    with pytest.raises(LadderRefused) as refused:
        plan(nas, FakeClient(fio="fio-3.28"))
    assert "laptop has fio-3.28" in refused.value.reason
    assert "this machine (the fio client) has fio-3.33" in refused.value.reason


def test_an_option_sweep_has_no_network_rung(nas: RecordedHost) -> None:
    from tierdeck.core.ladder.options import parse_option_sweep

    with pytest.raises(LadderRefused) as refused:
        plan(nas, FakeClient(), option=parse_option_sweep("async_read=true,false"))
    assert refused.value.kind is LadderRefusalKind.CLIENT


def test_a_client_refusing_o_direct_makes_every_rung_buffered(nas: RecordedHost) -> None:
    client = FakeClient()
    client.direct_error = OSError(errno.EINVAL, "Invalid argument")
    planned = plan(nas, client)
    assert planned.direct_refused == "Invalid argument"
    assert all(not job.direct for job in (*planned.jobs, *planned.client_jobs))
    assert (
        f"buffered on every rung because the client's mount laptop:{SHARE} refuses O_DIRECT"
        in planned.job_line
    )


def test_a_job_the_client_mount_refuses_skips_only_that_rung(nas: RecordedHost) -> None:
    from tierdeck.core.presets import find_preset

    client = FakeClient()
    client.direct_error = OSError(errno.EINVAL, "Invalid argument")
    preset = find_preset("nas-seqwrite-1m-qd8x8")
    assert preset is not None
    network = NetworkClient("laptop", SHARE, client, FakeLocal())  # type: ignore[arg-type]
    planned = plan_ladder(
        nas, collect_inventory(nas), POOL, preset.jobs, size="16M", client=network
    )
    skipped = planned.rungs[-1].skipped
    assert skipped is not None and "O_DIRECT is not supported there" in skipped
