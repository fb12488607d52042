"""Ask smartctl about every disk of a host: one scan, then one call per device, several
at once (a bound keeps a 240-disk NAS from starting 240 processes together), each with
``-n standby`` so a sleeping disk is reported asleep instead of being spun up.

On a live host the calls go as one shell script (``_batch_script``): one process
started here (one request over SSH) instead of one per disk; each call's output comes
back framed. A recording answers each call from its file instead.

Everything goes through the host seam (``host.run``), so a remote host works alike.
Without root nothing is run: smartctl cannot open a disk then, and each disk gets only
what sysfs gives anyone (its temperature when a hwmon driver exposes it).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from ...core.errors import HostError, ToolMissing, ToolTimeout
from ..host import Host
from .reading import DeviceDocument, read_text
from .scan import SmartTarget, parse_scan

SMARTCTL = "smartctl"
# smartctl processes at once on one host: each is small (about 2 MB) and spends its time
# waiting on its disk; 64 keep the HBAs of a 240-disk NAS busy (4 x 60 disks, far below
# their queue depths) without starting a process per disk at once
MAX_PARALLEL = 64
# A disk behind a slow bridge can take seconds. No per-call `timeout`: a hung disk
# leaves smartctl in an uninterruptible ioctl that no signal ends before the kernel's
# own command timeout does; the batch as a whole is bounded by host.run's timeout.
CALL_TIMEOUT = 30.0
_FRAME = "@@tierdeck-smart"  # starts no line of smartctl's JSON (nor of its text)
_FRAME_RE = re.compile(r"^" + _FRAME + " ", re.MULTILINE)


@dataclass(frozen=True)
class SmartAnswer:
    target: SmartTarget
    document: DeviceDocument | None  # None: nothing usable came back
    failure: str | None = None  # why there is no document


def device_argv(target: SmartTarget) -> list[str]:
    argv = [SMARTCTL, "--json", "-n", "standby", "-a"]
    if target.device_type:
        argv += ["-d", target.device_type]
    return [*argv, target.device]


def scan(host: Host) -> tuple[list[tuple[str, str | None, str | None]], str | None]:
    """The devices ``--scan-open`` lists, and why there are none when it failed."""
    try:
        result = host.run([SMARTCTL, "--json", "--scan-open"], timeout=CALL_TIMEOUT)
    except ToolMissing:
        return [], "smartctl is not installed (smartmontools >= 7)"
    except HostError as exc:
        return [], f"smartctl --scan-open: {exc}"
    if not result.stdout.lstrip().startswith("{"):
        # smartctl 6 has no --json: it prints its usage and exits 1
        return [], "smartctl is older than 7 (no --json): install smartmontools >= 7"
    return parse_scan(result.stdout), None


def _batch_script(targets: list[SmartTarget], lanes: int) -> str:
    """One POSIX sh script that reads every target, ``lanes`` calls at a time: each lane
    a background subshell running its share in turn. Each call's stdout and stderr go to
    files of a private folder behind a frame line (and its exit status after), all
    printed by one ``cat`` at the end. One command for the whole NAS: a remote host gets
    one request, and this process starts one process instead of one per disk."""
    lines = [
        "set -u",
        'dir=$(mktemp -d "${TMPDIR:-/tmp}/tierdeck-smart.XXXXXX") || exit 125',
        "trap 'rm -rf \"$dir\"' EXIT",
        "one() {",
        f"  i=$1; shift; printf '{_FRAME} O %s\\n' $i >\"$dir/$i.o\"; printf '{_FRAME} E %s\\n' $i >\"$dir/$i.e\"",
        '  "$@" >>"$dir/$i.o" 2>>"$dir/$i.e"',
        f"  printf '\\n{_FRAME} R %s %s\\n' $i $? >>\"$dir/$i.o\"",
        "}",
    ]
    for lane in range(lanes):
        calls = [
            f"one {i} {' '.join(shlex.quote(a) for a in device_argv(t))}"
            for i, t in enumerate(targets)
            if i % lanes == lane
        ]
        lines.append("( " + "; ".join(calls) + " ) &")
    lines += ["wait", 'cat "$dir"/*']
    return "\n".join(lines) + "\n"


def _answer(target: SmartTarget, returncode: int, stdout: str, stderr: str) -> SmartAnswer:
    document = read_text(stdout)
    if document is None:
        detail = (stderr or stdout).strip().splitlines()
        why = detail[0] if detail else f"exit status {returncode}"
        return SmartAnswer(target, None, f"smartctl gave no JSON: {why[:200]}")
    return SmartAnswer(target, document)


def _split(output: str, count: int) -> dict[int, tuple[int, str, str]]:
    """The batch's output, framed per call: {index: (exit status, stdout, stderr)}.
    A call without its exit status line (the batch was cut short) is left out."""
    outs: dict[int, str] = {}
    errs: dict[int, str] = {}
    codes: dict[int, int] = {}
    for chunk in _FRAME_RE.split(output)[1:]:
        header, _, body = chunk.partition("\n")
        words = header.split()
        if len(words) < 2 or not all(
            w.isascii() and w.isdigit() and len(w) < 10 for w in words[1:]
        ):
            continue
        index = int(words[1])
        if words[0] == "O":
            outs[index] = body
        elif words[0] == "E":
            errs[index] = body
        elif words[0] == "R" and len(words) == 3:
            codes[index] = int(words[2])
    return {i: (codes[i], outs.get(i, ""), errs.get(i, ""))
            for i in range(count) if i in codes}  # fmt: skip


def _read_one(host: Host, target: SmartTarget) -> SmartAnswer:
    try:
        result = host.run(device_argv(target), timeout=CALL_TIMEOUT)
    except HostError as exc:
        return SmartAnswer(target, None, str(exc))
    return _answer(target, result.returncode, result.stdout, result.stderr)


def read_devices(host: Host, targets: list[SmartTarget]) -> list[SmartAnswer]:
    """Every target's answer, in the targets' order, at most MAX_PARALLEL at a time."""
    if not targets:
        return []
    if not host.capabilities.live:
        # a recording runs nothing: it answers each call from its file, at once
        return [_read_one(host, t) for t in targets]
    lanes = min(MAX_PARALLEL, len(targets))
    rounds = -(-len(targets) // lanes)
    try:
        result = host.run(["sh", "-c", _batch_script(targets, lanes)],
                          timeout=CALL_TIMEOUT * rounds + 30)  # fmt: skip
    except ToolTimeout:
        return [SmartAnswer(t, None, "smartctl calls did not finish in time") for t in targets]
    except HostError as exc:
        return [SmartAnswer(t, None, f"smartctl calls could not run: {exc}") for t in targets]
    answers = _split(result.stdout, len(targets))
    return [
        _answer(t, *answers[i]) if i in answers
        else SmartAnswer(t, None, f"no answer ({result.stderr.strip()[:200] or 'batch failed'})")
        for i, t in enumerate(targets)
    ]  # fmt: skip


def hwmon_temperature(host: Host, disk: str) -> int | None:
    """The disk's temperature from sysfs (the drivetemp driver for SATA, the nvme
    driver's own hwmon), readable without root; None when neither is there."""
    base = f"/sys/block/{disk}/device"
    for folder in (f"{base}/hwmon", base):
        try:
            entries = [e for e in host.listdir(folder) if e.startswith("hwmon") and e != "hwmon"]
        except (OSError, HostError):
            continue
        for entry in entries:
            try:
                text = host.read_text(f"{folder}/{entry}/temp1_input").strip()
            except (OSError, HostError):
                continue
            if text.isascii() and text.lstrip("-").isdigit() and len(text) < 10:
                return round(int(text) / 1000)
    return None
