"""Compose a cache/slow tier layout: pick branches, set options, see checks.

Opened from the dashboard (``l``), from nothing or from the mergerfs pool highlighted
there (its branches become the slow tier, its live options the tiered pool's). The
screen edits an app/layout_draft.Draft; every change re-runs ``evaluate`` (the rules of
core/layout_rules and the simulator of core/mergerfs_policy) and redraws. Three views,
one at a time so each has the whole 80x24 screen, with the verdict above them on every
view: 1 the inventory's mounts as candidate branches, 2 the options (the pools', the
mover's with the cache's fill against its watermarks: widgets/compose_options), 3 the
checks, each create policy's answer for a file size, and the fstab preview. From 140
columns the checks stand beside views 1 and 2 instead. Saving asks for a file
(compose_save).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Input, Select, Static, TabbedContent, TabPane, Tabs

from ..app.context import context
from ..app.layout_draft import (
    TEXT_FIELDS,
    Draft,
    Evaluation,
    candidates,
    draft_from_pool,
    evaluate,
)
from ..core.layout import AgeBasis, CreatePolicy, Layout
from ..core.models import Inventory, MergerfsPool
from ..widgets.calm_footer import CalmFooter
from ..widgets.compose_options import OptionsForm
from ..widgets.compose_views import (
    CandidateTable,
    fstab_renderable,
    rules_renderable,
    simulation_renderable,
    summary_line,
    tiers_line,
)
from .compose_save import ask_and_save, ask_and_write_output

if TYPE_CHECKING:
    from pathlib import Path

WIDE = 140  # columns from which the checks stand beside the views
VIEWS = {"1": "tab-branches", "2": "tab-options", "3": "tab-checks"}
_FOCUS = {"1": "#compose-mounts", "2": "#opt-pool", "3": "#compose-checks"}


class ComposeScreen(Screen[None]):
    CSS_PATH = "compose.tcss"
    # Focus goes straight to the mounts: every focus change restyles the page.
    AUTO_FOCUS = "#compose-mounts"

    BINDINGS = [
        Binding(
            "c", "tier('cache')", "Cache", tooltip="add the highlighted mount to the cache tier"
        ),
        Binding("s", "tier('slow')", "Slow", tooltip="add the highlighted mount to the slow tier"),
        Binding(
            "x", "tier('none')", "Remove", tooltip="take the highlighted mount out of its tier"
        ),
        Binding(
            "m",
            "mode",
            "Mode",
            show=False,  # the footer is full at 80 columns: the tiers line says it
            tooltip="the highlighted slow branch's mode: RW, NC (no new files), RO",
        ),
        Binding(
            "p",
            "from_pool",
            "From pool",
            tooltip="start again from the next mounted mergerfs pool (its live options)",
        ),
        Binding("ctrl+s", "save", "Save", tooltip="save the layout as TOML to a file you name"),
        Binding(
            "w", "save", "Save", show=False, tooltip="save the layout as TOML to a file you name"
        ),
        Binding(
            "o",
            "write_output",
            "Write",
            show=False,  # the footer is full at 80 columns: the help lists it
            tooltip="write the fstab lines, a unit or the TOML to a file you name",
        ),
        Binding("1", "view('1')", "Branches", show=False, tooltip="view: the mounts to pick from"),
        Binding("2", "view('2')", "Options", show=False, tooltip="view: pools and options"),
        Binding(
            "3",
            "view('3')",
            "Checks",
            show=False,
            tooltip="view: rule results, where a new file lands, fstab",
        ),
        # Keys that open other screens from here go below (the mover's view).
        Binding(
            "v",
            "mover",
            "Mover",
            show=False,
            tooltip="the mover of this layout: saved to a file you name first, then its "
            "forecast, a move, the last run",
        ),
        Binding("escape", "back", "Back", tooltip="back to the dashboard (nothing is saved)"),
    ]
    HELP_TITLE = "tierdeck keys: compose a tier layout"
    HELP_NOTES = (
        ("up / down", "mounts: move; checks: scroll"),
        ("tab / shift+tab", "next / previous field (options view)"),
        ("enter", "options: open a list (create policy, age basis); pick with up/down, enter"),
        ("escape (in a field)", "leave the field for the tab bar; 1-3 switch views again"),
        ("escape", "close this help"),
    )
    HELP_LEGEND = (
        "Tier: cache, or slow with its mode in the tiered pool (NC: no new files there). "
        "Media: SSD/HDD from the disks underneath. Checks: ✗ error (loses data or does not "
        "tier), ! warning, ✓ ok; ▶ marks the chosen create policy in the simulator."
    )

    def __init__(self, inventory: Inventory, pool: MergerfsPool | None = None) -> None:
        super().__init__(id="compose")
        self.inventory = inventory
        self.candidates = candidates(inventory)
        self._pool_index = inventory.mergerfs.index(pool) if pool in inventory.mergerfs else -1
        self.draft = draft_from_pool(pool) if pool is not None else Draft()
        self.evaluation: Evaluation | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="compose-summary")
        with Horizontal(id="compose-body"):
            with TabbedContent(id="compose-views"):
                with TabPane("1 Branches", id="tab-branches"):
                    yield CandidateTable(id="compose-mounts")
                    yield Static(id="compose-tiers")
                with TabPane("2 Options", id="tab-options"):
                    yield OptionsForm(id="compose-options")  # fields built when first shown
                with TabPane("3 Checks", id="tab-checks"), VerticalScroll(id="compose-checks"):
                    yield from self._checks("compose")
            # Wide terminals show the checks beside the views instead of as view 3.
            with VerticalScroll(id="compose-side"):
                yield from self._checks("side")
        yield CalmFooter()

    def _checks(self, where: str) -> ComposeResult:
        yield Static(id=f"{where}-rules", classes="rules")
        yield Static(id=f"{where}-fstab", classes="fstab")  # short: above the 20 policies
        yield Static(id=f"{where}-sim", classes="sim")

    async def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "tab-options":
            await self.query_one(OptionsForm).build(self.draft)
            self._refresh()

    def on_mount(self) -> None:
        self.sub_title = "compose a tier layout"
        self._refresh()
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    @property
    def wide(self) -> bool:
        return self.size.width >= WIDE

    def _fit(self) -> None:
        views = self.query_one(TabbedContent)
        self.set_class(self.wide, "-wide")
        if self.wide:
            if views.active == "tab-checks":
                views.active = "tab-branches"
            views.hide_tab("tab-checks")
        else:
            views.show_tab("tab-checks")

    # -- drawing ----------------------------------------------------------------------

    def _refresh(self) -> None:
        evaluation = evaluate(self.draft, self.inventory, context(self).host)
        self.evaluation = evaluation
        self.query_one(CandidateTable).show(self.candidates, self.draft)
        self.query_one("#compose-tiers", Static).update(tiers_line(self.draft))
        self.query_one("#compose-summary", Static).update(summary_line(evaluation))
        drawn = (("rules", rules_renderable), ("sim", simulation_renderable),
                 ("fstab", fstab_renderable))  # fmt: skip
        for name, draw in drawn:
            shown = draw(evaluation)
            for box in self.query(f".{name}").results(Static):
                box.update(shown)
        self.query_one(OptionsForm).show(self.draft, evaluation)

    def _edit(self, draft: Draft) -> None:
        self.draft = draft
        self._refresh()

    # -- options ----------------------------------------------------------------------

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        name = (event.input.id or "").removeprefix("opt-")
        if name in TEXT_FIELDS:
            self._edit(self.draft.typed(name, event.value))

    @on(Select.Changed, "#opt-create")
    def _policy(self, event: Select.Changed) -> None:
        if isinstance(event.value, CreatePolicy) and event.value is not self.draft.create:
            self._edit(dataclasses.replace(self.draft, create=event.value))

    @on(Select.Changed, "#opt-age_basis")
    def _age_basis(self, event: Select.Changed) -> None:
        if isinstance(event.value, AgeBasis) and event.value is not self.draft.age_basis:
            self._edit(dataclasses.replace(self.draft, age_basis=event.value))

    # -- keys -------------------------------------------------------------------------

    def action_tier(self, tier: str) -> None:
        path = self.query_one(CandidateTable).highlighted_path
        if path is None:
            return
        if tier == "cache":
            self._edit(self.draft.add_cache(path))
        elif tier == "slow":
            self._edit(self.draft.add_slow(path))
        else:
            self._edit(self.draft.without(path))

    def action_mode(self) -> None:
        path = self.query_one(CandidateTable).highlighted_path
        if path is not None and self.draft.tier_of(path).startswith("slow"):
            self._edit(self.draft.next_mode(path))

    def action_from_pool(self) -> None:
        pools = self.inventory.mergerfs
        if not pools:
            self.notify("No mergerfs pool is mounted to start from.", severity="warning")
            return
        self._pool_index = (self._pool_index + 1) % len(pools)
        pool = pools[self._pool_index]
        self.draft = draft_from_pool(pool)
        self.query_one(OptionsForm).set_values(self.draft)
        self._refresh()
        self.notify(f"Started from the pool {pool.mountpoint}: add its cache with c.")

    async def action_view(self, key: str) -> None:
        if key == "3" and self.wide:
            self.query_one("#compose-side").focus()
            return
        self.query_one(TabbedContent).active = VIEWS[key]
        if key == "2":
            await self.query_one(OptionsForm).build(self.draft)
        self.query_one(_FOCUS[key]).focus()

    def _layout_or_say(self) -> Layout | None:
        layout = self.evaluation.layout if self.evaluation else None
        if layout is None:
            problem = self.evaluation.problem if self.evaluation else None
            self.notify(f"Nothing to write yet: {problem}", severity="error")
        return layout

    def action_save(self) -> None:
        if layout := self._layout_or_say():
            ask_and_save(self, layout)

    def action_write_output(self) -> None:
        if layout := self._layout_or_say():
            ask_and_write_output(self, layout)

    def action_mover(self) -> None:
        from .mover import MoverScreen
        from .mover_support import save_and_open

        def opened(path: Path, saved: Layout) -> None:
            self.app.push_screen(MoverScreen(saved, path))

        if layout := self._layout_or_say():
            save_and_open(self, layout, opened)

    def action_back(self) -> None:
        # From a field, escape leaves the field (to the tab bar, where 1-3 work again)
        # rather than the screen: one key too many must not lose the draft.
        if isinstance(self.focused, Input):
            self.query_one(TabbedContent).query_one(Tabs).focus()
            return
        self.dismiss(None)
