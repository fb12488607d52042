"""The setup screen's way to a ``--clients`` run: the job shown, from fleet hosts at
once (ctrl+l). Apart from the form: it only needs the form's jobs and options.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...app.clients.plan import ClientSpot
from ...app.fleet.config import FleetConfigError, load_fleet
from ...app.tui.context import context
from .clients_pick import ClientsPickScreen

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
        jobs, error = self.base_jobs()
        if error is None:
            jobs, error = self.options.apply(jobs)
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

        def picked(spots: list[ClientSpot] | None) -> None:
            if spots:
                context(self).open_clients_run(spots, jobs, preset)

        self.app.push_screen(ClientsPickScreen(fleet), picked)
