"""What a screen may ask of the running app, typed: the host, the inventory it shows,
the benchmark service, and the ways to the other screens. Screens call
``context(self)`` instead of reaching into ``self.app`` untyped; the Textual App
(``app.tui.TierdeckApp``) provides it, and a test app may provide what its screen uses
(``app.tui.navigation.Navigator`` gives the ways to the other screens)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    # Only for the annotations: importing the service loads the runner, the preflight
    # and sqlite, which cost the dashboard's first paint 90 ms (bench/inventory.py).
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


class Navigation(Protocol):
    """The ways from one screen to another: a screen names what to show, the app
    pushes the screen that shows it (``app.tui.navigation``)."""

    def open_history(self, select: int | None = None) -> None: ...

    def open_run(
        self,
        run_id: int,
        *,
        store_factory: Callable[[], RunStore] | None = None,
        callback: Callable[[int | None], None] | None = None,
    ) -> None: ...

    def open_compare(
        self, run_ids: list[int], *, store_factory: Callable[[], RunStore] | None = None
    ) -> None: ...

    def open_run_set(self, result: SweepResult | LadderResult) -> None: ...

    def open_bench_setup(
        self, inventory: Inventory, *, initial_path: str | None = None, note: str | None = None
    ) -> None: ...

    def open_live_run(
        self, inventory: Inventory, request: RunRequest, *, models: dict[str, str]
    ) -> None: ...

    def open_clients_run(
        self, spots: list[ClientSpot], jobs: tuple[JobSpec, ...], preset: str | None
    ) -> None: ...

    def open_fleet_run(
        self, spots: list[ClientSpot], asks: dict[str, BenchAsk], *, parallel: bool
    ) -> None: ...

    def open_sweep_file(self, target: str | None) -> None: ...

    def open_sweep(
        self,
        result: SweepResult,
        *,
        planner: SweepPlanner | None = None,
        resume: SweepPlanner | None = None,
    ) -> None: ...

    def open_ladder_menu(self, pool: MergerfsPool) -> None: ...

    def open_ladder(
        self,
        pool: str,
        *,
        planner: LadderPlanner | None = None,
        result: LadderResult | None = None,
    ) -> None: ...

    def open_compose(self, inventory: Inventory, pool: MergerfsPool | None) -> None: ...

    def open_mover_file(self) -> None: ...

    def open_mover(self, layout: Layout, path: Path) -> None: ...

    def open_host(self, host: Host) -> None: ...

    def ask_secret(self, question: str) -> str | None: ...


class AppContext(Navigation, Protocol):
    @property
    def host(self) -> Host: ...

    @property
    def inventory(self) -> Inventory | None: ...

    @property
    def bench(self) -> BenchService: ...


class _InApp(Protocol):
    @property
    def app(self) -> Any: ...


def context(node: _InApp) -> AppContext:
    """The app ``node`` (a screen, a widget, a screen's mixin) belongs to, as what
    tierdeck's screens use of it."""
    return cast(AppContext, node.app)
