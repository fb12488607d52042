"""A fleet comparison's line per host (screens/bench/fleet_run.py): where its run is,
fio's bandwidth of the last second, then its stored run or why it has none. The state
follows the events app/fleet/bench.py hands over for that host."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from ...app.bench import events as ev
from ...app.clients.plan import ClientSpot
from ...app.fleet.bench import HostBench, HostDone, HostStarted
from ...core.bench_models import RunStatus

MIB = 1048576


@dataclass
class HostLine:
    spot: ClientSpot
    state: str = "waiting"
    bw_mib_s: float | None = None  # fio's last second, read + write
    run_id: int | None = None
    problem: str | None = None  # why it has no run, or why its run failed
    done: bool = False

    def heard(self, event: object) -> None:
        """One event of this host's run."""
        if isinstance(event, HostStarted):
            self.state = "connecting, reading its inventory, checking the target…"
        elif isinstance(event, ev.RunStarted):
            self.state = "fio started"
        elif isinstance(event, ev.Progress):
            self.state = f"{event.phase.value} {event.fraction * 100:3.0f}%"
        elif isinstance(event, ev.SampleReady):
            self.bw_mib_s = event.sample.total_bw_bytes_per_s / MIB
        elif isinstance(event, ev.RunEnded):
            self.state = RunStatus(event.result.status).value
        elif isinstance(event, ev.RunStored):
            self.run_id = event.run_id
        elif isinstance(event, HostDone):
            self.ended(event.outcome)

    def ended(self, outcome: HostBench) -> None:
        self.done = True
        self.problem = outcome.error
        result = outcome.result
        if result is None:
            self.state = "no run"
            return
        self.state = RunStatus(result.status).value
        self.run_id = result.id if result.id is not None else self.run_id
        if result.summary:
            self.bw_mib_s = sum(d.bw_bytes for d in result.summary.values()) / MIB


def host_line(line: HostLine) -> Text:
    """``✔ nas1  /srv/bench  ok  412.3 MiB/s  run #12`` (two lines with a reason)."""
    if not line.done:
        mark = ("… ", "yellow")
    elif line.problem is None and line.state == RunStatus.OK.value:
        mark = ("✔ ", "bold green")
    else:
        mark = ("✘ ", "bold red")
    text = Text.assemble(mark, (line.spot.name, "bold"), f"  {line.spot.path}  {line.state}")
    if line.bw_mib_s is not None:
        text.append(f"  {line.bw_mib_s:.1f} MiB/s")
    if line.run_id is not None:
        text.append(f"  run #{line.run_id}", style="dim")
    if line.problem is not None:
        text.append(f"\n    {line.problem}", style="red")
    return text
