"""The fio result models: small behaviours the screens rely on."""

from __future__ import annotations

from dataclasses import replace

from tierdeck.core.errors import TierdeckError
from tierdeck.core.fio_models import (
    EMPTY_DIRECTION,
    EMPTY_SAMPLE_DIRECTION,
    Direction,
    DirectionSample,
    FioError,
    FioJobResult,
    FioReport,
    Sample,
)

from ...paths import FIXTURES as ALL_FIXTURES

FIXTURES = ALL_FIXTURES / "fio"


def report(version: str) -> FioReport:
    return FioReport(version, None, None, (), EMPTY_DIRECTION, EMPTY_DIRECTION, EMPTY_DIRECTION)


def test_version_tuple() -> None:
    assert report("fio-3.33").version_tuple == (3, 33)
    assert report("fio-2.2.10").version_tuple == (2, 2, 10)
    assert report("fio-3.35-12-gabcdef").version_tuple == (3, 35)
    assert report("garbage").version_tuple == ()
    assert report("fio-3.³3").version_tuple == (3,)  # "³".isdigit(), but no int


def test_direction_lookup_and_totals() -> None:
    read = DirectionSample(100.0, 1.0, 5.0, None)
    write = DirectionSample(50.0, 2.0, None, None)
    sample = Sample(t=1.0, interval_s=1.0, read=read, write=write)
    assert sample.direction(Direction.WRITE) is write
    assert sample.direction(Direction.TRIM) is EMPTY_SAMPLE_DIRECTION
    assert sample.total_bw_bytes_per_s == 150.0
    job = FioJobResult("j", 0, 0, EMPTY_DIRECTION, replace(EMPTY_DIRECTION, io_bytes=1),
                       EMPTY_DIRECTION)  # fmt: skip
    assert job.has_io and job.direction(Direction.WRITE).io_bytes == 1


def test_fio_error_without_jobs_uses_fio_own_line() -> None:
    # the real line from tests/fixtures/fio/fio333_odirect_ramfs.stdout
    line = (FIXTURES / "fio333_odirect_ramfs.stdout").read_text(encoding="utf-8").splitlines()[0]
    error = FioError([], [line])
    assert isinstance(error, TierdeckError)
    assert str(error) == f"fio failed; {line}"
    assert str(FioError([("w", 28)])) == "fio job failed: w (err=28: No space left on device)"


def test_failed_clones_of_one_job_are_named_once_with_a_count() -> None:
    from tierdeck.core.fio_models import FioError

    error = FioError([("fill-up", 28)] * 4 + [("other", 22)])
    assert str(error) == (
        "fio job failed: fill-up (err=28: No space left on device) x4, "
        "other (err=22: Invalid argument)"
    )


def test_iec_units_name_themselves() -> None:
    from tierdeck.core.units import fmt_bytes

    assert [fmt_bytes(n) for n in (512, 116 * 2**20, 5.7 * 2**30, 1536)] == [
        "512 B",
        "116 MiB",
        "5.7 GiB",
        "1.5 KiB",
    ]
