"""Compose a cache/slow tier layout (issue 9): pick branches, set options, see checks.

Opened from the dashboard (``l``), from nothing or from the mergerfs pool highlighted
there (its branches become the slow tier, its live options the tiered pool's). The
screen edits an app/layout_draft.Draft; every change re-runs ``evaluate`` (the rules of
core/layout_rules and the simulator of core/mergerfs_policy) and redraws. Three views,
one at a time so each has the whole 80x24 screen, with the verdict above them on every
view: 1 the inventory's mounts as candidate branches, 2 the options, 3 the checks, each
create policy's answer for a file size, and the fstab preview. From 140 columns the
checks stand beside views 1 and 2 instead.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Input, Select, Static, TabbedContent, TabPane, Tabs

from ..app.context import context
from ..app.layout_draft import Draft, Evaluation, candidates, draft_from_pool, evaluate
from ..app.layout_files import save_layout
from ..core.errors import one_line
from ..core.layout import CreatePolicy
from ..core.models import Inventory, MergerfsPool
from ..widgets.calm_footer import CalmFooter
from ..widgets.compose_views import (
    EXPLAIN,
    CandidateTable,
    create_explanation,
    fstab_renderable,
    rules_renderable,
    simulation_renderable,
    summary_line,
    tiers_line,
)
from .confirm import ConfirmScreen, PromptScreen

TEXT_FIELDS = ("pool", "slow_pool", "minfreespace", "file_size")
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
            "m", "mode", "Mode", show=False, tooltip="slow branch mode: RW, NC (no new files), RO"
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
        Binding("1", "view('1')", "Branches", show=False, tooltip="view: the mounts to pick from"),
        Binding("2", "view('2')", "Options", show=False, tooltip="view: pools and options"),
        Binding(
            "3",
            "view('3')",
            "Checks",
            show=False,
            tooltip="view: rule results, where a new file lands, fstab",
        ),
        Binding("escape", "back", "Back", tooltip="back to the dashboard (nothing is saved)"),
    ]
    HELP_TITLE = "tierdeck keys: compose a tier layout"
    HELP_NOTES = (
        ("up / down", "mounts: move; checks: scroll"),
        ("tab / shift+tab", "next / previous field (options view)"),
        ("enter", "options: open the create policy list; pick with up/down, enter"),
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
                with TabPane("2 Options", id="tab-options"), VerticalScroll(id="compose-options"):
                    pass  # the fields: built when first shown (_mount_fields)
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

    async def _mount_fields(self) -> None:
        """The options' fields, built the first time their view is shown: a Select and
        four Inputs cost the screen's first paint time a user on view 1 does not need."""
        if not self.query("#opt-pool"):
            await self.query_one("#compose-options").mount_all(list(self._fields()))

    async def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "tab-options":
            await self._mount_fields()

    def _fields(self) -> ComposeResult:
        """Each field under its one-line explanation (which doubles as its label)."""
        d = self.draft
        yield Static(EXPLAIN["pool"], classes="explain")
        yield Input(d.pool, id="opt-pool", compact=True)
        yield Static(EXPLAIN["slow_pool"], classes="explain")
        yield Input(d.slow_pool, id="opt-slow_pool", compact=True)
        yield Static(create_explanation(d.create), id="explain-create", classes="explain")
        yield Select(
            [(p.value, p) for p in CreatePolicy],
            value=d.create,
            allow_blank=False,
            id="opt-create",
            compact=True,
        )
        yield Static(EXPLAIN["minfreespace"], classes="explain")
        yield Input(d.minfreespace, id="opt-minfreespace", compact=True)
        yield Static(EXPLAIN["file_size"], classes="explain")
        yield Input(d.file_size, id="opt-file_size", compact=True)

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
        for label in self.query("#explain-create").results(Static):
            label.update(create_explanation(self.draft.create))

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
        self._set_fields()
        self._refresh()
        self.notify(f"Started from the pool {pool.mountpoint}: add its cache with c.")

    def _set_fields(self) -> None:
        d = self.draft
        if not self.query("#opt-pool"):
            return  # not built yet: they will start from the draft
        with self.prevent(Input.Changed, Select.Changed):
            for name in TEXT_FIELDS:
                self.query_one(f"#opt-{name}", Input).value = getattr(d, name)
            self.query_one("#opt-create", Select).value = d.create

    async def action_view(self, key: str) -> None:
        if key == "3" and self.wide:
            self.query_one("#compose-side").focus()
            return
        self.query_one(TabbedContent).active = VIEWS[key]
        if key == "2":
            await self._mount_fields()
        self.query_one(_FOCUS[key]).focus()

    def action_save(self) -> None:
        layout = self.evaluation.layout if self.evaluation else None
        if layout is None:
            problem = self.evaluation.problem if self.evaluation else None
            self.notify(f"Nothing to save yet: {problem}", severity="error")
            return

        def save(path: Path) -> None:
            try:
                save_layout(path, layout)
            except OSError as exc:
                self.notify(f"Could not save: {one_line(exc)}", severity="error")
                return
            self.notify(f"Saved the layout to {path}")

        def write(answer: str | None) -> None:
            if not answer:
                return
            path = Path(answer).expanduser()
            if not path.exists():
                save(path)
                return
            # A file the user names may hold something else: replacing it is asked.
            question = f"{path} exists. Replace it with this layout?"
            self.app.push_screen(
                ConfirmScreen(
                    question, title="Replace file", yes="Replace", no="Keep", danger=True
                ),
                lambda yes: save(path) if yes else self.notify("Not saved."),
            )

        self.app.push_screen(
            PromptScreen(
                "Save the layout (TOML) to:",
                title="Save layout",
                value="tierdeck-layout.toml",
                validate=lambda text: None if text.strip() else "a file name, please",
            ),
            write,
        )

    def action_back(self) -> None:
        # From a field, escape leaves the field (to the tab bar, where 1-3 work again)
        # rather than the screen: one key too many must not lose the draft.
        if isinstance(self.focused, Input):
            self.query_one(TabbedContent).query_one(Tabs).focus()
            return
        self.dismiss(None)
