"""The tierdeck Textual app: loads the inventory in a worker and shows the dashboard.

``TierdeckApp(host, demo=...)`` is all the CLI needs: ``TierdeckApp(LiveHost()).run()``
or ``TierdeckApp(load_demo_host(), demo=True).run()``. With several hosts configured,
``TierdeckApp(None, fleet=Fleet(...))`` starts on the fleet screen instead; ``enter``
there opens a host's dashboard (``open_host``) and ``f`` comes back.

Paint first, then refresh: the dashboard opens on the host's last inventory (kept in the
cache folder, app/machine/snapshot.py), marked with its age, and the collection starts
once that is on screen; the fresh result replaces it the moment it lands, with the rows
that changed marked. On a host never seen before the dashboard opens on a skeleton.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.reactive import var
from textual.timer import Timer
from textual.worker import get_current_worker

from ...backends.host import Host
from ...core.errors import one_line
from ...core.inventory_changes import inventory_changes
from ...core.models import Inventory, Problem, Severity
from ...screens.dashboard.dashboard import DashboardScreen
from ..machine.hotplug import HotplugWatcher, start_hotplug
from ..machine.snapshot import InventorySnapshot, SnapshotStore, age_text
from .messages import HealthLoaded, HotplugEvent, InventoryFailed, InventoryLoaded
from .navigation import Navigator

if TYPE_CHECKING:
    from ...core.disk_health import HealthReport
    from ..bench.service import BenchService
    from ..fleet.collect import FleetSource
    from ..history.store import RunStore
    from .context import AppContext

Collector = Callable[[Host], Inventory]
# smartctl is slow (seconds on a big NAS) and SMART figures change slowly: health is read
# after the first fresh inventory, then every half hour (and with each `r`), never at
# the first paint. A sleeping disk is never woken (-n standby, backends/smart).
HEALTH_REFRESH_SECONDS = 1800.0


def collect_default(host: Host) -> Inventory:
    # Imported here so that importing the TUI does not load every backend, and so tests
    # can monkeypatch tierdeck.app.machine.inventory.collect_inventory.
    from ..machine import inventory as inventory_service

    return inventory_service.collect_inventory(host)


def _open_history() -> RunStore:
    from ..history.store import HistoryStore

    return HistoryStore()


def safe_problems(inv: Inventory) -> tuple[Problem, ...]:
    """find_problems, but a bug in a health rule shows up as a problem, not a crash."""
    try:
        from ...core.health import find_problems  # in the worker, not before the paint

        return find_problems(inv)
    except Exception as exc:  # noqa: BLE001
        return (Problem(Severity.WARNING, "tierdeck", f"health checks failed: {one_line(exc)}"),)


class TierdeckApp(Navigator, App[None]):
    """The composition root: the one place that opens screens (``Navigator``)."""

    # The dashboard's CSS is the app's: a screen's first push that brings CSS of its own
    # re-parses every stylesheet, which the first paint would wait for.
    CSS_PATH = ["tierdeck.tcss", "../../screens/dashboard/dashboard.tcss"]
    # Read once the first collection is on screen, so that opening the compose screen
    # re-parses nothing either (30 ms on the 240-disk host).
    PRELOADED_CSS = ("../../screens/layout/compose.tcss",)
    ENABLE_COMMAND_PALETTE = False

    # Tooltips are the help page's words (screens/modals/help.py): one source for both.
    HOST_BINDINGS = [
        Binding("r", "refresh", "Refresh", tooltip="refresh the inventory now"),
        Binding(
            "question_mark", "help", "Help", key_display="?", tooltip="the keys of this screen"
        ),
        # ? is a character: in a text field it is typed, F1 still opens the help.
        Binding("f1", "help", "Help", show=False, tooltip="the keys of this screen"),
        Binding("q", "quit", "Quit", tooltip="quit tierdeck"),
    ]
    """The app's keys on every screen of one host (what a help page lists)."""
    # Only on a dashboard opened from the fleet screen (check_action).
    FLEET_BINDING = Binding("f", "fleet", "Fleet", tooltip="back to the fleet of hosts")
    # On any dashboard but the demo's (check_action); the footer at 80 columns is full.
    SWITCH_BINDING = Binding(
        "o",
        "switch_host",
        "Hosts",
        show=False,
        tooltip="open another machine: this one, or a host of hosts.toml (tierdeck fleet add)",
    )
    BINDINGS = [*HOST_BINDINGS, SWITCH_BINDING, FLEET_BINDING]

    HOTPLUG_DEBOUNCE = 1.0  # seconds: a new disk brings a burst of add events

    inventory: var[Inventory | None] = var(None)
    """The last inventory that loaded; kept when a refresh fails."""
    problems: var[tuple[Problem, ...]] = var(())
    """find_problems() of ``inventory``."""
    last_error: var[str | None] = var(None)
    """Why the last refresh failed, or None after a good one."""
    refreshes: var[int] = var(0)
    """How many inventories have loaded (tests wait on it)."""
    stale_since: var[float | None] = var(None)
    """When the inventory on screen was collected (wall clock), while it is a snapshot
    kept from an earlier start; None once a fresh collection has landed."""

    def __init__(
        self,
        host: Host | None,
        demo: bool = False,
        *,
        collect: Collector | None = None,
        hotplug: bool = True,
        snapshots: SnapshotStore | None = None,
        fleet: FleetSource | None = None,
    ) -> None:
        """``snapshots``: where the last inventory of each host is kept (default: the
        cache folder; tests pass a throwaway one). ``fleet``: start on the fleet screen
        (``host`` None); the dashboard is then of the host opened from it."""
        super().__init__()
        if host is None and fleet is None:
            raise ValueError("TierdeckApp needs a host or a fleet")
        self._host = host
        self._fleet = fleet
        self.snapshots = snapshots if snapshots is not None else SnapshotStore()
        self.demo = demo
        self._bench: BenchService | None = None
        self._collect = collect
        self._hotplug_wanted = hotplug
        self._hotplug: HotplugWatcher | None = None
        self._hotplug_timer: Timer | None = None
        self._stale_timer: Timer | None = None
        self._health_timer: Timer | None = None
        self._health_due = True  # read health with the next fresh inventory
        self.health_reads = 0  # health reports received (tests wait on it)
        self.health_report: HealthReport | None = None
        self._cleaned = False
        self._collector_paused = False
        self._first_snapshot: InventorySnapshot | None = None
        self._switched: Host | None = None  # the host the switcher opened, closed when left
        if host is None:
            self.title = "tierdeck — fleet"
        else:
            # Read now, drawn by on_mount; it names the host too, where asking the host
            # may cost (a recording parses its host.json for its name: ~10 ms on the
            # 240-disk one, which the first paint waited for).
            self._first_snapshot = self._kept_snapshot()
            kept = self._first_snapshot
            self._set_title(kept.inventory.hostname if kept is not None else host.hostname)

    @property
    def host(self) -> Host:
        """The host the dashboard shows (with a fleet: the one opened last)."""
        if self._host is None:
            raise RuntimeError("no host opened yet: the fleet screen is showing")
        return self._host

    @host.setter
    def host(self, host: Host) -> None:
        self._host = host

    def _set_title(self, hostname: str) -> None:
        self.title = f"tierdeck — {hostname}" + (" [demo]" if self.demo else "")

    @property
    def bench(self) -> BenchService:
        """One service for every benchmark started from the app, keeping them in the
        history. Made on first use: the dashboard alone loads no benchmark engine and
        opens no SQLite."""
        if self._bench is None:
            from ..bench.service import BenchService

            self._bench = BenchService(self.host, store=_open_history)
        return self._bench

    @property
    def dashboard(self) -> DashboardScreen:
        screen = self.get_screen("dashboard")
        assert isinstance(screen, DashboardScreen)
        return screen

    def on_mount(self) -> None:
        if self._fleet is not None:
            from ...screens.fleet.fleet import FleetScreen

            self.push_screen(FleetScreen(self._fleet))
            return
        self._pause_collector()
        snapshot, self._first_snapshot = self._first_snapshot, None
        self._show_dashboard(snapshot)

    def _show_dashboard(self, snapshot: InventorySnapshot | None) -> None:
        dashboard = DashboardScreen()
        # The collection starts once the dashboard has painted (its threads would slow
        # that paint: they share the GIL): on_dashboard_painted.
        if snapshot is None:
            self.sub_title = "reading the storage…"
        else:
            self.inventory = snapshot.inventory
            self.problems = snapshot.problems
            self.stale_since = snapshot.taken_at
            self._set_title(snapshot.inventory.hostname)
            self.sub_title = self._status_line()
            dashboard.preset(snapshot.inventory, snapshot.problems, self.stale_mark())
            self._stale_timer = self.set_interval(1.0, self._show_age)
        self.install_screen(dashboard, name="dashboard")
        self.push_screen("dashboard")

    def on_unmount(self) -> None:
        self._resume_collector()  # an app that quits before its first paint
        if self._hotplug is not None:
            self._hotplug.stop()
            self._hotplug = None
        if self._fleet is not None:
            self._fleet.close()
        if self._switched is not None:
            from ..fleet.collect import close_quietly

            close_quietly(self._switched)

    # -- the fleet ----------------------------------------------------------------------

    def open_host(self, host: Host) -> None:
        """The dashboard of ``host`` (a host of the fleet, on its open connection),
        over the fleet screen; ``f`` comes back. What the app held of the host shown
        before goes: its inventory, its collection, its benchmark service."""
        self._leave_host()
        self._host, self._bench, self._cleaned = host, None, False
        self.inventory, self.problems, self.last_error, self.stale_since = None, (), None, None
        self.refreshes = 0
        self._show_dashboard(self._kept_snapshot())

    def _leave_host(self) -> None:
        """Stop what works for the host shown (its collection, its watcher, the age
        mark's timer): an answer landing later finds no dashboard and is dropped."""
        self.workers.cancel_group(self, "inventory")
        self.workers.cancel_group(self, "health")
        if self._health_timer is not None:
            self._health_timer.stop()
            self._health_timer = None
        self._health_due = True
        self.health_report = None
        if self._hotplug is not None:
            self._hotplug.stop()
            self._hotplug = None
        if self._stale_timer is not None:
            self._stale_timer.stop()
            self._stale_timer = None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "fleet":
            return self._fleet is not None and isinstance(self.screen, DashboardScreen)
        if action == "switch_host":
            return not self.demo and isinstance(self.screen, DashboardScreen)
        return True

    async def action_fleet(self) -> None:
        await self._drop_dashboard()

    async def _drop_dashboard(self) -> None:
        # The dashboard goes with its host: the next host's is a new one (same id).
        self._leave_host()
        dashboard = self.screen
        await self.pop_screen()
        self.uninstall_screen("dashboard")
        await dashboard.remove()

    # -- the host switcher --------------------------------------------------------------

    def action_switch_host(self) -> None:
        """o: this machine or a host of hosts.toml, picked from a list."""
        from ...screens.modals.choice import ChoiceScreen
        from .host_switch import host_choices

        choices, note = host_choices()
        labels = dict(choices)

        def picked(key: str | None) -> None:
            if key is not None:
                self.notify(f"opening {labels[key]}…", timeout=4)
                self._connect_switched(key)

        self.push_screen(ChoiceScreen("Open which machine?", choices, note=note), picked)

    @work(thread=True, exclusive=True, group="switch", exit_on_error=False)
    def _connect_switched(self, key: str) -> None:
        from .host_switch import open_choice

        try:
            host = open_choice(key, self.ask_secret)
        except Exception as exc:  # noqa: BLE001 - said, and the dashboard shown stays
            self.call_from_thread(self.notify, one_line(exc), severity="error", timeout=10)
            return
        self.call_from_thread(lambda: self.run_worker(self._switch_to(host), group="switch-in"))

    async def _switch_to(self, host: Host) -> None:
        """``host``'s dashboard in place of the one shown (left meanwhile: dropped)."""
        from ..fleet.collect import close_quietly

        if not isinstance(self.screen, DashboardScreen):
            close_quietly(host)
            self.notify("Not opened: the dashboard was left meanwhile.", severity="warning")
            return
        left = self._host
        await self._drop_dashboard()
        self.open_host(host)
        if left is not None and left is self._switched:
            close_quietly(left)  # opened by the switcher: nobody else holds it
        self._switched = host

    # -- start-up ---------------------------------------------------------------------

    def _pause_collector(self) -> None:
        # Everything the start builds lives on (widgets, styles, the kept inventory), so
        # the cyclic collector's passes over it find no garbage: on the 240-disk host
        # they took ~20 ms before the first frame, one full pass ~17 ms of it. Reference
        # counting still frees everything else; cycles wait for the collector's return.
        self._collector_paused = gc.isenabled()
        gc.disable()

    def _resume_collector(self) -> None:
        if self._collector_paused:
            self._collector_paused = False
            gc.enable()

    # -- loading ------------------------------------------------------------------------

    def _preload_css(self) -> None:
        here = Path(__file__).parent
        # Resolved as Textual resolves a screen's CSS_PATH, so its push finds them read.
        paths = [(here / css).resolve() for css in self.PRELOADED_CSS]
        unread = [p for p in paths if not self.stylesheet.has_source(str(p), "")]
        for path in unread:
            self.stylesheet.read(path)
        if unread:
            self.stylesheet.reparse()
            self.stylesheet.update(self)

    def _kept_snapshot(self) -> InventorySnapshot | None:
        try:
            return self.snapshots.load(self.host.identity)
        except Exception:  # noqa: BLE001 - a cache is never a reason not to start
            return None

    def stale_mark(self) -> str | None:
        """ "as of 12 s ago, refreshing…" while a kept snapshot is on screen, else None."""
        if self.stale_since is None:
            return None
        age = age_text(max(0.0, time.time() - self.stale_since))
        doing = "refresh failed: press r to retry" if self.last_error else "refreshing…"
        return f"as of {age} ago, {doing}"

    def _show_age(self) -> None:
        mark = self.stale_mark()
        if mark is None or not self.is_screen_installed("dashboard"):
            return
        self.sub_title = self._status_line()
        self.dashboard.show_stale_mark(mark)

    def refresh_inventory(self) -> None:
        if self.refreshes == 0 and not self._cleaned:
            # Started with the first collection, after the first paint (its imports would
            # hold the GIL the paint needs).
            self._cleaned = True
            self._clean_throwaway_mounts()
        # health follows the fresh inventory (a new disk, `r`): on_inventory_loaded
        self._health_due = True
        self._load_inventory()

    @work(thread=True, group="throwaway", exit_on_error=False)
    def _clean_throwaway_mounts(self) -> None:
        """The ladder's mounts left by a tierdeck that was killed (app/ladder/throwaway_mounts)."""
        if not self.host.capabilities.run_benchmarks:  # a recording has none
            return
        from ..ladder.throwaway_mounts import clean_stale

        clean_stale(self.host)

    @work(thread=True, exclusive=True, group="inventory", exit_on_error=False)
    def _load_inventory(self) -> None:
        worker = get_current_worker()
        collect = self._collect or collect_default
        started = time.monotonic()
        try:
            inv = collect(self.host)
        except Exception as exc:  # noqa: BLE001 - every failure is shown, never fatal
            if not worker.is_cancelled:
                self.post_message(InventoryFailed(one_line(exc)))
            return
        problems = safe_problems(inv)
        if not worker.is_cancelled:  # a newer refresh (r pressed again) supersedes us
            self.post_message(InventoryLoaded(inv, problems, time.monotonic() - started))
            self._keep_snapshot(inv, problems)

    def _keep_snapshot(self, inv: Inventory, problems: tuple[Problem, ...]) -> None:
        # After the message: the UI never waits for the cache file.
        try:
            self.snapshots.save(self.host.identity, inv, problems)
        except Exception:  # noqa: BLE001 - a read-only home still gets a dashboard
            return

    def on_dashboard_painted(self) -> None:
        self._resume_collector()
        self.refresh_inventory()
        # After the first paint too: watching udev loads pyudev and starts a thread.
        if self._hotplug_wanted and self._hotplug is None:
            self._hotplug = start_hotplug(self.host, self._on_udev_event)

    def on_inventory_loaded(self, message: InventoryLoaded) -> None:
        if not self.is_screen_installed("dashboard"):
            return  # the host was left for the fleet while it was read
        changes = inventory_changes(self.inventory, message.inventory)
        self.inventory = message.inventory
        self.problems = message.problems
        self.last_error = None
        self.stale_since = None
        if self._stale_timer is not None:
            self._stale_timer.stop()
            self._stale_timer = None
        self.refreshes += 1
        if self.refreshes == 1:  # not before: the parse would slow the first collection
            self.call_after_refresh(self._preload_css)
        self._set_title(message.inventory.hostname)
        self.sub_title = self._status_line()
        self.dashboard.show_inventory(message.inventory, message.problems, changes)
        if self._health_due:
            self._health_due = False
            self._load_health(message.inventory)
            if self._health_timer is None:
                self._health_timer = self.set_interval(HEALTH_REFRESH_SECONDS, self._health_tick)

    def _health_tick(self) -> None:
        if self.inventory is not None:
            self._load_health(self.inventory)

    @work(thread=True, exclusive=True, group="health", exit_on_error=False)
    def _load_health(self, inv: Inventory) -> None:
        """SMART and pool health for the inventory on screen, in a thread: smartctl's
        calls never hold the UI. Never fatal: each disk says why it was not read."""
        from ..health.collect import health_of
        from ..health.config import load_thresholds

        worker = get_current_worker()
        try:
            limits = load_thresholds()
        except Exception:  # noqa: BLE001 - a bad health.toml: defaults here, `health` says why
            limits = None
        try:
            report = health_of(self.host, inv, limits)
        except Exception as exc:  # noqa: BLE001 - never fatal: the disks show "not read"
            self.log.warning(f"disk health: {one_line(exc)}")
            from ...core.disk_health import HealthReport

            report = HealthReport(inv.hostname, time.time(), (), (), (one_line(exc),))
        if not worker.is_cancelled:
            self.post_message(HealthLoaded(report))

    def on_health_loaded(self, message: HealthLoaded) -> None:
        self.health_reads += 1
        self.health_report = message.report
        self.sub_title = self._status_line()
        if self.is_screen_installed("dashboard"):
            self.dashboard.show_health(message.report)

    def on_inventory_failed(self, message: InventoryFailed) -> None:
        if not self.is_screen_installed("dashboard"):
            return
        self.last_error = message.error
        kept = " (showing the previous inventory)" if self.inventory is not None else ""
        self.notify(f"Inventory failed: {message.error}{kept}", severity="error", timeout=10)
        self.sub_title = self._status_line()
        self.dashboard.show_failure(message.error)
        self._show_age()

    def _status_line(self) -> str:
        inv = self.inventory
        if inv is None:
            return "no inventory" + (" (refresh failed)" if self.last_error else "")
        health = self.health_report
        count = len(self.problems)
        if health is not None:
            from ...core.disk_health import health_problems  # loaded with the report

            count += len(health_problems(health, self.problems))
        parts = [f"{count} problem{'s' if count != 1 else ''}" if count else "no problems"]
        mark = self.stale_mark()
        if mark is not None:
            return " · ".join([mark, *parts])
        if not inv.is_root:
            parts.append("not root: partial")
        if self.last_error:
            parts.append("refresh failed")
        return " · ".join(parts)

    # -- hotplug ------------------------------------------------------------------------

    def _on_udev_event(self, action: str, device: str) -> None:
        # Called on the udev observer thread: post_message is thread-safe.
        self.post_message(HotplugEvent(action, device))

    def on_hotplug_event(self, event: HotplugEvent) -> None:
        if self._hotplug_timer is not None:
            self._hotplug_timer.stop()
        self._hotplug_timer = self.set_timer(self.HOTPLUG_DEBOUNCE, self._hotplug_refresh)

    def _hotplug_refresh(self) -> None:
        self._hotplug_timer = None
        self.refresh_inventory()

    # -- actions ------------------------------------------------------------------------

    def action_refresh(self) -> None:
        self.refresh_inventory()

    def action_help(self) -> None:
        from ...screens.modals.help import HelpScreen  # loaded when first asked for

        if not isinstance(self.screen, HelpScreen):
            # f (back to the fleet) only where it works: a dashboard opened from the fleet
            keys = self.HOST_BINDINGS
            if self.check_action("switch_host", ()):
                keys = [*keys, self.SWITCH_BINDING]
            if self.check_action("fleet", ()):
                keys = [*keys, self.FLEET_BINDING]
            self.push_screen(HelpScreen.for_screen(self.screen, keys))


if TYPE_CHECKING:

    def _provides(app: TierdeckApp) -> AppContext:
        # mypy checks here that the app gives the screens all that ``context()`` promises.
        return app
