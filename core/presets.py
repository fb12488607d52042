"""The presets tierdeck ships: the benchmarks real NAS owners ran by hand (their
published notes) plus KDiskMark's CrystalDiskMark-style profiles, each citing where its
parameters come from. :func:`find_preset` is the one lookup by name or former name.
Pure data: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .jobspec import JobSpec, jobfile_text


@dataclass(frozen=True)
class Preset:
    """A named benchmark: one or more jobs run in order, and where they come from."""

    name: str  # stable id, after what it measures: "nas-seqwrite-1m-qd8x8"
    title: str
    source: str  # where the parameters were taken from, in words or as a URL
    description: str
    jobs: tuple[JobSpec, ...]
    lay_out_first: bool = False  # create the files before measuring (fio --create_only)
    drop_caches: bool = False  # echo 3 > /proc/sys/vm/drop_caches before each job
    # Former names, still accepted wherever a name is taken: stored runs, sweep files
    # and scripts that name them keep working.
    aliases: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    def to_jobfile(self, target_dir: str | None = None) -> str:
        header = [f"; {self.title}", f"; source: {self.source}"]
        return "\n".join(header) + "\n\n" + jobfile_text(self.jobs, target_dir)


def _kdiskmark_job(label: str, rw: str, bs: str, qd: int, threads: int) -> JobSpec:
    # Arguments of KDiskMark's Benchmark::startTest(); runtime is its "measuring time"
    # (default 5 s), size its default 1024 MiB test file, shared by all tests.
    return JobSpec(
        name=f"{label}-{'read' if 'read' in rw else 'write'}",
        rw=rw,
        bs=bs,
        iodepth=qd,
        numjobs=threads,
        ioengine="libaio",
        direct=True,
        size="1024m",
        runtime=5,
        end_fsync=True,
        stonewall=True,
        file_tag="kdiskmark",
        extra={"randrepeat": "0", "refill_buffers": None, "zero_buffers": "0"},
    )


def _kdiskmark(tests: tuple[tuple[str, str, int, int], ...]) -> tuple[JobSpec, ...]:
    reads = [
        _kdiskmark_job(label, "read" if label.startswith("SEQ") else "randread", bs, qd, t)
        for label, bs, qd, t in tests
    ]
    writes = [
        _kdiskmark_job(label, "write" if label.startswith("SEQ") else "randwrite", bs, qd, t)
        for label, bs, qd, t in tests
    ]
    jobs = reads + writes
    # The first job has nothing to wait for.
    return (replace(jobs[0], stonewall=False), *jobs[1:])


KDISKMARK_SOURCE = (
    "https://github.com/JonMagon/KDiskMark/blob/master/src/benchmark.cpp (fio arguments) "
    "and src/appsettings.cpp defaultBenchmarkParams (profiles)"
)

_SUITE_NOTE = (
    "The notes show the job names, rw, bs, ioengine=libaio, iodepth=64 and 60-second runs "
    "(run=60001msec); their script is not shown, so direct=1, numjobs=1 and size=4G are "
    "tierdeck's choices."
)

PRESETS: tuple[Preset, ...] = (
    Preset(
        name="nas-seqwrite-1m-qd8x8",
        aliases=("seed000-seqwrite",),
        title="Sequential write 1M, QD8 x 8 jobs",
        source=(
            "a home NAS owner's published notes measuring mergerfs over a ZFS pool and "
            "HDDs, 2022 (ZFS 0.8.4, then 2.1.4)"
        ),
        description=(
            "Backup-style large sequential writes, run on every layer of a mergerfs/ZFS "
            "NAS (raw pool 1240 MiB/s vs 374 MiB/s through mergerfs). The notes' command: fio "
            "--name=fiotest --size=16Gb --rw=write --bs=1M --direct=1 --numjobs=8 "
            "--ioengine=libaio --iodepth=8 --group_reporting --runtime=60 --startdelay=60. "
            "tierdeck drops --startdelay (it shows the live graph instead)."
        ),
        jobs=(
            JobSpec(
                name="fiotest",
                rw="write",
                bs="1M",
                iodepth=8,
                numjobs=8,
                ioengine="libaio",
                direct=True,
                size="16G",
                runtime=60,
                group_reporting=True,
            ),
        ),
    ),
    Preset(
        name="suite-seq1m-rand4k-qd64",
        aliases=("seed002-suite",),
        title="Four-test suite: seq/rand write, seq/rand read",
        source=(
            "a home server owner's notes comparing storage stacks for an NVMe cache "
            "(mdadm with btrfs or ext4, ZFS, btrfs), with a four-test fio script"
        ),
        description=(
            "Sequential write 1M, random write 4K QD64, sequential read 1M QD64, random "
            "read 4K QD64, used to compare mdadm+btrfs, mdadm+ext4, ZFS on md and native "
            "ZFS/btrfs mirrors. " + _SUITE_NOTE
        ),
        jobs=tuple(
            JobSpec(
                name=name,
                rw=rw,
                bs=bs,
                iodepth=64,
                ioengine="libaio",
                direct=True,
                size="4G",
                runtime=60,
                time_based=True,
                group_reporting=True,
                stonewall=i > 0,
            )
            for i, (name, rw, bs) in enumerate(
                (
                    ("write_throughput", "write", "1M"),
                    ("write_iops", "randwrite", "4K"),
                    ("read_throughput", "read", "1M"),
                    ("read_iops", "randread", "4K"),
                )
            )
        ),
    ),
    Preset(
        name="kdiskmark-standard",
        title="KDiskMark / CrystalDiskMark standard profile",
        source=KDISKMARK_SOURCE,
        description=(
            "SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1; reads, then writes. "
            "KDiskMark repeats each test 5 times with 5 s pauses and averages; tierdeck "
            "runs each once and graphs it."
        ),
        jobs=_kdiskmark(
            (
                ("SEQ1M-Q8T1", "1024k", 8, 1),
                ("SEQ1M-Q1T1", "1024k", 1, 1),
                ("RND4K-Q32T1", "4k", 32, 1),
                ("RND4K-Q1T1", "4k", 1, 1),
            )
        ),
        lay_out_first=True,
        drop_caches=True,
    ),
    Preset(
        name="kdiskmark-nvme",
        title="KDiskMark / CrystalDiskMark NVMe SSD profile",
        source=KDISKMARK_SOURCE,
        description=(
            "SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1; reads, then writes. "
            "KDiskMark repeats each test 5 times with 5 s pauses and averages; tierdeck "
            "runs each once and graphs it."
        ),
        jobs=_kdiskmark(
            (
                ("SEQ1M-Q8T1", "1024k", 8, 1),
                ("SEQ128K-Q32T1", "128k", 32, 1),
                ("RND4K-Q32T16", "4k", 32, 16),
                ("RND4K-Q1T1", "4k", 1, 1),
            )
        ),
        lay_out_first=True,
        drop_caches=True,
    ),
    Preset(
        name="uncached-randread-16k-sync",
        aliases=("seed001-uncached-randread",),
        title="Uncached 16K random read (sync engine)",
        source=(
            'Jim Salter\'s blog post "ZFS does NOT favor lower latency devices" (2018): '
            "a ZFS mirror of one HDD and one SSD"
        ),
        description=(
            "Shows whether a mirror reads from its faster member: 16K random reads with "
            "every cache dropped first. The post's command: fio --name=read --ioengine=sync "
            "--rw=randread --bs=16K --size=1G --numjobs=1 --end_fsync=1, run once to lay "
            "the file out, then again after dropping caches. On ZFS the ARC survives "
            "drop_caches: the post exported and re-imported the pool, which tierdeck "
            "leaves to you."
        ),
        jobs=(
            JobSpec(
                name="read",
                rw="randread",
                bs="16K",
                ioengine="sync",
                size="1G",
                numjobs=1,
                end_fsync=True,
            ),
        ),
        lay_out_first=True,
        drop_caches=True,
    ),
    Preset(
        name="dd-1m-and-512b-sync",
        aliases=("seed004-dd",),
        title="dd-style 1M write/read, and the 512-byte overhead check",
        source="mergerfs's documentation, its Benchmarking page (dd, caches dropped)",
        description=(
            "mergerfs's own method: dd bs=1M count=1024 conv=fdatasync (write) and iflag="
            "nocache (read), caches dropped first; then the same with 512-byte I/O, where "
            "mergerfs fell from 4.9 GB/s to 69.7 MB/s. fio equivalent: sync engine, one "
            "job, end_fsync for conv=fdatasync. The 512-byte runs use 64M, not 1G, so "
            "they finish in reasonable time (tierdeck's choice)."
        ),
        jobs=(
            JobSpec(
                name="dd-write-1M",
                rw="write",
                bs="1M",
                ioengine="sync",
                size="1G",
                end_fsync=True,
                file_tag="dd-1M",
            ),
            JobSpec(
                name="dd-read-1M",
                rw="read",
                bs="1M",
                ioengine="sync",
                size="1G",
                stonewall=True,
                file_tag="dd-1M",
            ),
            JobSpec(
                name="dd-write-512",
                rw="write",
                bs="512",
                ioengine="sync",
                size="64M",
                end_fsync=True,
                stonewall=True,
                file_tag="dd-512",
            ),
            JobSpec(
                name="dd-read-512",
                rw="read",
                bs="512",
                ioengine="sync",
                size="64M",
                stonewall=True,
                file_tag="dd-512",
            ),
        ),
        drop_caches=True,
    ),
)


def find_preset(name: str | None) -> Preset | None:
    """The preset called ``name`` (or formerly so), or None (a custom job, or an
    unknown name)."""
    return next((p for p in PRESETS if name in p.names), None)


def preset(name: str) -> Preset:
    """The preset called ``name``; KeyError when there is none."""
    found = find_preset(name)
    if found is None:
        raise KeyError(name)
    return found
