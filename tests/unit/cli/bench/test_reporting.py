"""The progress a benchmark shows while it runs (app/cli/bench/reporting.py)."""

from __future__ import annotations

from tierdeck.app.cli.bench.reporting import RunReporter, rate_text


def test_progress_rate_reads_mib_per_second_read_first() -> None:
    assert rate_text(41932556, 20967302) == "read 40.0 MiB/s  write 20.0 MiB/s"


def test_describe_names_the_live_bars_phase_and_is_quiet_without_a_bar() -> None:
    RunReporter(live=False).describe("3/27 measuring")  # no bar: nothing to update
    with RunReporter(live=True) as reporter:
        reporter.describe("3/27 measuring")
        assert reporter.progress is not None
        assert [t.description for t in reporter.progress.tasks] == ["3/27 measuring"]
