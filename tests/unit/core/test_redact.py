"""core/redact.py and ``--redact`` in every export format.

The identifiers are in the forms real machines print them: by-id names and WWNs from
the recorded hosts (tests/fixtures/disks, app/machine/demo_host), an OpenMediaVault-style
``/srv/dev-disk-by-uuid-...`` mount, fio's client/server ``hostname`` key, NFS's
``addr=`` mount option. They are added to a recorded lab run (tests/fixtures/bench_screens).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tierdeck.app.export.formats import ExportFormat, render_export
from tierdeck.core.bench_models import EnvFingerprint, RunHost, RunResult
from tierdeck.core.redact import KnownIdentifiers, Redactor, redact_runs

from tests.unit.core.compare.test_compare import recording

SERIAL = "3GJ1PZKL"
BY_ID = f"/dev/disk/by-id/ata-WDC_WD180EDGZ-11B2DA0_{SERIAL}"
NVME_SERIAL = "S2GLNXAGB01234T"
WWN = "0x5000c500408ac603"
EUI = "0025385b71b01234"
UUID = "25993b28-f715-46a7-a282-73cd26bf3a36"
MOUNT = f"/srv/dev-disk-by-uuid-{UUID}"
HOST = "nas01"  # this machine, known to the caller
FIO_HOST = "storagebox"  # only in fio's client output
RUN_HOST = "tower9"  # the host the run ran on (over SSH)
MACHINE_ID = "4f1c0a9e2b7d4c5e8f6a1b2c3d4e5f60"
NFS_ADDR = "192.168.1.20"
ZFS_GUID = "9134457925741632398"
KNOWN_SERIAL = "WD-WCC7K0123456"  # a serial the caller knows, in free text
USER = "gfm"  # a home directory's owner (root@nas:/home/gfm in a home NAS's notes)
MAC_USER = "jsmith"

SECRETS = (
    SERIAL,
    NVME_SERIAL,
    WWN,
    EUI,
    UUID,
    HOST,
    FIO_HOST,
    RUN_HOST,
    MACHINE_ID,
    NFS_ADDR,
    ZFS_GUID,
    KNOWN_SERIAL,
    f"/{USER}/",
    MAC_USER,
)
KNOWN = KnownIdentifiers(hostnames=(f"{HOST}.lan",), serials=(KNOWN_SERIAL,))


def identifying_run(run_id: int = 1) -> RunResult:
    """A recorded randrw run that holds every kind of identifier somewhere."""
    base = recording("branch_randrw", run_id)
    job = replace(
        base.jobs[0],
        filename=f"{BY_ID}:/dev/disk/by-id/nvme-Samsung_SSD_950_PRO_256GB_{NVME_SERIAL}-part1",
        extra={
            **base.jobs[0].extra,
            "description": f"disk wwn-{WWN} on {HOST}, job /home/{USER}/fio/seq.fio",
        },
    )
    fio = dict(base.fio_json or {})
    fio["client_stats"] = [{"jobname": "All clients", "hostname": FIO_HOST}]
    jobs = [dict(j) for j in fio["jobs"]]
    jobs[0]["job options"] = {
        **jobs[0]["job options"],
        "filename": BY_ID,
        "write_bw_log": f"/Users/{MAC_USER}/logs/bw",
    }
    fio["jobs"] = jobs
    env = replace(
        base.env,
        mount_options=("rw", "vers=4.2", f"addr={NFS_ADDR}"),
        zfs_properties={"guid": ZFS_GUID, "recordsize": "131072"},
        disk_models={"sdb": "WDC WD180EDGZ-11B2DA0", "nvme0n1": f"eui.{EUI}"},
    )
    return replace(
        base,
        name=f"randrw on {HOST} ({KNOWN_SERIAL})",
        target=replace(base.target, path=MOUNT, label=f"ext4 {MOUNT}", mountpoint=MOUNT),
        jobs=(job,),
        fio_json=fio,
        env=env,
        tags=(FIO_HOST,),
        host=RunHost(RUN_HOST, f"ssh:{MACHINE_ID}"),
    )


def test_by_id_names_keep_bus_and_model_and_lose_the_serial() -> None:
    r = Redactor()
    out = r.text(f"filename={BY_ID}-part1")
    assert out == "filename=/dev/disk/by-id/ata-WDC_WD180EDGZ-11B2DA0_REDACTED-SERIAL-1-part1"
    assert r.text("nvme-Samsung_SSD_950_PRO_256GB_S2GLNXAGB01234T_1") == (
        "nvme-Samsung_SSD_950_PRO_256GB_REDACTED-SERIAL-2_1"  # the namespace stays
    )
    assert r.text("usb-WD_Elements_25A3_57583431443530303030-0:0") == (
        "usb-WD_Elements_25A3_REDACTED-SERIAL-3-0:0"
    )
    # the same disk keeps its name across strings: comparisons still line up
    assert r.text(f"ata-WDC_WD180EDGZ-11B2DA0_{SERIAL}") == (
        "ata-WDC_WD180EDGZ-11B2DA0_REDACTED-SERIAL-1"
    )


def test_wwns_uuids_and_hosts() -> None:
    r = Redactor(KNOWN)
    assert r.text(f"/dev/disk/by-id/wwn-{WWN}-part2") == "/dev/disk/by-id/wwn-REDACTED-WWN-1-part2"
    assert r.text(f"nvme-eui.{EUI}") == "nvme-REDACTED-WWN-2"
    assert r.text("scsi-35000c500a1b2c3d4") == "scsi-REDACTED-WWN-3"
    assert r.text(f"UUID={UUID} {MOUNT}") == (
        "UUID=REDACTED-UUID-1 /srv/dev-disk-by-uuid-REDACTED-UUID-1"
    )
    assert r.text("/dev/disk/by-uuid/1234-ABCD md-uuid-a1b2c3d4:e5f60718:293a4b5c:6d7e8f90") == (
        "/dev/disk/by-uuid/REDACTED-UUID-2 md-uuid-REDACTED-UUID-3"
    )
    assert r.text(f"{HOST}, {HOST.upper()}.lan, addr={NFS_ADDR}, 127.0.0.1") == (
        "REDACTED-HOST-1, REDACTED-HOST-1, addr=REDACTED-HOST-2, 127.0.0.1"
    )


def test_home_directories_lose_their_owner_and_keep_the_rest_of_the_path() -> None:
    r = Redactor()
    assert r.text(f"filename=/home/{USER}/bench/f1:/var/home/{USER}/f2") == (
        "filename=/home/REDACTED-USER-1/bench/f1:/var/home/REDACTED-USER-1/f2"
    )
    assert r.text(f"/Users/{MAC_USER}/Desktop/run.json C:\\Users\\{MAC_USER}\\fio.txt") == (
        "/Users/REDACTED-USER-2/Desktop/run.json C:\\Users\\REDACTED-USER-2\\fio.txt"
    )
    # a folder merely named home is not a home directory, nor is /home itself
    assert (
        r.text("/mnt/pool/home/media /home /srv/home/x") == "/mnt/pool/home/media /home /srv/home/x"
    )


def test_ordinary_text_is_left_alone() -> None:
    text = (
        "fio-3.33 kernel 6.18.44-fc-v669 zfs-2.1.5-1ubuntu6~22.04.1 mergerfs 2.33.5 "
        "bs=4k iodepth=16 usb-stick data-set loop on /tmp/lab/images/hdd0.img"
    )
    assert Redactor(KNOWN).text(text) == text


def test_a_redacted_run_keeps_its_figures_and_a_valid_job_file() -> None:
    run = identifying_run()
    (redacted,) = redact_runs([run], KNOWN)
    assert redacted.summary == run.summary and redacted.series == run.series
    assert redacted.jobs[0].validate().name == run.jobs[0].name
    assert redacted.env.zfs_properties == {"guid": "REDACTED-UUID-2", "recordsize": "131072"}
    assert redacted.tags == ("REDACTED-HOST-2",)  # fio's client hostname, found in its JSON


@pytest.mark.parametrize("fmt", list(ExportFormat))
@pytest.mark.parametrize("count", [1, 2])
def test_no_identifier_survives_any_format(fmt: ExportFormat, count: int) -> None:
    runs = [identifying_run(1), replace(identifying_run(2), name=f"second on {HOST}.lan")]
    plain = render_export(runs[:count], fmt, known=KNOWN)
    assert any(s in plain for s in SECRETS)  # the run does hold them
    text = render_export(runs[:count], fmt, redact=True, known=KNOWN)
    assert [s for s in SECRETS if s.lower() in text.lower()] == []
    assert "REDACTED-SERIAL-1" in text
    if fmt is ExportFormat.JSON:
        json.loads(text)
    if fmt is ExportFormat.CSV:
        assert list(csv.DictReader(io.StringIO(text)))


def test_runs_on_the_same_disk_share_one_pseudonym_and_others_differ() -> None:
    one = identifying_run(1)
    spec = one.jobs[0]
    other = {**spec.extra, "description": "disk wwn-0x5000c5004d038886"}  # demo_host's
    other_disk = replace(identifying_run(2), jobs=(replace(spec, extra=other),))
    same_disk = identifying_run(3)
    doc = json.loads(render_export([one, other_disk, same_disk], ExportFormat.JSON, redact=True))
    (described,) = [d for d in doc["differences"] if d["key"].endswith(".description")]
    a, b, c = described["values"]
    assert a == c != b
    assert b.startswith("disk wwn-REDACTED-WWN-") and "4d038886" not in json.dumps(doc)


def test_the_host_a_run_ran_on_loses_its_name_and_machine_id_and_keeps_its_kind() -> None:
    named = replace(identifying_run(1), tags=(f"on-{RUN_HOST}",))  # the name in free text
    same = replace(identifying_run(2), host=RunHost(RUN_HOST.upper(), f"local:{MACHINE_ID}"))
    other = replace(identifying_run(3), host=RunHost("nas2", "ssh:9b2e77"))
    unknown = replace(identifying_run(4), host=RunHost())
    one, two, three, four = redact_runs([named, same, other, unknown])
    assert one.host.name.startswith("REDACTED-HOST-") and one.host.id.startswith("ssh:REDACTED-")
    assert two.host == replace(one.host, id=one.host.id.replace("ssh:", "local:"))  # one machine
    assert three.host.name not in ("nas2", one.host.name) and "9b2e77" not in three.host.id
    assert three.host.id.split(":")[1] != one.host.id.split(":")[1]
    assert four.host == RunHost()
    assert one.tags == (f"on-{one.host.name}",)


def test_an_empty_environment_stays_empty() -> None:
    run = replace(identifying_run(), env=EnvFingerprint())
    assert redact_runs([run])[0].env == EnvFingerprint()


@given(
    user=st.text(
        st.characters(
            blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc"), blacklist_characters="/\\'\",;:)"
        ),
        min_size=1,
        max_size=20,
    ),
    home=st.sampled_from(["/home/", "/var/home/", "/Users/"]),
    rest=st.sampled_from(["", "/", "/fio/job.fio", " and more"]),
)
def test_any_home_directory_owner_is_replaced_and_the_path_kept(
    user: str, home: str, rest: str
) -> None:
    out = Redactor().text(f"filename={home}{user}{rest}")
    assert out == f"filename={home}REDACTED-USER-1{rest}"
