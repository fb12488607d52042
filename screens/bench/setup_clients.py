"""The setup screen's way to fleet hosts (ctrl+l): the job shown, from every picked host
at once on fio's client/server (a ``--clients`` run), or on each host's own storage,
one at a time or all at once, then compared (a ``--hosts`` run). Both write test files
on the hosts: a confirmation says where first. Apart from the form: it only needs the
form's jobs and options.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ...app.clients.plan import ClientSpot
from ...app.fleet.config import FleetConfigError, load_fleet
from ...app.tui.context import context
from .clients_pick import AT_ONCE, PARALLEL, ClientsPickScreen, HostsPicked

if TYPE_CHECKING:
    from textual.screen import Screen

    from ...core.jobspec import JobSpec
    from ...core.presets import Preset
    from ...widgets.bench.run_options import RunOptions

    _Base = Screen[None]
else:
    _Base = object


class ClientsFromSetup(_Base):
    """Mixed into the setup screen."""

    if TYPE_CHECKING:

        @property
        def preset(self) -> Preset | None: ...
        @property
        def options(self) -> RunOptions: ...
        def base_jobs(self) -> tuple[tuple[JobSpec, ...], str | None]: ...
        def _show_job_error(self, error: str | None) -> None: ...
        def _show_message(self, text: str, *, error: bool = False) -> None: ...

    def action_from_hosts(self) -> None:
        base, error = self.base_jobs()
        jobs = base
        if error is None:
            jobs, error = self.options.apply(base)
        if error is not None:
            self._show_job_error(error)
            self.app.bell()
            return
        try:
            fleet = load_fleet()
        except FleetConfigError as exc:
            self._show_message(f"{exc} (hosts.toml names the fleet's hosts)", error=True)
            return
        preset = self.preset.name if self.preset is not None else None

        def picked(chosen: HostsPicked | None) -> None:
            if not chosen:
                return
            if chosen.how == AT_ONCE:
                self._confirm_clients(chosen.spots, jobs, preset)
            else:
                self._confirm_fleet(chosen, base, preset)

        self.app.push_screen(ClientsPickScreen(fleet), picked)

    def _confirm_clients(
        self, spots: list[ClientSpot], jobs: tuple[JobSpec, ...], preset: str | None
    ) -> None:
        question = (
            f"Run {preset or 'the custom job'} from {len(spots)} hosts at once?\n\n"
            f"A fio server is started on each host over SSH (on its loopback) and test "
            f"files are written in {where(spots)}, then removed. The run set is kept in "
            "the history."
        )
        self._confirm(question, lambda: context(self).open_clients_run(spots, jobs, preset))

    def _confirm_fleet(
        self, chosen: HostsPicked, jobs: tuple[JobSpec, ...], preset: str | None
    ) -> None:
        parallel = chosen.how == PARALLEL
        options, name = self.options, f"{preset or 'job'} on {{}}"
        asks = {s.name: options.ask(s.path, jobs, preset, name=name.format(s.name))
                for s in chosen.spots}  # fmt: skip
        spots = chosen.spots
        order = "all at once" if parallel else "one at a time"
        question = (
            f"Run {preset or 'the custom job'} on {len(spots)} hosts, {order}?\n\n"
            f"Each host benchmarks its own storage: test files are written in "
            f"{where(spots)}, then removed. Each run is kept in the history, then the "
            "hosts that ran are compared."
        )
        self._confirm(
            question, lambda: context(self).open_fleet_run(spots, asks, parallel=parallel)
        )

    def _confirm(self, question: str, then: Callable[[], None]) -> None:
        from ..modals.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        self.app.push_screen(
            ConfirmScreen(question, title="Write on the hosts", yes="Run", no="Back"), answered
        )


def where(spots: list[ClientSpot]) -> str:
    """``/srv/bench on a, b`` or ``a:/x, b:/y``: where the test files go."""
    paths = {s.path for s in spots}
    if len(paths) == 1:
        return f"{spots[0].path} on " + ", ".join(s.name for s in spots)
    return ", ".join(f"{s.name}:{s.path}" for s in spots)
