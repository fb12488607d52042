"""``--redact``: runs with the identifiers of the machine and its disks replaced.

What is removed, wherever it appears in a run (name, target path and label, job options
such as ``filename=/dev/disk/by-id/...``, fio's own JSON, the environment, warnings,
tags, the imported file's name):

- **serials**: the serial part of a by-id name (``ata-WDC_WD180EDGZ-11B2DA0_3GJ1PZKL``
  keeps its bus and model, ``_3GJ1PZKL`` goes), and serials the caller knows;
- **WWNs**: ``wwn-0x5000c500a1b2c3d4``, NAA/EUI ids (``naa.``, ``eui.``, ``nvme-eui.``,
  ``scsi-3...``), and WWNs the caller knows;
- **UUIDs**: RFC 4122 UUIDs, md's ``xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx``, LVM's
  ``xxxxxx-xxxx-xxxx-xxxx-xxxx-xxxx-xxxxxx``, whatever follows ``by-uuid/``,
  ``by-partuuid/``, ``UUID=`` and ``PARTUUID=``, and ZFS's ``guid`` property;
- **hostnames**: the names the caller knows (this machine's), the name of the host each
  run ran on and its machine id, every value of a ``hostname`` key in fio's JSON (fio's
  client/server output) with its short form, the host of an md ``md-name-HOST:NAME``,
  and IPv4 addresses (NFS/CIFS mount options);
- **user names**: the name of a home directory in a path (``/home/NAME/...``,
  ``/Users/NAME/...``, ``/var/home/NAME``, ``C:\\Users\\NAME``), wherever the path is.

Each value becomes ``REDACTED-<KIND>-<n>``, numbered per :class:`Redactor`, so two runs
on the same disk still share a name and two different disks still differ (the
comparability panel keeps its meaning). Redaction errs on the side of removing: a run
name that happens to equal the hostname goes too. The replacement uses only letters,
digits and ``-``, so a redacted job name or option is still valid for fio.

Pure: strings in, strings out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, is_dataclass, replace
from enum import Enum, StrEnum
from typing import Any

from .bench_models import RunHost, RunResult


class IdKind(StrEnum):
    SERIAL = "serial"
    WWN = "wwn"
    UUID = "uuid"
    HOST = "host"
    MACHINE = "machine"  # a machine id (a run's host id, Host.identity)
    USER = "user"


@dataclass(frozen=True)
class KnownIdentifiers:
    """Identifiers the caller knows from the machine (its hostname, its disks'
    serials and WWNs): removed wherever they appear, even in free text."""

    hostnames: tuple[str, ...] = ()
    serials: tuple[str, ...] = ()
    wwns: tuple[str, ...] = ()


NOTHING_KNOWN = KnownIdentifiers()

# Keys whose value is an identifier whatever it looks like (ZFS's guid is a decimal).
_KEY_KINDS = {
    "hostname": IdKind.HOST,
    "serial": IdKind.SERIAL,
    "wwn": IdKind.WWN,
    "uuid": IdKind.UUID,
    "guid": IdKind.UUID,
}
_NOT_IDENTIFYING = frozenset({"", "localhost", "localhost.localdomain", "(none)"})
_HEX = "[0-9A-Fa-f]"
_UUID = rf"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"
_MD_UUID = rf"{_HEX}{{8}}(?::{_HEX}{{8}}){{3}}"
_LVM_UUID = r"[A-Za-z0-9]{6}(?:-[A-Za-z0-9]{4}){5}-[A-Za-z0-9]{6}"
_ID_CHARS = r"[A-Za-z0-9_.:+\-]"
# udev's by-id buses (60-persistent-storage.rules) whose names are BUS-MODEL_SERIAL
_SERIAL_BUSES = "ata|nvme|scsi|usb|sas|mmc|ide|virtio|memstick|ieee1394|cciss|xen"
_BY_ID_BUSES = f"{_SERIAL_BUSES}|wwn|md-uuid|md-name|dm-uuid|lvm-pv-uuid"

_PATTERNS = (
    # a by-id name after "by-id/": any bus, with or without a model part
    rf"(?P<byid>by-id/)(?P<bus>{_BY_ID_BUSES})-(?P<id>{_ID_CHARS}+)",
    # a bare by-id name elsewhere (a vdev, a label): only the MODEL_SERIAL form
    rf"(?<![A-Za-z0-9])(?P<bus2>{_SERIAL_BUSES})-(?P<id2>[A-Za-z0-9.+\-]+_{_ID_CHARS}+)",
    r"(?P<uuidref>by-uuid/|by-partuuid/|(?<![A-Za-z])(?:PART)?UUID=)(?P<uuidval>[^\s/,;'\")]+)",
    rf"(?<![A-Za-z0-9])(?P<uuid>{_UUID}|{_MD_UUID}|{_LVM_UUID})(?![A-Za-z0-9])",
    rf"(?<![A-Za-z0-9])(?P<wwn>0x{_HEX}{{16}}(?:{_HEX}{{16}})?|(?:eui|naa)\.{_HEX}{{16,32}}"
    rf"|(?<=scsi-)3{_HEX}{{16,32}})"
    r"(?![A-Za-z0-9])",
    # a home directory's owner: fio's filename=, a target path, an imported file's path
    r"(?P<homeref>(?<![A-Za-z0-9_.\-])(?:/var)?/home/|(?<![A-Za-z0-9_.\-])/Users/|\\Users\\)"
    r"(?P<user>[^\s/\\'\",;:)]+)",
    r"(?<![\d.])(?P<ipv4>(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d))"
    r"(?![\d.]*\d)",
)
_IPV4 = re.compile(r"[\d.]+")
_PART_SUFFIX = re.compile(r"(-part\d+|-\d+:\d+)$")  # a partition, usb's LUN instance
_NVME_NSID = re.compile(r"_\d{1,3}$")  # newer udev: nvme-MODEL_SERIAL_NSID
_NAA = re.compile(rf"3{_HEX}{{16,32}}")  # scsi-3<naa>: a WWN in scsi's by-id name


class Redactor:
    """One export's redaction: the same value always gets the same replacement."""

    def __init__(self, known: KnownIdentifiers = NOTHING_KNOWN) -> None:
        self._names: dict[tuple[IdKind, str], str] = {}
        self._counts: dict[IdKind, int] = {}
        self._hosts: set[str] = set()
        self._literals: dict[str, IdKind] = {}
        for kind, values in (
            (IdKind.SERIAL, known.serials),
            (IdKind.WWN, known.wwns),
        ):
            for value in values:
                if len(value.strip()) >= 4:  # a 1-3 character "serial" would hit everything
                    self._literals[value.strip().lower()] = kind
        self.add_hostnames(known.hostnames)
        self._pattern: re.Pattern[str] | None = None

    # ------------------------------------------------------------------ setup

    def add_hostnames(self, names: Iterable[str]) -> None:
        """Hostnames to remove: each as given and its short form (before the first dot)."""
        for name in names:
            name = name.strip()
            for form in (name, name.split(".", 1)[0]):
                if form.lower() not in _NOT_IDENTIFYING:
                    self._hosts.add(form)
        self._pattern = None

    def _compiled(self) -> re.Pattern[str]:
        if self._pattern is None:
            parts = list(_PATTERNS)
            literals = sorted({*self._literals, *self._hosts}, key=len, reverse=True)
            if literals:
                words = "|".join(re.escape(w) for w in literals)
                parts.insert(0, rf"(?<![A-Za-z0-9])(?P<known>{words})(?![A-Za-z0-9])")
            self._pattern = re.compile("|".join(parts), re.IGNORECASE)
        return self._pattern

    # ------------------------------------------------------------------ values

    def pseudonym(self, kind: IdKind, value: str) -> str:
        """``REDACTED-KIND-n``; a host's full and short names (nas.lan, nas) share one."""
        name = value.lower()
        if kind is IdKind.HOST and not _IPV4.fullmatch(name):
            name = name.split(".", 1)[0]
        key = (kind, name)
        if key not in self._names:
            self._counts[kind] = self._counts.get(kind, 0) + 1
            self._names[key] = f"REDACTED-{kind.value.upper()}-{self._counts[kind]}"
        return self._names[key]

    def text(self, text: str) -> str:
        """``text`` with every identifier replaced."""
        return self._compiled().sub(self._replace, text)

    def _replace(self, match: re.Match[str]) -> str:
        found = match.groupdict()
        if found.get("known") is not None:
            value = found["known"]
            return self.pseudonym(self._literals.get(value.lower(), IdKind.HOST), value)
        if found.get("byid") is not None:
            return found["byid"] + self._by_id(found["bus"], found["id"])
        if found.get("bus2") is not None:
            return self._by_id(found["bus2"], found["id2"])
        if found.get("homeref") is not None:
            return found["homeref"] + self.pseudonym(IdKind.USER, found["user"])
        if found.get("uuidref") is not None:
            return found["uuidref"] + self.pseudonym(IdKind.UUID, found["uuidval"])
        if found.get("uuid") is not None:
            return self.pseudonym(IdKind.UUID, found["uuid"])
        if found.get("wwn") is not None:
            return self.pseudonym(IdKind.WWN, found["wwn"])
        if found.get("ipv4") is not None:
            ip = found["ipv4"]
            return (
                ip if ip.startswith("127.") or ip == "0.0.0.0" else self.pseudonym(IdKind.HOST, ip)
            )
        return match.group(0)

    def _by_id(self, bus: str, ident: str) -> str:
        """``BUS-ID`` of /dev/disk/by-id with its identifying part replaced."""
        lowered = bus.lower()
        if lowered in ("md-uuid", "dm-uuid", "lvm-pv-uuid"):
            return f"{bus}-{self.pseudonym(IdKind.UUID, ident)}"
        if lowered == "md-name":
            host, colon, name = ident.partition(":")
            return (
                f"{bus}-{self.pseudonym(IdKind.HOST, host)}{colon}{name}"
                if colon
                else bus + "-" + ident
            )
        stripped = ident.rstrip(":.")  # a fio filename list's ':', a sentence's '.'
        ident, suffix = stripped, ident[len(stripped) :]
        if (m := _PART_SUFFIX.search(ident)) is not None:
            ident, suffix = ident[: m.start()], m.group(0) + suffix
        if lowered == "wwn" or ident.lower().startswith(("eui.", "nvme.", "naa.", "0x")):
            return f"{bus}-{self.pseudonym(IdKind.WWN, ident)}{suffix}"
        if lowered == "scsi" and _NAA.fullmatch(ident):
            return f"{bus}-{self.pseudonym(IdKind.WWN, ident)}{suffix}"
        if lowered == "nvme" and (m := _NVME_NSID.search(ident)) and "_" in ident[: m.start()]:
            ident, suffix = ident[: m.start()], m.group(0) + suffix
        model, sep, serial = ident.rpartition("_")
        if not sep:
            return f"{bus}-{self.pseudonym(IdKind.SERIAL, ident)}{suffix}"
        return f"{bus}-{model}_{self.pseudonym(IdKind.SERIAL, serial)}{suffix}"

    def value(self, obj: Any, key: str | None = None) -> Any:
        """Any value of a run (dataclass, mapping, sequence, string), redacted."""
        if isinstance(obj, str) and not isinstance(obj, Enum):
            kind = _KEY_KINDS.get((key or "").lower())
            if kind is not None and obj.strip():
                return self.pseudonym(kind, obj)
            return self.text(obj)
        if obj is None or isinstance(obj, bool | int | float | Enum):
            if key is not None and key.lower() in _KEY_KINDS and isinstance(obj, int):
                return self.pseudonym(_KEY_KINDS[key.lower()], str(obj))
            return obj
        if isinstance(obj, RunHost):
            return self._run_host(obj)
        if is_dataclass(obj) and not isinstance(obj, type):
            changes = {f.name: self.value(getattr(obj, f.name)) for f in fields(obj) if f.init}
            return replace(obj, **changes)
        if isinstance(obj, Mapping):
            return {
                (self.text(k) if isinstance(k, str) else k): self.value(
                    v, k if isinstance(k, str) else None
                )
                for k, v in obj.items()
            }
        if isinstance(obj, tuple):
            return tuple(self.value(v) for v in obj)
        if isinstance(obj, list):
            return [self.value(v) for v in obj]
        return obj

    def _run_host(self, host: RunHost) -> RunHost:
        """Both parts replaced whatever they look like; the id keeps how the machine was
        reached ("ssh:"), so two runs of one machine still share its pseudonym."""
        how, colon, machine = host.id.partition(":")
        if not colon:
            how, machine = "", host.id
        return RunHost(
            name=self.pseudonym(IdKind.HOST, host.name) if host.name else "",
            id=how + colon + self.pseudonym(IdKind.MACHINE, machine) if machine else "",
        )

    def runs(self, runs: Sequence[RunResult]) -> tuple[RunResult, ...]:
        """The runs redacted; fio's ``hostname`` values and the hosts the runs ran on
        are hostnames everywhere (a run named after its host loses the name too)."""
        self.add_hostnames(h for run in runs for h in hostnames_in(run.fio_json))
        self.add_hostnames(run.host.name for run in runs if run.host.name)
        return tuple(self.value(run) for run in runs)


def hostnames_in(doc: Any) -> list[str]:
    """Every string value of a ``hostname`` key, at any depth (fio client output)."""
    found: list[str] = []
    if isinstance(doc, Mapping):
        for key, value in doc.items():
            if key == "hostname" and isinstance(value, str):
                found.append(value)
            else:
                found += hostnames_in(value)
    elif isinstance(doc, list | tuple):
        for item in doc:
            found += hostnames_in(item)
    return found


def redact_runs(
    runs: Sequence[RunResult], known: KnownIdentifiers = NOTHING_KNOWN
) -> tuple[RunResult, ...]:
    """``runs`` with serials, WWNs, UUIDs and hostnames replaced (module docstring)."""
    return Redactor(known).runs(runs)
