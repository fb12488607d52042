"""Write RecordedHost folders from code (see :class:`tierdeck.backends.host.RecordedHost`).

The demo NAS (scripts/make_demo_host.py), tests and the benchmarks (a 240-disk host, see
:func:`build_large_host`) describe machines with this builder instead of hand-made
folders. The sysfs it writes has the kernel's own shape: ``/sys/block/X`` is a symlink to
``../devices/<bus path>/block/X``, the ``device`` link points at the SCSI/NVMe/virtio
device, partitions are subdirectories with a ``partition`` file, and SCSI strings are
space-padded like the kernel pads them. Backends therefore cannot tell a built host from
a captured one, which is the point.

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

SECTOR = 512
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
            self._udev[name] = _disk_udev(
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
                self._udev[pname] = _partition_udev(
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


def _udev_bus(style: str, vendor: str | None) -> str | None:
    if style == "ata" or (style == "sas" and vendor == "ATA"):
        return "ata"
    return {"scsi": "scsi", "sas": "scsi", "usb": "usb", "nvme": "nvme"}.get(style)


def _id_path(style: str, hctl: str | None, block_dir: str) -> str | None:
    pci = re.search(r"/(0000:[0-9a-f]{2}:[0-9a-f]{2}\.\d)/", block_dir)
    if pci is None:
        return None
    base = f"pci-{pci.group(1)}"
    if hctl is None:
        return base + ("-nvme-1" if style == "nvme" else "")
    host, _channel, target, lun = hctl.split(":")
    if style == "ata":
        return f"{base}-ata-{int(host) + 1}"
    if style == "sas":
        return f"{base}-sas-phy{target}-lun-{lun}"
    return f"{base}-scsi-0:0:{target}:{lun}"


def _disk_udev(
    name: str,
    block_dir: str,
    dev: str,
    style: str,
    hctl: str | None,
    model: str | None,
    vendor: str | None,
    serial: str | None,
    firmware: str | None,
    wwn: str | None,
    by_id: Sequence[str],
    partitioned: bool,
    fs_type: str | None,
    fs_label: str | None,
    fs_uuid: str | None,
) -> dict[str, str]:
    """The keys udevd (60-persistent-storage.rules) sets for a disk, as `udevadm info
    --query=property` lists them on the dev VM (tests/fixtures/disks/*/udevadm/)."""
    major, minor = dev.split(":")
    props = {
        "DEVPATH": block_dir.removeprefix("/sys"),
        "DEVNAME": f"/dev/{name}",
        "DEVTYPE": "disk",
        "MAJOR": major,
        "MINOR": minor,
        "SUBSYSTEM": "block",
    }
    bus = _udev_bus(style, vendor)
    if bus:
        props["ID_BUS"] = bus
    if model:
        props["ID_MODEL"] = model.replace(" ", "_")
    if vendor and bus == "scsi":
        props["ID_VENDOR"] = vendor.replace(" ", "_")
    if firmware:
        props["ID_REVISION"] = firmware
    if serial:
        props["ID_SERIAL_SHORT"] = serial
        props["ID_SERIAL"] = f"{(model or '').replace(' ', '_')}_{serial}".lstrip("_")
    if wwn:
        props["ID_WWN"] = wwn
    id_path = _id_path(style, hctl, block_dir)
    if id_path:
        props["ID_PATH"] = id_path
    if partitioned:
        props["ID_PART_TABLE_TYPE"] = "gpt"
    _fs_props(props, fs_type, fs_label, fs_uuid)
    links = [f"/dev/disk/by-id/{link}" for link in by_id]
    if id_path:
        links.append(f"/dev/disk/by-path/{id_path}")
    if fs_uuid:
        links.append(f"/dev/disk/by-uuid/{fs_uuid}")
    if links:
        props["DEVLINKS"] = " ".join(links)
    props["TAGS"] = ":systemd:"
    return props


def _partition_udev(
    pname: str,
    part_dir: str,
    dev: str,
    spec: PartitionSpec,
    by_id: Sequence[str],
    disk_props: Mapping[str, str],
) -> dict[str, str]:
    major, minor = dev.split(":")
    props = {
        "DEVPATH": part_dir.removeprefix("/sys"),
        "DEVNAME": f"/dev/{pname}",
        "DEVTYPE": "partition",
        "PARTN": str(spec.number),
        "MAJOR": major,
        "MINOR": minor,
        "SUBSYSTEM": "block",
    }
    for key in (
        "ID_BUS",
        "ID_MODEL",
        "ID_VENDOR",
        "ID_REVISION",
        "ID_SERIAL",
        "ID_SERIAL_SHORT",
        "ID_WWN",
        "ID_PATH",
    ):
        if key in disk_props:
            props[key] = disk_props[key]
    props["ID_PART_TABLE_TYPE"] = "gpt"
    _fs_props(props, spec.fs_type, spec.fs_label, spec.fs_uuid)
    props["ID_PART_ENTRY_SCHEME"] = "gpt"
    if spec.part_label:
        props["ID_PART_ENTRY_NAME"] = spec.part_label
    props["ID_PART_ENTRY_NUMBER"] = str(spec.number)
    props["ID_PART_ENTRY_OFFSET"] = str(spec.start_sector)
    props["ID_PART_ENTRY_SIZE"] = str(spec.size_bytes // SECTOR)
    links = [f"/dev/disk/by-id/{link}-part{spec.number}" for link in by_id]
    if "ID_PATH" in props:
        links.append(f"/dev/disk/by-path/{props['ID_PATH']}-part{spec.number}")
    if spec.fs_uuid:
        links.append(f"/dev/disk/by-uuid/{spec.fs_uuid}")
    if spec.fs_label:
        links.append(f"/dev/disk/by-label/{spec.fs_label}")
    if links:
        props["DEVLINKS"] = " ".join(links)
    props["TAGS"] = ":systemd:"
    return props


def _fs_props(
    props: dict[str, str], fs_type: str | None, label: str | None, uuid: str | None
) -> None:
    if label:
        props["ID_FS_LABEL"] = label
        props["ID_FS_LABEL_ENC"] = label
    if uuid:
        props["ID_FS_UUID"] = uuid
        props["ID_FS_UUID_ENC"] = uuid
    if fs_type:
        props["ID_FS_TYPE"] = fs_type
        props["ID_FS_USAGE"] = "raid" if fs_type.endswith("_member") else "filesystem"


# ------------------------------------------------------------------ tool output formats

ZFS_2_1_4_VERSION = "zfs-2.1.4-0ubuntu0.1\nzfs-kmod-2.1.4-0ubuntu0.1\n"

# What OpenZFS 2.1 prints for an option it does not know (2.3's -j), from
# cmd/zpool/zpool_main.c and cmd/zfs/zfs_main.c of 2.1: "invalid option '%c'" and then
# usage(B_FALSE), that is "usage:" and the subcommand's help text, exit status 2.
# `zfs list` follows its usage with the table of dataset properties, left out here.
ZPOOL_2_1_STATUS_USAGE = (
    "invalid option 'j'\n"
    "usage:\n"
    "\tstatus [-c [script1,script2,...]] [-igLpPstvxD]  [-T d|u] [pool] ... \n"
    "\t    [interval [count]]\n"
)
ZFS_2_1_LIST_USAGE = (
    "invalid option 'j'\n"
    "usage:\n"
    "\tlist [-Hp] [-r|-d max] [-o property[,...]] [-s property]...\n"
    "\t    [-S property]... [-t type[,...]] [filesystem|volume|snapshot] ...\n"
    "\nThe following properties are supported:\n"
    "\n\tPROPERTY       EDIT  INHERIT   VALUES\n\n"
)

# The exact argv lists the ZFS backend runs; recordings must use these.
ZFS_VERSION_ARGV = ("zfs", "version")
ZPOOL_STATUS_JSON_ARGV = ("zpool", "status", "-j", "--json-int")
ZPOOL_STATUS_ARGV = ("zpool", "status")
ZPOOL_LIST_ARGV = ("zpool", "list", "-H", "-p", "-o", "name,size,alloc,free,frag,cap,dedup,health")
ZFS_LIST_ARGV = (
    "zfs",
    "list",
    "-H",
    "-p",
    "-t",
    "filesystem,volume",
    "-o",
    "name,type,used,avail,refer,mountpoint",
)


def record_zfs_2_1(
    rec: HostRecording, status: str, pool_lines: Sequence[str], dataset_lines: Sequence[str]
) -> None:
    """The commands of an OpenZFS 2.1.4 host: text output only, and -j refused."""
    rec.add_command(ZFS_VERSION_ARGV, ZFS_2_1_4_VERSION)
    rec.add_command(ZPOOL_STATUS_ARGV, status)
    rec.add_command(ZPOOL_LIST_ARGV, "".join(line + "\n" for line in pool_lines))
    rec.add_command(ZFS_LIST_ARGV, "".join(line + "\n" for line in dataset_lines))
    rec.set_fallback("zpool", ZPOOL_2_1_STATUS_USAGE, 2)
    rec.set_fallback("zfs", ZFS_2_1_LIST_USAGE, 2)


def zpool_status_text(
    pool: str,
    groups: Sequence[tuple[str, Sequence[str]]],
    *,
    scan: str,
    state: str = "ONLINE",
    errors: str = "No known data errors",
    indent: str = "\t",
) -> str:
    """One pool of `zpool status` laid out as OpenZFS 2.1 prints it (status_callback and
    print_status_config): the NAME column is as wide as the deepest name plus its
    indent, at least 10; each row is "%-8s %5s %5s %5s" after two spaces. Every vdev is
    shown healthy with zero error counters. ``groups`` are (vdev name, leaf names)."""
    rows: list[tuple[str, int]] = [(pool, 0)]
    for group, leaves in groups:
        rows.append((group, 2))
        rows.extend((leaf, 4) for leaf in leaves)
    width = max(10, *(depth + len(name) for name, depth in rows))
    lines = [
        f"  pool: {pool}",
        f" state: {state}",
        f"  scan: {scan}",
        "config:",
        "",
        f"{indent}{'NAME':<{width}}  {'STATE':<8} {'READ':>5} {'WRITE':>5} {'CKSUM':>5}",
    ]
    for name, depth in rows:
        lines.append(
            f"{indent}{' ' * depth}{name:<{width - depth}}  {state:<8} {'0':>5} {'0':>5} {'0':>5}"
        )
    lines += ["", f"errors: {errors}"]
    return "\n".join(lines) + "\n"


# `getfattr -d -m - <mount>/.mergerfs` of mergerfs 2.33.5 on the dev VM, mounted with
# `-o fsname=mergerfs,nonempty,allow_other,use_ino` (app/demo_host/captured/ has the raw
# dumps). Branches, srcmounts, mount and pid depend on the mount and are filled in.
MERGERFS_2_33_5_DEFAULTS: dict[str, str] = {
    "async_read": "true",
    "auto_cache": "false",
    "cache.attr": "1",
    "cache.entry": "1",
    "cache.files": "libfuse",
    "cache.negative_entry": "0",
    "cache.readdir": "false",
    "cache.statfs": "0",
    "cache.symlinks": "false",
    "cache.writeback": "false",
    "category.action": "epall",
    "category.create": "epmfs",
    "category.search": "ff",
    "direct_io": "false",
    "dropcacheonclose": "false",
    "follow-symlinks": "never",
    "fsname": "mergerfs",
    "func.access": "ff",
    "func.chmod": "epall",
    "func.chown": "epall",
    "func.create": "epmfs",
    "func.getattr": "ff",
    "func.getxattr": "ff",
    "func.link": "epall",
    "func.listxattr": "ff",
    "func.mkdir": "epmfs",
    "func.mknod": "epmfs",
    "func.open": "ff",
    "func.readlink": "ff",
    "func.removexattr": "epall",
    "func.rename": "epall",
    "func.rmdir": "epall",
    "func.setxattr": "epall",
    "func.symlink": "epmfs",
    "func.truncate": "epall",
    "func.unlink": "epall",
    "func.utimens": "epall",
    "fuse_msg_size": "256",
    "ignorepponrename": "false",
    "inodecalc": "hybrid-hash",
    "kernel_cache": "false",
    "link-exdev": "passthrough",
    "link_cow": "false",
    "log.metrics": "false",
    "minfreespace": "4294967295",
    "moveonenospc": "false",
    "nfsopenhack": "off",
    "nullrw": "false",
    "posix_acl": "false",
    "readdirplus": "false",
    "rename-exdev": "passthrough",
    "security_capability": "true",
    "statfs": "base",
    "statfs_ignore": "none",
    "symlinkify": "false",
    "symlinkify_timeout": "3600",
    "threads": "2",
    "version": "2.33.5",
    "xattr": "passthrough",
}
# Setting category.create sets every function of the create category (seen on 2.33.5
# with category.create=lfs and =eplus).
_CREATE_FUNCS = ("func.create", "func.mkdir", "func.mknod", "func.symlink")
MERGERFS_MOUNT_OPTIONS = "rw,nosuid,nodev,relatime"
MERGERFS_SUPER_OPTIONS = "rw,user_id=0,group_id=0,default_permissions,allow_other"


def mergerfs_xattrs(
    mountpoint: str,
    branches: Sequence[str],
    *,
    pid: int,
    options: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The ``user.mergerfs.*`` attributes of a 2.33.5 pool, keyed by full xattr name."""
    values = dict(MERGERFS_2_33_5_DEFAULTS)
    for key, value in (options or {}).items():
        values[key] = value
        if key == "category.create":
            values.update(dict.fromkeys(_CREATE_FUNCS, value))
    values["branches"] = ":".join(f"{b}=RW" for b in branches)
    values["srcmounts"] = ":".join(branches)
    values["mount"] = mountpoint
    values["pid"] = str(pid)
    return {f"user.mergerfs.{key}": value for key, value in sorted(values.items())}


# ------------------------------------------------------------------------ large host

_LARGE_MODELS = (
    # (ATA model, firmware, bytes): two common 3.5" NAS disks; sizes are their LBA counts
    ("WDC WD180EDGZ-11B2DA0", "85.00A85", 35156656128 * SECTOR),
    ("ST16000NM001G-2KK103", "SN03", 31251759104 * SECTOR),
)
_MIB = 1024 * 1024
_CREATE_POLICIES = ("epmfs", "mfs", "lfs", "eplus", "pfrd")


def build_large_host(
    folder: str | Path, disks: int = 240, zpools: int = 20, mergerfs_pools: int = 10
) -> Path:
    """A big NAS for the benchmarks: ``disks`` SATA disks behind SAS HBAs (60 per HBA),
    ``zpools`` OpenZFS 2.1.4 pools of one raidz2 group of 12 whole disks each (the first
    also holds the root filesystem), the disks left over as ext4 data disks, and
    ``mergerfs_pools`` mergerfs 2.33.5 pools whose branches are the ZFS pools'
    mountpoints and those data disks, dealt round-robin. Returns the folder."""
    if zpools * 12 > disks:
        raise ValueError(f"{zpools} raidz2 pools of 12 disks need {zpools * 12} disks")
    if not 0 < mergerfs_pools <= zpools + disks - zpools * 12:
        raise ValueError("every mergerfs pool needs at least one branch")
    rec = HostRecording(folder, hostname="bignas", kernel="5.15.0-52-generic", udev=True)
    pools = [_LargePool.plan(i) for i in range(zpools)]
    if pools:
        rec.add_mount(
            "/",
            "zfs",
            "tank00/ROOT",
            "0:59",
            options="rw,noatime",
            super_options="rw,xattr,posixacl",
            usage=(pools[0].avail + _ROOT_USED, pools[0].avail, pools[0].avail),
        )
    branches: list[list[str]] = [[] for _ in range(mergerfs_pools)]
    for pool in pools:
        branches[pool.index % mergerfs_pools].append(pool.mountpoint)
    for index in range(disks):
        _add_large_disk(rec, index, zpools, branches)
    for pool in pools:
        pool.mount(rec)
    record_zfs_2_1(
        rec,
        "\n".join(pool.status() for pool in pools),
        [pool.list_line() for pool in pools],
        [line for pool in pools for line in pool.dataset_lines()],
    )
    for index, pool_branches in enumerate(branches):
        mountpoint = f"/mnt/pool{index:02d}"
        # mergerfs with statfs=base adds up its branches' filesystems.
        totals = [sum(rec._statvfs[b][k] for b in pool_branches) for k in ("size", "free", "avail")]
        rec.add_mount(
            mountpoint,
            "fuse.mergerfs",
            "mergerfs",
            f"0:{40 + index}",
            options=MERGERFS_MOUNT_OPTIONS,
            super_options=MERGERFS_SUPER_OPTIONS,
            usage=(totals[0], totals[1], totals[2]),
        )
        options = {
            "category.create": _CREATE_POLICIES[index % len(_CREATE_POLICIES)],
            "minfreespace": str((index % 4 + 1) * 50 * 1024**3),
            "cache.files": "off",
            "dropcacheonclose": "true",
        }
        rec.add_xattrs(
            f"{mountpoint}/.mergerfs",
            mergerfs_xattrs(mountpoint, pool_branches, pid=2000 + index, options=options),
        )
    return rec.write()


_ROOT_USED = 8 * 1024**3


def _large_identity(index: int) -> tuple[str, str, int, str, str]:
    model, firmware, size = _LARGE_MODELS[index % len(_LARGE_MODELS)]
    serial = f"{'ZL' if model.startswith('ST') else '3GJ'}{index:05d}X"
    return model, firmware, size, serial, f"ata-{model.replace(' ', '_')}_{serial}"


def _add_large_disk(rec: HostRecording, index: int, zpools: int, branches: list[list[str]]) -> None:
    name = sd_name(index)
    model, firmware, size, serial, ata_id = _large_identity(index)
    wwn = f"0x5000c500{index:08x}"
    pool_index = index // 12
    if pool_index < zpools:
        pool = f"tank{pool_index:02d}"
        parts = [
            PartitionSpec(
                1,
                size - 10 * _MIB,
                fs_type="zfs_member",
                fs_label=pool,
                part_label="zfs-" + f"{index:016x}",
            ),
            PartitionSpec(9, 8 * _MIB, start_sector=(size - 9 * _MIB) // SECTOR),
        ]
    else:
        parts = [PartitionSpec(1, size - 2 * _MIB, fs_type="ext4", fs_label=f"data{index:03d}")]
    rec.add_disk(
        name,
        size,
        True,
        model=model,
        vendor="ATA",
        serial=serial,
        firmware=firmware,
        wwn=wwn,
        transport="sas",
        hctl=f"{index // 60}:0:{index % 60}:0",
        partitions=parts,
        by_id=[ata_id, f"wwn-{wwn}"],
    )
    if pool_index >= zpools:
        mountpoint = f"/mnt/data{index:03d}"
        used = (index * 37 % 80 + 1) * size // 100
        rec.add_mount(
            mountpoint,
            "ext4",
            f"/dev/{name}1",
            rec.devt(f"{name}1"),
            usage=(size, size - used, size - used - size // 20),
        )
        leftover = index - zpools * 12
        branches[(zpools + leftover) % len(branches)].append(mountpoint)


@dataclass(frozen=True)
class _LargePool:
    index: int
    size: int
    alloc: int
    avail: int

    @classmethod
    def plan(cls, index: int) -> _LargePool:
        members = range(index * 12, index * 12 + 12)
        disk_bytes = min(_large_identity(i)[2] for i in members) - 10 * _MIB
        # raidz2 of 12: zpool list shows raw space; datasets see 10/12 of it, less slop.
        size = disk_bytes // (16 * 1024 * _MIB) * (16 * 1024 * _MIB) * 12
        alloc = size * ((index * 17) % 85 + 5) // 100
        avail = size * 10 // 12 - size // 32 - alloc * 10 // 12
        return cls(index, size, alloc, avail)

    @property
    def name(self) -> str:
        return f"tank{self.index:02d}"

    @property
    def mountpoint(self) -> str:
        return f"/{self.name}"

    @property
    def used(self) -> int:
        return self.alloc * 10 // 12

    def status(self) -> str:
        members = range(self.index * 12, self.index * 12 + 12)
        # Half the pools were created with /dev/sdX names, half with by-id names.
        leaves = [sd_name(i) if self.index % 2 == 0 else _large_identity(i)[4] for i in members]
        i = self.index
        scan = (
            "none requested"
            if i % 5 == 4
            else f"scrub repaired 0B in {i + 3:02d}:{i * 7 % 60:02d}:{i * 13 % 60:02d} "
            f"with 0 errors on Sun Nov 13 {i % 24:02d}:{i * 3 % 60:02d}:00 2022"
        )
        return zpool_status_text(self.name, [("raidz2-0", leaves)], scan=scan)

    def list_line(self) -> str:
        return (
            f"{self.name}\t{self.size}\t{self.alloc}\t{self.size - self.alloc}"
            f"\t{self.index * 3 % 40}\t{self.alloc * 100 // self.size}\t1.00\tONLINE"
        )

    def _children(self) -> list[tuple[str, int]]:
        return [("media", self.used * 70 // 100), ("backup", self.used * 25 // 100)]

    def dataset_lines(self) -> list[str]:
        lines = [f"{self.name}\tfilesystem\t{self.used}\t{self.avail}\t196608\t{self.mountpoint}"]
        if self.index == 0:
            lines.append(
                f"{self.name}/ROOT\tfilesystem\t{_ROOT_USED}\t{self.avail}\t{_ROOT_USED}\t/"
            )
        for child, used in self._children():
            lines.append(
                f"{self.name}/{child}\tfilesystem\t{used}\t{self.avail}\t{used}"
                f"\t{self.mountpoint}/{child}"
            )
        vol = self.used * 5 // 100
        lines.append(f"{self.name}/vm-disk0\tvolume\t{vol}\t{self.avail + vol}\t{vol}\t-")
        return lines

    def mount(self, rec: HostRecording) -> None:
        minor = 60 + self.index * 4
        rec.add_mount(
            self.mountpoint,
            "zfs",
            self.name,
            f"0:{minor}",
            options="rw,noatime",
            super_options="rw,xattr,noacl",
            usage=(self.avail + 196608, self.avail, self.avail),
        )
        for offset, (child, used) in enumerate(self._children(), start=1):
            rec.add_mount(
                f"{self.mountpoint}/{child}",
                "zfs",
                f"{self.name}/{child}",
                f"0:{minor + offset}",
                options="rw,noatime",
                super_options="rw,xattr,noacl",
                usage=(self.avail + used, self.avail, self.avail),
            )
