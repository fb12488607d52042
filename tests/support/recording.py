"""Write RecordedHost folders from code (see :class:`tierdeck.backends.host.RecordedHost`).

The demo NAS (scripts/make_demo_host.py), tests and the benchmarks (a 240-disk host, see
:mod:`tests.support.large_host`) describe machines with this builder instead of
hand-made folders. The sysfs it writes has the kernel's own shape: ``/sys/block/X`` is a
symlink to ``../devices/<bus path>/block/X``, the ``device`` link points at the
SCSI/NVMe/virtio device, partitions are subdirectories with a ``partition`` file, and SCSI
strings are space-padded like the kernel pads them. Backends therefore cannot tell a
built host from a captured one, which is the point. The udev properties recorded with
each disk come from :mod:`recording_udev`; what particular tool releases answer (ZFS 2.1,
mergerfs 2.33.5) from :mod:`recording_tools`.

Nothing is written until :meth:`HostRecording.write`, which replaces only what it owns
(``host.json``, ``root/`` and ``commands/``) so notes kept beside them survive.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tierdeck.backends.disks import SECTOR

from .recording_udev import disk_udev, partition_udev

_INLINE_STDOUT_LIMIT = 4096  # larger outputs go to commands/NNN.txt
_SCSI_STYLES = ("ata", "scsi", "sas", "usb")
_STYLES = (*_SCSI_STYLES, "nvme", "virtio", "loop", "virtual")
# Majors of sd disks 0-15, 16-31, ... (Documentation/admin-guide/devices.txt).
_SD_MAJORS = (8, 65, 66, 67, 68, 69, 70, 71, 128, 129, 130, 131, 132, 133, 134, 135)


@dataclass(frozen=True)
class PartitionSpec:
    """One partition of a recorded disk; its kernel name is derived from the disk's."""

    number: int
    size_bytes: int
    start_sector: int = 2048
    fs_type: str | None = None
    fs_label: str | None = None
    fs_uuid: str | None = None
    part_label: str | None = None  # the GPT partition name
    holders: tuple[str, ...] = ()


def partition_name(disk: str, number: int) -> str:
    """sda + 1 -> sda1; nvme0n1 + 1 -> nvme0n1p1 (a "p" when the disk ends in a digit)."""
    return f"{disk}{'p' if disk[-1].isdigit() else ''}{number}"


def sd_name(index: int) -> str:
    """0 -> sda, 25 -> sdz, 26 -> sdaa, 701 -> sdzz: the kernel's sd naming."""
    letters = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        letters = chr(ord("a") + rem) + letters
    return "sd" + letters


def _sd_index(letters: str) -> int:
    index = 0
    for ch in letters:
        index = index * 26 + (ord(ch) - ord("a") + 1)
    return index - 1


class HostRecording:
    """Builder of one RecordedHost folder. Paths given to it are host paths ("/mnt/x")."""

    def __init__(
        self,
        folder: str | Path,
        *,
        hostname: str = "recorded",
        kernel: str = "unknown",
        is_root: bool = True,
        udev: bool = True,
    ) -> None:
        """``udev=True`` records udev properties for every disk added (a host whose udev
        database is populated); with False the host has no udev database at all, unless
        :meth:`set_udev` is called."""
        self.folder = Path(folder)
        self.hostname = hostname
        self.kernel = kernel
        self.is_root = is_root
        self._auto_udev = udev
        self._files: dict[str, str] = {}
        self._links: dict[str, str] = {}
        self._dirs: set[str] = set()
        self._udev: dict[str, dict[str, str]] | None = {} if udev else None
        self._commands: list[dict[str, Any]] = []
        self._tools: set[str] = set()
        self._fallback: dict[str, dict[str, Any]] = {}
        self._xattrs: dict[str, dict[str, str]] = {}
        self._statvfs: dict[str, dict[str, int]] = {}
        self._mountinfo: list[str] = []
        self._mount_ids: dict[str, int] = {}
        self._next_mount_id = 24
        self._next_ext_minor = 0  # block extended devt (major 259) for NVMe and partitions
        self._next_virtio = 0
        self._next_scsi_host = 0

    # ----------------------------------------------------------------- block devices

    def add_disk(
        self,
        name: str,
        size_bytes: int,
        rotational: bool,
        *,
        model: str | None = None,
        vendor: str | None = None,
        serial: str | None = None,
        firmware: str | None = None,
        wwn: str | None = None,
        transport: str = "ata",
        hctl: str | None = None,
        partitions: Sequence[PartitionSpec] = (),
        holders: Sequence[str] = (),
        by_id: Sequence[str] = (),
        fs_type: str | None = None,
        fs_label: str | None = None,
        fs_uuid: str | None = None,
        backing_file: str | None = None,
        removable: bool = False,
        read_only: bool = False,
        major_minor: str | None = None,
    ) -> None:
        """A whole disk with its sysfs files, partitions, by-id links and udev properties.

        ``transport`` picks the sysfs path style: "ata", "scsi", "sas", "usb" (need an
        ``hctl``, one is made up if omitted), "nvme", "virtio", "loop" or "virtual"
        (zram, nbd). ``by_id`` are link names ("ata-WDC_WD180EDGZ-11B2DA0_3GH1XXXX");
        partition links get "-partN" appended, as udev does.
        """
        if transport not in _STYLES:
            raise ValueError(f"transport style must be one of {_STYLES}: {transport!r}")
        if transport in _SCSI_STYLES and hctl is None:
            hctl = f"{self._next_scsi_host}:0:0:0"
            self._next_scsi_host += 1
        block_dir, device_dir = self._paths(name, transport, hctl)
        dev = major_minor or self._disk_devt(name)
        self._link(f"/sys/block/{name}", block_dir)
        self._put(f"{block_dir}/size", str(size_bytes // SECTOR))
        self._put(f"{block_dir}/dev", dev)
        self._put(f"{block_dir}/removable", "1" if removable else "0")
        self._put(f"{block_dir}/ro", "1" if read_only else "0")
        self._put(f"{block_dir}/queue/rotational", "1" if rotational else "0")
        self._holders(f"{block_dir}/holders", holders)
        if device_dir is not None:
            self._link(f"{block_dir}/device", device_dir)
            self._device_files(name, transport, device_dir, model, vendor, serial, firmware)
        if transport == "nvme" and wwn:
            self._put(f"{block_dir}/wwid", wwn)
        if transport == "virtio" and serial:
            self._put(f"{block_dir}/serial", serial)
        if transport == "loop" and backing_file:  # loop/ exists only while attached
            self._put(f"{block_dir}/loop/backing_file", backing_file)
        self.set_file(f"/dev/{name}", "")
        for link in by_id:
            self._link(f"/dev/disk/by-id/{link}", f"/dev/{name}")

        part_devs: list[tuple[PartitionSpec, str, str]] = []
        for spec in partitions:
            pname = partition_name(name, spec.number)
            pdev = self._partition_devt(name, dev, spec.number)
            pdir = f"{block_dir}/{pname}"
            self._put(f"{pdir}/partition", str(spec.number))
            self._put(f"{pdir}/size", str(spec.size_bytes // SECTOR))
            self._put(f"{pdir}/start", str(spec.start_sector))
            self._put(f"{pdir}/dev", pdev)
            self._put(f"{pdir}/ro", "1" if read_only else "0")
            self._holders(f"{pdir}/holders", spec.holders)
            self.set_file(f"/dev/{pname}", "")
            for link in by_id:
                self._link(f"/dev/disk/by-id/{link}-part{spec.number}", f"/dev/{pname}")
            part_devs.append((spec, pname, pdev))

        if self._udev is not None and self._auto_udev:
            self._udev[name] = disk_udev(
                name,
                block_dir,
                dev,
                transport,
                hctl,
                model,
                vendor,
                serial,
                firmware,
                wwn,
                by_id,
                bool(partitions),
                fs_type,
                fs_label,
                fs_uuid,
            )
            for spec, pname, pdev in part_devs:
                self._udev[pname] = partition_udev(
                    pname, f"{block_dir}/{pname}", pdev, spec, by_id, self._udev[name]
                )

    def add_dm(
        self, name: str, dm_name: str, size_bytes: int, slaves: Sequence[str], *, minor: int = 0
    ) -> None:
        """A device-mapper device (LVM volume) stacked on ``slaves`` (partition names)."""
        block_dir = f"/sys/devices/virtual/block/{name}"
        self._link(f"/sys/block/{name}", block_dir)
        self._put(f"{block_dir}/size", str(size_bytes // SECTOR))
        self._put(f"{block_dir}/dev", f"253:{minor}")
        self._put(f"{block_dir}/ro", "0")
        self._put(f"{block_dir}/removable", "0")
        self._put(f"{block_dir}/queue/rotational", "0")
        self._put(f"{block_dir}/dm/name", dm_name)
        self._dirs.add(f"{block_dir}/holders")
        for slave in slaves:
            target = self._find_block_dir(slave)
            self._link(f"{block_dir}/slaves/{slave}", target)
        self.set_file(f"/dev/{name}", "")
        self._link(f"/dev/mapper/{dm_name}", f"/dev/{name}")

    def devt(self, name: str) -> str:
        """The major:minor given to a disk or partition added earlier ("8:17")."""
        return self._files[f"{self._find_block_dir(name)}/dev"].strip()

    def _find_block_dir(self, name: str) -> str:
        for path in self._files:
            if path.endswith(f"/{name}/dev") and path.startswith("/sys/devices/"):
                return path[: -len("/dev")]
        raise ValueError(f"unknown block device {name!r}: add its disk first")

    def _paths(self, name: str, style: str, hctl: str | None) -> tuple[str, str | None]:
        if style in _SCSI_STYLES:
            assert hctl is not None
            host, channel, target, _lun = hctl.split(":")
            tgt = f"target{host}:{channel}:{target}"
            hba = f"/sys/devices/pci0000:00/0000:00:{0x10 + int(host):02x}.0/host{host}"
            if style == "ata":
                parent = f"/sys/devices/pci0000:00/0000:00:17.0/ata{int(host) + 1}/host{host}"
            elif style == "sas":
                parent = f"{hba}/port-{host}:{target}/end_device-{host}:{target}"
            elif style == "usb":
                port = f"2-{int(target) + 1}"
                parent = f"/sys/devices/pci0000:00/0000:00:14.0/usb2/{port}/{port}:1.0/host{host}"
            else:
                parent = hba  # one PCI function per SCSI host adapter
            device = f"{parent}/{tgt}/{hctl}"
            return f"{device}/block/{name}", device
        if style == "nvme":
            match = re.match(r"nvme(\d+)n\d+$", name)
            ctrl = int(match.group(1)) if match else 0
            device = (
                f"/sys/devices/pci0000:00/0000:00:1d.0/0000:{0x3D + ctrl:02x}:00.0/nvme/nvme{ctrl}"
            )
            return f"{device}/{name}", device
        if style == "virtio":
            index = self._next_virtio
            self._next_virtio += 1
            device = f"/sys/devices/pci0000:00/0000:00:{index + 2:02x}.0/virtio{index + 1}"
            return f"{device}/block/{name}", device
        return f"/sys/devices/virtual/block/{name}", None

    def _device_files(
        self,
        name: str,
        style: str,
        device_dir: str,
        model: str | None,
        vendor: str | None,
        serial: str | None,
        firmware: str | None,
    ) -> None:
        if style in _SCSI_STYLES:
            # SCSI INQUIRY strings, padded by the kernel to their field widths. libata
            # fills them from ATA IDENTIFY: the model cut to 16 characters and the last
            # four of the eight-character firmware revision ("85.00A85" -> "0A85").
            rev = (firmware or "")[-4:]
            self._put(f"{device_dir}/vendor", (vendor or "").ljust(8)[:8])
            self._put(f"{device_dir}/model", (model or "").ljust(16)[:16])
            self._put(f"{device_dir}/rev", rev.ljust(4))
            self._put(f"{device_dir}/type", "5" if name.startswith("sr") else "0")
        elif style == "nvme":
            self._put(f"{device_dir}/model", (model or "").ljust(40))
            self._put(f"{device_dir}/serial", (serial or "").ljust(20))
            self._put(f"{device_dir}/firmware_rev", (firmware or "").ljust(8))
        elif style == "virtio":
            self._put(f"{device_dir}/vendor", "0x1af4")

    def _disk_devt(self, name: str) -> str:
        if (match := re.fullmatch(r"sd([a-z]+)", name)) and _sd_index(match.group(1)) < 256:
            index = _sd_index(match.group(1))
            return f"{_SD_MAJORS[index // 16]}:{index % 16 * 16}"
        if match := re.fullmatch(r"vd([a-z]+)", name):
            return f"254:{_sd_index(match.group(1)) * 16}"
        if match := re.fullmatch(r"(sr|loop|zram|nbd)(\d+)", name):
            major = {"sr": 11, "loop": 7, "zram": 252, "nbd": 43}[match.group(1)]
            step = 32 if match.group(1) == "nbd" else 1
            return f"{major}:{int(match.group(2)) * step}"
        return self._ext_devt()

    def _partition_devt(self, disk: str, disk_dev: str, number: int) -> str:
        major, minor = disk_dev.split(":")
        if re.fullmatch(r"[sv]d[a-z]+", disk) and number < 16 and major != "259":
            return f"{major}:{int(minor) + number}"
        return self._ext_devt()

    def _ext_devt(self) -> str:
        minor = self._next_ext_minor
        self._next_ext_minor += 1
        return f"259:{minor}"

    def _holders(self, directory: str, holders: Iterable[str]) -> None:
        self._dirs.add(directory)
        for holder in holders:
            self._link(f"{directory}/{holder}", f"/sys/devices/virtual/block/{holder}")

    # ------------------------------------------------------------ files and metadata

    def set_file(self, path: str, text: str) -> None:
        """Any file of the host: /proc/mdstat, /proc/diskstats, /etc/fstab ..."""
        self._put(path, text, newline=False)

    def set_udev(self, name: str, props: Mapping[str, str]) -> None:
        """udev properties of one block device, merged over any generated ones."""
        if self._udev is None:
            self._udev = {}
        self._udev[name] = {**self._udev.get(name, {}), **props}

    def set_mountinfo(self, text: str) -> None:
        self._mountinfo = text.splitlines()

    def add_mountinfo_line(self, line: str) -> None:
        self._mountinfo.append(line.rstrip("\n"))

    def add_mount(
        self,
        mountpoint: str,
        fs_type: str,
        source: str,
        major_minor: str,
        *,
        options: str = "rw,relatime",
        super_options: str = "rw",
        root: str = "/",
        shared: bool = True,
        usage: tuple[int, int, int] | None = None,
    ) -> None:
        """A mountinfo line (ids and parent chosen like the kernel would) and, with
        ``usage=(size, free, avail)``, the statvfs answer for the mountpoint."""
        mount_id = self._next_mount_id
        self._next_mount_id += 1
        parent = self._parent_mount(mountpoint) or 1
        optional = f" shared:{mount_id - 23}" if shared else ""
        self.add_mountinfo_line(
            f"{mount_id} {parent} {major_minor} {_escape(root)} {_escape(mountpoint)} "
            f"{options}{optional} - {fs_type} {_escape(source)} {super_options}"
        )
        self._mount_ids[mountpoint] = mount_id
        if usage is not None:
            self.add_statvfs(mountpoint, *usage)

    def _parent_mount(self, mountpoint: str) -> int | None:
        best: tuple[int, int] | None = None
        for path, mount_id in self._mount_ids.items():
            inside = mountpoint.startswith(path.rstrip("/") + "/") or path == "/"
            if inside and path != mountpoint and (best is None or len(path) > best[0]):
                best = (len(path), mount_id)
        return best[1] if best else None

    def add_statvfs(self, path: str, size: int, free: int, avail: int) -> None:
        self._statvfs[path.rstrip("/") or "/"] = {"size": size, "free": free, "avail": avail}

    def statvfs(self, path: str) -> tuple[int, int, int]:
        """(size, free, avail) recorded for ``path`` by :meth:`add_statvfs` or
        :meth:`add_mount`: a mergerfs pool's own answer is the sum of its branches'."""
        entry = self._statvfs[path.rstrip("/") or "/"]
        return entry["size"], entry["free"], entry["avail"]

    def add_xattrs(self, path: str, attrs: Mapping[str, str]) -> None:
        self._xattrs.setdefault(path.rstrip("/"), {}).update(attrs)

    def add_command(
        self, argv: Sequence[str], stdout: str, stderr: str = "", returncode: int = 0
    ) -> None:
        """A command's recorded answer; its tool counts as installed."""
        entry: dict[str, Any] = {"argv": list(argv), "stderr": stderr, "returncode": returncode}
        if len(stdout) > _INLINE_STDOUT_LIMIT:
            entry["stdout_file"] = f"commands/{len(self._commands):03d}.txt"
            entry["_text"] = stdout
        else:
            entry["stdout"] = stdout
        self._commands.append(entry)
        self._tools.add(argv[0])

    def set_tools(self, tools: Iterable[str]) -> None:
        """Installed tools besides those with recorded commands or fallbacks."""
        self._tools.update(tools)

    def set_fallback(self, tool: str, stderr: str, returncode: int, stdout: str = "") -> None:
        """How ``tool`` answers arguments that were not recorded (an unknown option)."""
        self._fallback[tool] = {"stdout": stdout, "stderr": stderr, "returncode": returncode}
        self._tools.add(tool)

    # ------------------------------------------------------------------------ write

    def write(self) -> Path:
        """Write the folder, replacing host.json, root/ and commands/ of an earlier run."""
        folder = self.folder
        folder.mkdir(parents=True, exist_ok=True)
        # Refuse to wipe a root/ that is not ours; anything else beside the recording
        # (SOURCES.md, captured originals) is left alone.
        if (folder / "root").exists() and not (folder / "host.json").exists():
            raise FileExistsError(f"{folder} has a root/ but no host.json: not a recording")
        for part in ("root", "commands"):
            shutil.rmtree(folder / part, ignore_errors=True)
        root = folder / "root"
        root.mkdir()
        for directory in sorted(self._dirs):
            (root / directory.lstrip("/")).mkdir(parents=True, exist_ok=True)
        for path, text in sorted(self._files.items()):
            local = root / path.lstrip("/")
            local.parent.mkdir(parents=True, exist_ok=True)
            local.write_text(text, encoding="utf-8")
        # Symlinks are kept as data in host.json, not on disk: sysfs is full of link
        # cycles (block/sda/device -> its ancestor, holders <-> slaves) that copying
        # tools (wheels, cp -r, some editors) follow forever.
        links = {
            path: _relative_link(target, os.path.dirname(path))
            for path, target in sorted(self._links.items())
        }
        for path in links:
            (root / os.path.dirname(path).lstrip("/")).mkdir(parents=True, exist_ok=True)
        if self._mountinfo:
            mountinfo = root / "proc/self/mountinfo"
            mountinfo.parent.mkdir(parents=True, exist_ok=True)
            mountinfo.write_text("\n".join(self._mountinfo) + "\n", encoding="utf-8")
        commands: list[dict[str, Any]] = []
        for entry in self._commands:
            entry = dict(entry)
            text = entry.pop("_text", None)
            if text is not None:
                out = folder / entry["stdout_file"]
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(text, encoding="utf-8")
            commands.append(entry)
        meta: dict[str, Any] = {
            "hostname": self.hostname,
            "kernel": self.kernel,
            "is_root": self.is_root,
            "tools": sorted(self._tools),
            "commands": commands,
            "fallback": self._fallback,
            "xattrs": self._xattrs,
            "statvfs": self._statvfs,
            "links": links,
        }
        if self._udev is not None:
            meta["udev"] = self._udev
        (folder / "host.json").write_text(
            json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8"
        )
        return folder

    def _put(self, path: str, text: str, *, newline: bool = True) -> None:
        # sysfs attributes end in a newline; arbitrary files are written as given.
        self._files[path] = text + "\n" if newline else text

    def _link(self, path: str, target: str) -> None:
        self._links[path] = target


def _relative_link(target: str, link_dir: str) -> str:
    """Relative links, like the kernel's, so the folder can be moved or packaged. A link
    up to an ancestor is spelled as sysfs spells it: up past it and back down by name
    (block/sda/device -> ../../../0:0:0:0, not ../..)."""
    if link_dir == target or link_dir.startswith(target.rstrip("/") + "/"):
        parent, name = os.path.split(target)
        return f"{os.path.relpath(parent, link_dir)}/{name}"
    return os.path.relpath(target, link_dir)


def _escape(path: str) -> str:
    """mountinfo's octal escapes for space, tab, newline and backslash."""
    for ch, code in (("\\", "\\134"), (" ", "\\040"), ("\t", "\\011"), ("\n", "\\012")):
        path = path.replace(ch, code)
    return path
