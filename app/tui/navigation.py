"""How one screen opens another: every full screen is pushed from here, by the app.

Screens ask for the next one by what it shows (``context(self).open_run(run_id)``) and
never import it, so a screen folder depends on no other (``screens/modals`` aside). The
app is the one place that knows every screen: ``TierdeckApp`` mixes this in, and so do
the test apps that host a single screen. Each method imports its screen when called,
so the dashboard's start-up loads none of them (and the history list does not wait
130 ms for the numpy that the detail and compare views' charts load).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from textual.app import App

    from ...backends.host import Host
    from ...core.bench_models import RunRequest
    from ...core.jobspec import JobSpec
    from ...core.ladder.model import LadderResult
    from ...core.layout.model import Layout
    from ...core.models import Inventory, MergerfsPool
    from ...core.sweep.model import SweepResult
    from ..bench.service import BenchAsk, BenchService
    from ..clients.plan import ClientSpot
    from ..history.store import RunStore
    from .sequence_messages import LadderPlanner, SweepPlanner

    _Base = App[Any]
else:
    _Base = object


class Navigator(_Base):
    """Mixed into the app (before App in its bases): the ways between screens that
    ``app.tui.context.Navigation`` names."""

    if TYPE_CHECKING:
        # What the app gives the screens it opens; a test app that opens none of the
        # screens needing them may lack them.
        host: Host

        @property
        def bench(self) -> BenchService: ...

    # -- history ------------------------------------------------------------------------

    def open_history(self, select: int | None = None) -> None:
        from ...screens.history.history import HistoryScreen

        self.push_screen(HistoryScreen(select=select))

    def open_run(
        self,
        run_id: int,
        *,
        store_factory: Callable[[], RunStore] | None = None,
        callback: Callable[[int | None], None] | None = None,
    ) -> None:
        """The run's detail view; ``callback`` gets the run to compare, if asked."""
        from ...screens.history.run_detail import RunDetailScreen

        self.push_screen(RunDetailScreen(run_id, store_factory=store_factory), callback)

    def open_compare(
        self, run_ids: list[int], *, store_factory: Callable[[], RunStore] | None = None
    ) -> None:
        from ...screens.history.compare import CompareScreen

        self.push_screen(CompareScreen(run_ids, store_factory=store_factory))

    def open_run_set(self, result: SweepResult | LadderResult) -> None:
        """A stored sweep (R resumes it on a live machine) or ladder, as stored."""
        from ...core.sweep.model import SweepResult

        if isinstance(result, SweepResult):
            from ...screens.sequence.sweep_open import resumer

            self.open_sweep(result, resume=resumer(self.screen, result.id))
        else:
            self.open_ladder(result.pool, result=result)

    # -- benchmarks ---------------------------------------------------------------------

    def open_bench_setup(
        self, inventory: Inventory, *, initial_path: str | None = None, note: str | None = None
    ) -> None:
        from ...screens.bench.setup import BenchSetupScreen

        self.push_screen(
            BenchSetupScreen(self.host, inventory, initial_path=initial_path, note=note)
        )

    def open_live_run(
        self, inventory: Inventory, request: RunRequest, *, models: dict[str, str]
    ) -> None:
        from ...screens.bench.run import RunScreen

        self.push_screen(RunScreen(self.bench, inventory, request, models=models))

    def open_clients_run(
        self, spots: list[ClientSpot], jobs: tuple[JobSpec, ...], preset: str | None
    ) -> None:
        from ...screens.bench.clients_run import ClientsRunScreen

        self.push_screen(ClientsRunScreen(spots, jobs, preset))

    def open_fleet_run(
        self, spots: list[ClientSpot], asks: dict[str, BenchAsk], *, parallel: bool
    ) -> None:
        """Each host's own benchmark, in turn or at once, then their comparison."""
        from ...screens.bench.fleet_run import FleetRunScreen

        self.push_screen(FleetRunScreen(spots, asks, parallel=parallel))

    def open_sweep_file(self, target: str | None) -> None:
        """A prompt for a sweep file, then its view; ``target`` for a sweep without one."""
        from ...screens.sequence.sweep_open import ask_sweep

        ask_sweep(self.screen, target)

    def open_sweep(
        self,
        result: SweepResult,
        *,
        planner: SweepPlanner | None = None,
        resume: SweepPlanner | None = None,
    ) -> None:
        from ...screens.sequence.sweep import SweepScreen

        self.push_screen(SweepScreen(result, planner=planner, resume=resume))

    def open_ladder_menu(self, pool: MergerfsPool) -> None:
        """What the pool's ladder will do, in a menu, then its view."""
        from ...screens.sequence.ladder_open import ask_ladder

        ask_ladder(self.screen, pool)

    def open_ladder(
        self,
        pool: str,
        *,
        planner: LadderPlanner | None = None,
        result: LadderResult | None = None,
    ) -> None:
        from ...screens.sequence.ladder import LadderScreen

        self.push_screen(LadderScreen(pool, planner=planner, result=result))

    # -- layouts ------------------------------------------------------------------------

    def open_compose(self, inventory: Inventory, pool: MergerfsPool | None) -> None:
        from ...screens.layout.compose import ComposeScreen

        self.push_screen(ComposeScreen(inventory, pool))

    def open_mover_file(self) -> None:
        """A prompt for a layout file (checked as typed), then its mover view. On a
        host whose own tierdeck moves its files, a file of that host."""
        from ...screens.layout.mover_support import (
            DEFAULT_LAYOUT_FILE,
            ask_layout,
            default_layout_file,
        )

        def opened(path: Path, layout: Layout) -> None:
            self.open_mover(layout, path)

        if self.host.capabilities.moves_on_host:
            ask_layout(self, opened, DEFAULT_LAYOUT_FILE, host=self.host)
        else:
            ask_layout(self, opened, default_layout_file())

    def open_mover(self, layout: Layout, path: Path) -> None:
        """The mover view of a layout file; on a host whose own tierdeck moves its files
        (``moves_on_host``), that tierdeck runs it and its history has the last run."""
        from ...screens.layout.mover import MoverScreen

        host = self.host
        if not host.capabilities.moves_on_host:
            self.push_screen(MoverScreen(layout, path))
            return
        from ..mover.remote import OwnTierdeckHost, last_move_on_host, run_mover_on_host

        own = cast("OwnTierdeckHost", host)  # what moves_on_host promises
        self.push_screen(
            MoverScreen(layout, path, run=run_mover_on_host,
                        last_run=lambda: last_move_on_host(own, path), on_host=host.hostname)
        )  # fmt: skip

    # -- logging in to a remote host ----------------------------------------------------

    def ask_secret(self, question: str) -> str | None:
        """A password or passphrase, asked in a modal: called from an SSH link's own
        thread (``backends/host/ssh/link.py``) while the app runs on its loop; that
        thread waits for the answer, kept only in the link's memory. None when it is
        declined, unanswered for ``SECRET_TIMEOUT_S``, or the app is closing."""
        import concurrent.futures

        from ...screens.modals.secret import SecretScreen

        answer: concurrent.futures.Future[str | None] = concurrent.futures.Future()

        def show() -> None:
            self.push_screen(SecretScreen(question), callback=answer.set_result)

        try:
            self.call_from_thread(show)
            return answer.result(timeout=SECRET_TIMEOUT_S)
        except (concurrent.futures.TimeoutError, RuntimeError):
            return None


# long enough to fetch it from a password manager; a forgotten prompt still ends
SECRET_TIMEOUT_S = 300.0
