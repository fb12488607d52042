"""The JSON forms of OpenZFS >= 2.3: ``zpool status -j``, ``zpool list -j``, ``zfs list -j``.

All three are run with ``--json-int``, yet values may still come as strings ("1.00x",
"-"), so every value goes through the loose readers of :mod:`zfs_common`. The vdev tree
comes nested under the pool's root vdev, or flat with ``--json-flat-vdevs``; both are
read. Where JSON carries enum names or raw numbers instead of zpool's words (``aux``,
scan progress), they are turned into the words the text form prints, so the same pool
reads the same whichever form the host answered in.
"""

from __future__ import annotations

import json
from typing import Any

from ...core.errors import ParseError
from ...core.models import ScanStatus, Vdev, VdevClass, VdevKind, ZfsDataset, ZPool
from .common import (
    DATASET_KINDS,
    PoolCapacity,
    counter,
    guarded,
    kind_from_name,
    optional_int,
    optional_ratio,
    with_class,
)

# ------------------------------------------------------------------ zpool status -j

_AUX_NOTES = {
    "OPEN_FAILED": "cannot open",
    "BAD_GUID_SUM": "missing device",
    "NO_REPLICAS": "insufficient replicas",
    "VERSION_NEWER": "newer version",
    "UNSUP_FEAT": "unsupported feature(s)",
    "ASHIFT_TOO_BIG": "unsupported minimum blocksize",
    "SPARED": "currently in use",
    "ERR_EXCEEDED": "too many errors",
    "IO_FAILURE": "experienced I/O failures",
    "BAD_LOG": "bad intent log",
    "EXTERNAL": "external device fault",
    "SPLIT_POOL": "split into new pool",
    "ACTIVE": "currently in use",
    "CHILDREN_OFFLINE": "all children offline",
    "BAD_LABEL": "invalid label",
}
_JSON_KINDS = {
    "root": VdevKind.ROOT,
    "mirror": VdevKind.MIRROR,
    "raidz": VdevKind.RAIDZ,
    "draid": VdevKind.DRAID,
    "replacing": VdevKind.REPLACING,
    "spare": VdevKind.SPARE,
    "disk": VdevKind.DISK,
    "file": VdevKind.FILE,
    "dspare": VdevKind.DISK,
    "missing": VdevKind.MISSING,
    "indirect": VdevKind.INDIRECT,
}
_JSON_CLASS_KEYS = (
    ("logs", VdevClass.LOG),
    ("l2cache", VdevClass.CACHE),
    ("spares", VdevClass.SPARE),
    ("special", VdevClass.SPECIAL),
    ("dedup", VdevClass.DEDUP),
)


def _obj(value: Any, source: str, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ParseError(source, f"{what} is not an object")
    return value


def _str(value: Any, default: str | None = None) -> str | None:
    return value if isinstance(value, str) else default


def _json_scan(scan: Any) -> ScanStatus | None:
    if not isinstance(scan, dict):
        return None
    source = "zpool status -j"
    function = {"SCRUB": "scrub", "RESILVER": "resilver", "ERRORSCRUB": "scrub"}.get(
        str(scan.get("function", "NONE")), "none"
    )
    state = {
        "SCANNING": "in_progress",
        "FINISHED": "finished",
        "CANCELED": "canceled",
        "ERRORSCRUBBING": "in_progress",
    }.get(str(scan.get("state", "NONE")), "none")
    percent = None
    if state == "in_progress":
        issued = optional_int(scan.get("issued"), source)
        total = optional_int(scan.get("to_examine"), source)
        skipped = optional_int(scan.get("skipped"), source) or 0
        if issued is not None and total and total - skipped > 0:
            percent = round(100.0 * issued / (total - skipped), 2)
    # dRAID sequential rebuilds report separately from the scrub/resilver scan
    rebuilds = scan.get("rebuild_stats")
    if isinstance(rebuilds, dict) and state != "in_progress":
        for rebuild in rebuilds.values():
            if isinstance(rebuild, dict) and rebuild.get("state") == "ACTIVE":
                function, state = "resilver", "in_progress"
                done = optional_int(rebuild.get("scanned"), source)
                total = optional_int(rebuild.get("to_scan"), source)
                percent = round(100.0 * done / total, 2) if done is not None and total else None
                break
    if function == "none" and state == "none":
        return ScanStatus(function="none", state="none", text="none requested")
    # JSON has numbers, not zpool's sentence: say the same thing in a few words
    words = {"in_progress": "in progress", "finished": "finished", "canceled": "canceled"}
    summary = f"{function} {words.get(state, state)}"
    if percent is not None:
        summary += f", {percent:.2f}% done"
    return ScanStatus(function=function, state=state, text=summary, percent_done=percent)


def _json_vdev(key: str, data: Any, *, spare_section: bool, scan: dict[str, Any] | None) -> Vdev:
    source = "zpool status -j"
    data = _obj(data, source, f"vdev {key!r}")
    name = _str(data.get("name"), key) or key
    raw_children = data.get("vdevs", {})
    children_obj = _obj(raw_children, source, f"children of {name!r}") if raw_children else {}
    children = tuple(
        _json_vdev(k, v, spare_section=spare_section, scan=scan) for k, v in children_obj.items()
    )
    name_kind, parity, spec = kind_from_name(name, bool(children))
    vdev_type = _str(data.get("vdev_type"))
    # 2.3.2 omits vdev_type and state for dRAID vdevs (openzfs/zfs#18431): use the name
    kind = _JSON_KINDS.get(vdev_type, name_kind) if vdev_type else name_kind
    if "not_present" in data:
        kind = VdevKind.MISSING
    state = _str(data.get("state"), "UNKNOWN") or "UNKNOWN"
    notes = []
    if "was" in data:
        notes.append(f"was {data['was']}")
    elif isinstance(data.get("aux"), str):
        notes.append(_AUX_NOTES.get(data["aux"], "corrupted data"))
    if (
        scan is not None
        and scan.get("state") == "SCANNING"
        and not children
        and state == "ONLINE"
        and not spare_section
    ):
        if optional_int(data.get("scan_processed"), source):
            resilver = scan.get("function") == "RESILVER"
            notes.append("(resilvering)" if resilver else "(repairing)")
        elif optional_int(data.get("resilver_deferred"), source):
            notes.append("(awaiting resilver)")
    return Vdev(
        name=name,
        kind=kind,
        state=state,
        read_errors=counter(data.get("read_errors"), source),
        write_errors=counter(data.get("write_errors"), source),
        checksum_errors=counter(data.get("checksum_errors"), source),
        note="  ".join(notes) or None,
        children=children,
        parity=parity if kind in (VdevKind.RAIDZ, VdevKind.DRAID) else None,
        draid_config=spec if kind is VdevKind.DRAID else None,
    )


def _json_pool(key: str, data: Any) -> ZPool:
    source = "zpool status -j"
    data = _obj(data, source, f"pool {key!r}")
    name = _str(data.get("name"), key) or key
    scan_raw = data.get("scan_stats")
    scan = scan_raw if isinstance(scan_raw, dict) else None
    vdevs_obj = _obj(data.get("vdevs", {}), source, f"vdevs of pool {name!r}")
    root: Vdev | None = None
    top: list[Vdev] = []
    for vkey, vdata in vdevs_obj.items():
        vdev = _json_vdev(vkey, vdata, spare_section=False, scan=scan)
        if vdev.kind is VdevKind.ROOT or (root is None and vdev.name == name):
            root = vdev
            top.extend(vdev.children)
        else:
            top.append(vdev)  # --json-flat-vdevs style: no root wrapper
    sections: dict[VdevClass, tuple[Vdev, ...]] = {}
    for json_key, vdev_class in _JSON_CLASS_KEYS:
        raw = data.get(json_key)
        if raw is None:
            continue
        members = _obj(raw, source, f"{json_key} of pool {name!r}")
        sections[vdev_class] = tuple(
            with_class(
                _json_vdev(k, v, spare_section=vdev_class is VdevClass.SPARE, scan=scan),
                vdev_class,
            )
            for k, v in members.items()
        )
    error_count = data.get("error_count")
    errors = None
    if error_count is not None:
        nerr = counter(error_count, source)
        # the words zpool status prints for the same count
        errors = "No known data errors" if nerr == 0 else f"{nerr} data errors"
    state = _str(data.get("state")) or (root.state if root else None)
    if state is None:
        raise ParseError(source, f"pool {name} has no state")

    def paragraph(key: str) -> str | None:
        joined = " ".join((_str(data.get(key)) or "").split())
        return joined or None

    return ZPool(
        name=name,
        state=state,
        vdevs=tuple(top),
        logs=sections.get(VdevClass.LOG, ()),
        cache=sections.get(VdevClass.CACHE, ()),
        spares=sections.get(VdevClass.SPARE, ()),
        special=sections.get(VdevClass.SPECIAL, ()),
        dedup=sections.get(VdevClass.DEDUP, ()),
        read_errors=root.read_errors if root else 0,
        write_errors=root.write_errors if root else 0,
        checksum_errors=root.checksum_errors if root else 0,
        status=paragraph("status"),
        action=paragraph("action"),
        scan=_json_scan(scan),
        errors=errors,
    )


def _load_json(text: str, source: str, top_key: str) -> dict[str, Any]:
    if not isinstance(text, str):
        raise ParseError(source, "not text")
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ParseError(source, f"not JSON: {exc}") from exc
    document = _obj(document, source, "the document")
    items = document.get(top_key, {})
    return _obj(items, source, f'"{top_key}"')


def parse_zpool_status_json(text: str) -> tuple[ZPool, ...]:
    """``zpool status -j [--json-int]`` (OpenZFS >= 2.3) -> pools with their vdev trees."""
    source = "zpool status -j"
    pools = _load_json(text, source, "pools")
    return guarded(source, lambda: tuple(_json_pool(k, v) for k, v in pools.items()))


# ------------------------------------------------------------------ list -j


def _prop(props: dict[str, Any], key: str) -> Any:
    entry = props.get(key)
    return entry.get("value") if isinstance(entry, dict) else None


def parse_zpool_list_json(text: str) -> dict[str, PoolCapacity]:
    """``zpool list -j [--json-int]`` (OpenZFS >= 2.3) -> by pool name."""
    source = "zpool list -j"
    pools = _load_json(text, source, "pools")

    def build() -> dict[str, PoolCapacity]:
        result = {}
        for key, raw in pools.items():
            data = _obj(raw, source, f"pool {key!r}")
            name = _str(data.get("name"), key) or key
            props = _obj(data.get("properties", {}), source, f"properties of {name!r}")
            health = _prop(props, "health")
            result[name] = PoolCapacity(
                name=name,
                size_bytes=optional_int(_prop(props, "size"), source),
                alloc_bytes=optional_int(_prop(props, "allocated"), source),
                free_bytes=optional_int(_prop(props, "free"), source),
                fragmentation_pct=optional_int(_prop(props, "fragmentation"), source),
                capacity_pct=optional_int(_prop(props, "capacity"), source),
                dedup_ratio=optional_ratio(_prop(props, "dedupratio"), source),
                health=_str(health) or _str(data.get("state")),
            )
        return result

    return guarded(source, build)


def parse_zfs_list_json(text: str) -> tuple[ZfsDataset, ...]:
    """``zfs list -j [--json-int]`` (OpenZFS >= 2.3)."""
    source = "zfs list -j"
    items = _load_json(text, source, "datasets")

    def build() -> tuple[ZfsDataset, ...]:
        datasets = []
        for key, raw in items.items():
            data = _obj(raw, source, f"dataset {key!r}")
            name = _str(data.get("name"), key) or key
            props = _obj(data.get("properties", {}), source, f"properties of {name!r}")
            kind = (_str(data.get("type")) or _str(_prop(props, "type")) or "").lower()
            if kind not in DATASET_KINDS:
                raise ParseError(source, f"unknown dataset type {kind!r} for {name}")
            mountpoint = _prop(props, "mountpoint")
            datasets.append(
                ZfsDataset(
                    name=name,
                    kind=kind,
                    used_bytes=optional_int(_prop(props, "used"), source),
                    avail_bytes=optional_int(_prop(props, "available"), source),
                    refer_bytes=optional_int(_prop(props, "referenced"), source),
                    mountpoint=(
                        mountpoint if isinstance(mountpoint, str) and mountpoint != "-" else None
                    ),
                )
            )
        return tuple(datasets)

    return guarded(source, build)
