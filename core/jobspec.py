"""What to run: fio jobs as data, and the presets tierdeck ships.

A :class:`JobSpec` is one fio job section. It validates itself, renders as command-line
arguments (what the runner executes) and as a job file (what the user sees, copies and
can run by hand). ``backends.fio_jobfile`` parses job files back into JobSpecs.

Presets are the benchmarks real NAS owners ran by hand (``/work/shared/seeds``) plus
KDiskMark's CrystalDiskMark-style profiles, each citing where its parameters come from.
Pure data and string work: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from .errors import TierdeckError

DEFAULT_FILENAME_PREFIX = ".tierdeck-bench"
BENCH_FILE_PREFIX = DEFAULT_FILENAME_PREFIX + "."
# fio's own default file naming (HOWTO "filename_format"): one file per job clone
# ($jobnum) and per file of nrfiles ($filenum). tierdeck only puts its prefix in front,
# so every clone gets its own file exactly as with plain fio.
FIO_DEFAULT_FORMAT = "$jobname.$jobnum.$filenum"
FILENAME_FORMAT = BENCH_FILE_PREFIX + FIO_DEFAULT_FORMAT

# fio 3.33 HOWTO "rw=": the valid I/O patterns. A ":<nr>" suffix (e.g. "randread:8")
# is fio's sequence modifier and is allowed after any of them.
RW_MODES = frozenset(
    {
        "read",
        "write",
        "trim",
        "randread",
        "randwrite",
        "randtrim",
        "rw",
        "readwrite",
        "randrw",
        "trimwrite",
        "randtrimwrite",
    }
)

# fio size syntax (HOWTO "kb_base", checked against fio 3.33): a decimal or hex integer
# and an optional k/m/g/t/p/e prefix, any case, written bare or with "b", "i" or "ib"
# ("16Gb" in seed 000, "16Mi"). Under fio's default kb_base=1024 the prefixes are the
# old ones: "4k", "4kb", "4Ki" are 4096, and only the full IEC spelling is decimal:
# "4KiB" is 4000 bytes. kb_base=1000 swaps the two. A hex number takes no prefix.
_SIZE_RE = re.compile(
    r"^(?:(?P<hex>0x[0-9a-f]+)|(?P<n>[0-9]+)(?:(?P<p>[kmgtpe])(?P<s>ib|i|b)?|b)?)$", re.IGNORECASE
)
_PERCENT_RE = re.compile(r"^(?:100|[1-9][0-9]?)%$")
_OPTION_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_ENGINE_RE = re.compile(r"^[A-Za-z0-9_.:/+-]+$")
_FILE_SAFE_RE = re.compile(r"[^A-Za-z0-9._-]")
_POWERS = {"": 0, "b": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5, "e": 6}

# Options that choose *where* fio does I/O. The target decides the directory; a job's
# own filename= stays (inside the target: the preflight checks it), a filename_format
# gets tierdeck's prefix. So an imported job file can never aim fio at /dev/sdb.
TARGET_OPTIONS = frozenset({"filename", "directory", "filename_format", "opendir"})


class JobSpecError(TierdeckError, ValueError):
    """A job spec tierdeck refuses to hand to fio, with the reason in words."""


def _sizes_ok(text: str, *, positive: bool) -> bool:
    """fio's per-direction lists: "4k", "4k,8k", ",20m" (read, write[, trim])."""
    parts = text.split(",")
    if len(parts) > 3 or not any(parts):
        return False
    for part in parts:
        if part == "":
            continue
        value = fio_size_bytes(part)
        if value is None or (positive and value <= 0):
            return False
    return True


def _escape_colon(path: str) -> str:
    # fio splits filename= on ':' (several files per job) unless escaped as "\:"
    return path.replace(":", "\\:")


def fio_size_bytes(text: str, kb_base: int = 1024) -> int | None:
    """fio's size syntax -> bytes, as fio reads it under ``kb_base`` (1024, fio's
    default, or 1000); None if not a size tierdeck reads the way fio does."""
    match = _SIZE_RE.match(text.strip())
    if match is None:
        return None
    if match["hex"]:
        return int(match["hex"], 16)
    number = int(match["n"])
    iec = (match["s"] or "").lower() == "ib"
    base = 1024 if (kb_base == 1000) == iec else 1000
    return int(number * base ** _POWERS[(match["p"] or "").lower()])


@dataclass(frozen=True)
class JobSpec:
    """One fio job. ``None`` means "leave it to fio's default"."""

    name: str
    rw: str
    bs: str = "4k"
    iodepth: int = 1
    numjobs: int = 1
    ioengine: str | None = None
    direct: bool = False
    size: str | None = None
    runtime: int | None = None  # seconds
    time_based: bool = False
    fsync: int = 0  # fsync every N writes (0: never)
    fdatasync: int = 0  # fdatasync every N writes
    end_fsync: bool = False  # one fsync when the job's writes are done (dd conv=fsync)
    group_reporting: bool = False
    rate: str | None = None  # fio's "rate=": bytes/s cap, "20m" or "read,write"
    stonewall: bool = False  # wait for the jobs before it (and start a new group)
    # Jobs with the same file_tag share one file, ".tierdeck-bench.<tag>" (KDiskMark
    # reads what it wrote). Others name their files as fio does.
    file_tag: str | None = None
    # The job's own filename= (fio syntax: several files separated by ':'), relative to
    # the target directory once planned. Its clones share the file(s), as in fio.
    filename: str | None = None
    # Every other fio option, in order; a bare flag ("refill_buffers") maps to None.
    extra: Mapping[str, str | None] = field(default_factory=dict, hash=False)
    # Imported runs only: the options their file stated (fio's names, as options()
    # spells them). Any other option is unknown, not fio's default: a pasted report
    # with only fio's "rw=..., bs=..., ioengine=..., iodepth=..." line never says
    # whether direct=1 was used. None: every option is known (a run of tierdeck, fio's
    # JSON, a pasted command line).
    stated: frozenset[str] | None = None

    # -- checks ----------------------------------------------------------------------

    def validate(self) -> JobSpec:
        """Raise JobSpecError naming the first bad value; return self when fine."""
        if not self.name or self.name.strip() != self.name:
            raise JobSpecError(f"job name {self.name!r}: empty or padded with spaces")
        if self.name == "global" or any(c in self.name for c in "[]\n\r;#=\0/"):
            raise JobSpecError(f"job name {self.name!r}: not usable as a fio section")
        if self.rw.split(":", 1)[0] not in RW_MODES:
            known = ", ".join(sorted(RW_MODES))
            raise JobSpecError(f"{self.name}: rw={self.rw!r} is not one of {known}")
        if not _sizes_ok(self.bs, positive=True):
            raise JobSpecError(f"{self.name}: bs={self.bs!r} is not a block size like 4k or 1M")
        for label, number, least in (
            ("iodepth", self.iodepth, 1),
            ("numjobs", self.numjobs, 1),
            ("fsync", self.fsync, 0),
            ("fdatasync", self.fdatasync, 0),
        ):
            if isinstance(number, bool) or not isinstance(number, int) or number < least:
                raise JobSpecError(
                    f"{self.name}: {label}={number!r} must be a whole number >= {least}"
                )
        if self.ioengine is not None and not _ENGINE_RE.match(self.ioengine):
            raise JobSpecError(f"{self.name}: ioengine={self.ioengine!r} is not an engine name")
        if self.size is not None and not (
            (fio_size_bytes(self.size) or 0) > 0 or _PERCENT_RE.match(self.size)
        ):
            raise JobSpecError(f"{self.name}: size={self.size!r} is not a size like 1G or 50%")
        if self.runtime is not None and (
            isinstance(self.runtime, bool) or not isinstance(self.runtime, int) or self.runtime < 1
        ):
            raise JobSpecError(f"{self.name}: runtime={self.runtime!r} must be seconds >= 1")
        if self.time_based and self.runtime is None:
            raise JobSpecError(f"{self.name}: time_based without runtime would never stop")
        if self.rate is not None and not _sizes_ok(self.rate, positive=False):
            raise JobSpecError(f"{self.name}: rate={self.rate!r} is not like 20m or 10m,5m")
        if self.file_tag is not None and (not self.file_tag or _FILE_SAFE_RE.search(self.file_tag)):
            raise JobSpecError(f"{self.name}: file_tag={self.file_tag!r}: letters, digits, ._-")
        if self.file_tag is not None and self.filename is not None:
            raise JobSpecError(f"{self.name}: file_tag and filename both name the file")
        if self.filename is not None and (
            not self.filename.strip() or any(c in self.filename for c in "\n\r;#\0")
        ):
            raise JobSpecError(f"{self.name}: filename={self.filename!r} is not a file name")
        for key, option in self.extra.items():
            if not _OPTION_NAME_RE.match(key):
                raise JobSpecError(f"{self.name}: {key!r} is not a fio option name")
            if key in _FIELD_OPTIONS:
                raise JobSpecError(f"{self.name}: {key} belongs in its own field, not extra")
            if option is not None and (
                option != option.strip() or any(c in option for c in "\n\r;#\0")
            ):
                # fio cuts a job-file line at ';' or '#' (parse.c strip_blank_end)
                raise JobSpecError(f"{self.name}: {key}={option!r} cannot be written for fio")
        return self

    def states(self, option: str) -> bool:
        """Whether the job's source said what ``option`` was (see ``stated``)."""
        return self.stated is None or option in self.stated

    @property
    def kb_base(self) -> int:
        """How fio reads this job's size prefixes (its kb_base=, 1024 by default)."""
        return 1000 if (self.extra.get("kb_base") or "").strip() == "1000" else 1024

    @property
    def bs_bytes(self) -> int | None:
        """The (first) block size in bytes, for labels like "1 MiB"."""
        first = next((p for p in self.bs.split(",") if p), "")
        return fio_size_bytes(first, self.kb_base)

    # -- rendering ---------------------------------------------------------------------

    def options(self) -> list[tuple[str, str | None]]:
        """The job's fio options in a stable order; (name, None) is a bare flag. An
        option its imported file did not state is left out (it is unknown)."""
        opts: list[tuple[str, str | None]] = [("rw", self.rw), ("bs", self.bs)]
        if self.ioengine is not None:
            opts.append(("ioengine", self.ioengine))
        opts += [("iodepth", str(self.iodepth)), ("numjobs", str(self.numjobs))]
        if self.direct:
            opts.append(("direct", "1"))
        if self.size is not None:
            opts.append(("size", self.size))
        if self.runtime is not None:
            opts.append(("runtime", str(self.runtime)))
        if self.time_based:
            opts.append(("time_based", None))
        if self.fsync:
            opts.append(("fsync", str(self.fsync)))
        if self.fdatasync:
            opts.append(("fdatasync", str(self.fdatasync)))
        if self.end_fsync:
            opts.append(("end_fsync", "1"))
        if self.rate is not None:
            opts.append(("rate", self.rate))
        if self.group_reporting:
            opts.append(("group_reporting", None))
        if self.stonewall:
            opts.append(("stonewall", None))
        opts += list(self.extra.items())
        return [(key, value) for key, value in opts if self.states(key)]

    def unknown(self) -> list[str]:
        """The options of its own fields an imported job's file did not state."""
        return [key for key in _SPEC_OPTION_ORDER if not self.states(key)]

    def file_names(self) -> tuple[str, ...]:
        """The files this job names itself (shared by its clones), as written: the
        file_tag's ".tierdeck-bench.<tag>", or its filename= split at unescaped ':'.
        Empty when fio names the files (one per clone and per nrfiles)."""
        if self.file_tag is not None:
            return (f"{BENCH_FILE_PREFIX}{self.file_tag}",)
        if self.filename is None:
            return ()
        return tuple(name.replace("\\:", ":") for name in _split_colons(self.filename) if name)

    @property
    def writes(self) -> bool:
        mode = self.rw.split(":", 1)[0]
        return mode not in ("read", "randread")

    def to_fio_args(self) -> list[str]:
        """``fio`` arguments for this job: ``--name=...`` first, then its options.

        Several jobs' argument lists can be concatenated into one fio command line:
        each ``--name`` starts a new job. Where the files go is a global option
        (:func:`placement_args`); output options are the runner's business.
        """
        self.validate()
        args = [f"--name={self.name}"]
        names = self.file_names()
        if names:
            args.append(f"--filename={':'.join(_escape_colon(n) for n in names)}")
        for key, value in self._placed_options():
            args.append(f"--{key}" if value is None else f"--{key}={value}")
        return args

    def to_jobfile(self) -> str:
        """This job as a fio job-file section (with [global] placement from
        :func:`jobfile_text` it runs as-is with ``fio FILE``)."""
        self.validate()
        lines = [f"[{self.name}]"]
        if self.unknown():
            lines.append(
                f"; unknown (not in the imported file, or not readable): {', '.join(self.unknown())}"
            )
        names = self.file_names()
        if names:
            lines.append(f"filename={':'.join(_escape_colon(n) for n in names)}")
        for key, value in self._placed_options():
            lines.append(key if value is None else f"{key}={value}")
        return "\n".join(lines) + "\n"

    def _placed_options(self) -> list[tuple[str, str | None]]:
        """options() without the ones that choose the directory; a job's own
        filename_format keeps tierdeck's prefix in front (the preflight adds it)."""
        return [
            (key, value)
            for key, value in self.options()
            if key not in TARGET_OPTIONS or key == "filename_format"
        ]


def _split_colons(text: str) -> list[str]:
    """fio's filename list: ':' separates names, "\\:" is a literal colon."""
    return re.split(r"(?<!\\):", text)


def placement_args(target_dir: str) -> list[str]:
    """Global fio options that put every job's files in ``target_dir`` under fio's own
    naming with tierdeck's prefix: what plain fio does in that directory, plus a name
    tierdeck can find and remove. They go before the first ``--name``."""
    check_target_dir(target_dir, for_jobfile=False)
    return [f"--directory={_escape_colon(target_dir)}", f"--filename_format={FILENAME_FORMAT}"]


def check_target_dir(target_dir: str, *, for_jobfile: bool = True) -> None:
    # fio cuts a job-file line at ';' and '#'; on the command line only NUL and line
    # ends cannot be passed.
    bad = "\n\r\0;#" if for_jobfile else "\n\r\0"
    if not target_dir.startswith("/") or any(c in target_dir for c in bad):
        raise JobSpecError(f"target directory {target_dir!r} cannot be written for fio")


def jobfile_text(jobs: Sequence[JobSpec], target_dir: str | None = None) -> str:
    """Jobs as one fio job file. With ``target_dir`` a [global] section places the files
    exactly as tierdeck does, so the text runs as-is with ``fio FILE``."""
    sections: list[str] = []
    if target_dir is not None:
        check_target_dir(target_dir)
        sections.append(
            f"[global]\ndirectory={_escape_colon(target_dir)}\nfilename_format={FILENAME_FORMAT}\n"
        )
    sections += [job.to_jobfile() for job in jobs]
    return "\n".join(sections)


# The options JobSpec holds in fields of its own, by fio's name (``stated`` names them so).
SPEC_OPTIONS = frozenset(
    {
        "rw",
        "bs",
        "iodepth",
        "numjobs",
        "ioengine",
        "direct",
        "size",
        "runtime",
        "time_based",
        "fsync",
        "fdatasync",
        "end_fsync",
        "group_reporting",
        "rate",
        "stonewall",
        "filename",
    }
)

_SPEC_OPTION_ORDER = sorted(SPEC_OPTIONS)

# Fields with a home of their own; parse_jobfile maps these names (and the aliases fio
# takes for them) onto them.
_FIELD_OPTIONS = SPEC_OPTIONS | {
    "name",
    "readwrite",
    "blocksize",
    "timeout",
    "wait_for_previous",
}


def with_overrides(
    jobs: Sequence[JobSpec],
    size: str | None = None,
    runtime: int | None = None,
    direct: bool | None = None,
) -> tuple[JobSpec, ...]:
    """The jobs with the user's size/runtime/direct applied to every one of them, and
    validated (JobSpecError names the first bad value). The run and the setup screen's
    preview both use this, so the preview is what runs.

    A runtime the user sets is a duration: the job becomes time_based and lasts that
    long (fio loops over its file), instead of stopping early when its size is done."""
    if size is not None and not (fio_size_bytes(size) or 0) > 0:
        raise JobSpecError(f"size {size!r} is not a size like 64M or 4G")
    if runtime is not None and (isinstance(runtime, bool) or runtime < 1):
        raise JobSpecError(f"runtime {runtime!r} must be at least 1 second")
    changes: dict[str, object] = {}
    if size is not None:
        changes["size"] = size
    if runtime is not None:
        changes["runtime"] = runtime
        changes["time_based"] = True
    if direct is not None:
        changes["direct"] = direct
    changes["stated"] = None  # run by tierdeck, every option is what fio is given
    return tuple(replace(job, **changes).validate() for job in jobs)  # type: ignore[arg-type]


def stonewall_groups(jobs: Sequence[JobSpec]) -> list[list[JobSpec]]:
    """The jobs in fio's reporting order: a stonewall starts a new group, and groups run
    one after the other (the jobs of one group run side by side)."""
    groups: list[list[JobSpec]] = []
    for job in jobs:
        if job.stonewall or not groups:
            groups.append([])
        groups[-1].append(job)
    return groups


def group_seconds(group: Sequence[JobSpec]) -> int | None:
    """How long a stonewall group measures: its longest runtime; None when its jobs are
    bound by size alone (unknown in advance)."""
    runtimes = [j.runtime for j in group if j.runtime is not None]
    return max(runtimes) if runtimes else None


def expected_seconds(jobs: Sequence[JobSpec]) -> int | None:
    """How long fio should measure: the groups in turn. None when one is size-bound."""
    total = 0
    for group in stonewall_groups(jobs):
        seconds = group_seconds(group)
        if seconds is None:
            return None
        total += seconds
    return total or None
