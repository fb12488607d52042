"""Compose a cache/slow tier layout: pick branches, set options, see checks.

Opened from the dashboard (``l``), from nothing or from the mergerfs pool highlighted
there (its branches become the slow tier, its live options the tiered pool's; a pool
tierdeck applied keeps its cache and slow pool: app/layout/applied). The
screen edits an app/layout/draft.Draft; every change re-runs ``evaluate`` (the rules of
core/layout/rules and the simulator of core/mergerfs_policy) and redraws. Three views,
one at a time so each has the whole 80x24 screen, with the verdict above them on every
view: 1 the inventory's mounts as candidate branches, 2 the options (the pools', the
mover's with the cache's fill against its watermarks: widgets/layout/compose_options), 3 the
checks, each create policy's answer for a file size, and the fstab preview. From 140
columns the checks stand beside views 1 and 2 instead. Saving asks for a file and is
refused while a rule fails; escape asks before losing what is not saved (compose_save).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Input, Select, Static, TabbedContent, TabPane, Tabs

from ...app.layout.applied import read_applied_tiers
from ...app.layout.draft import (
    TEXT_FIELDS,
    Draft,
    Evaluation,
    candidates,
    draft_from_pool,
    evaluate,
)
from ...app.tui.context import context
from ...core.layout.model import AgeBasis, CreatePolicy, Layout
from ...core.models import Inventory, MergerfsPool
from ...widgets.calm_footer import CalmFooter
from ...widgets.layout.compose_options import OptionsForm
from ...widgets.layout.compose_views import (
    CandidateTable,
    fstab_renderable,
    rules_renderable,
    simulation_renderable,
    summary_line,
    tiers_line,
)
from ...widgets.text_fit import AtMostLines
from . import compose_keys as keys
from .compose_save import ask_and_save, ask_and_write_output, leave, refusal

if TYPE_CHECKING:
    from pathlib import Path

WIDE = 140  # columns from which the checks stand beside the views
VIEWS = {"1": "tab-branches", "2": "tab-options", "3": "tab-checks"}
# Where each view puts the focus: a view, never a field, so a key pressed next (x, 1)
# cannot land in a text it replaces.
_FOCUS = {"tab-branches": "#compose-mounts", "tab-options": "#compose-options",
          "tab-checks": "#compose-checks"}  # fmt: skip
_ON_BRANCHES = {"tier", "mode"}  # keys that act on the highlighted mount (view 1)


class ComposeScreen(Screen[None]):
    CSS_PATH = "compose.tcss"
    # Focus goes straight to the mounts: every focus change restyles the page.
    AUTO_FOCUS = "#compose-mounts"

    BINDINGS = keys.BINDINGS
    FOOTER_IF_ROOM = keys.FOOTER_IF_ROOM
    HELP_TITLE = keys.HELP_TITLE
    HELP_NOTES = keys.HELP_NOTES
    HELP_LEGEND = keys.HELP_LEGEND

    def __init__(self, inventory: Inventory, pool: MergerfsPool | None = None) -> None:
        super().__init__(id="compose")
        self.inventory = inventory
        self.candidates = candidates(inventory)
        self._pool_index = inventory.mergerfs.index(pool) if pool in inventory.mergerfs else -1
        self._pool = pool
        self.draft = Draft()
        self.saved = self.draft  # what escape may leave without asking
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
        self.query_one(_FOCUS[event.pane.id or ""]).focus()
        self.refresh_bindings()  # c, s, x and m work on view 1 only

    def on_mount(self) -> None:
        self.sub_title = "compose a tier layout"
        # The tab bar takes no focus: 1-3 switch views, and focus stays in one.
        self.query_one(TabbedContent).query_one(Tabs).can_focus = False
        if self._pool is not None:
            self._start_from(self._pool)
        self.saved = self.draft
        self._refresh()
        self._fit()
        # r (the app's refresh) or a disk plugged in: a new mount becomes a candidate.
        self.watch(self.app, "inventory", self._new_inventory, init=False)

    def _new_inventory(self, inventory: Inventory | None) -> None:
        if inventory is None or inventory is self.inventory:
            return
        before = {c.path for c in self.candidates}
        self.inventory = inventory
        self.candidates = candidates(inventory)
        new = [c.path for c in self.candidates if c.path not in before]
        self._refresh()
        if new:
            self.notify(f"New mount{'s' if len(new) > 1 else ''} to pick: {', '.join(new)}")

    def _start_from(self, pool: MergerfsPool) -> None:
        """A draft from ``pool``: as tierdeck applied it, if it did (its fstab block)."""
        applied = read_applied_tiers(context(self).host, pool)
        self.draft = draft_from_pool(pool, applied)
        if applied is not None:
            self.notify(f"{pool.mountpoint} is a layout tierdeck applied: cache "
                        f"{', '.join(applied.cache)}, as its fstab block says.")  # fmt: skip

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
        # Two rows (compose.tcss); a longer problem ends in "…": its field says it whole.
        summary = AtMostLines(summary_line(evaluation), 2)
        self.query_one("#compose-summary", Static).update(summary)
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
        unchanged = self.draft == self.saved
        self._start_from(pool)
        if unchanged:  # nothing composed is lost: the new start is the one to keep
            self.saved = self.draft
        self.query_one(OptionsForm).set_values(self.draft)
        self._refresh()
        if not self.draft.cache:
            self.notify(f"Started from the pool {pool.mountpoint}: add its cache with c.")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in _ON_BRANCHES and self.is_mounted:
            # Shown, but greyed out: on another view they would act on a row not in sight.
            return self.query_one(TabbedContent).active == "tab-branches" or None
        return True

    async def action_view(self, key: str) -> None:
        if key == "3" and self.wide:
            self.query_one("#compose-side").focus()
            return
        views = self.query_one(TabbedContent)
        if views.active == VIEWS[key]:
            self.query_one(_FOCUS[VIEWS[key]]).focus()  # back from a field, say
        views.active = VIEWS[key]  # the focus follows (on_tabbed_content_tab_activated)

    def _layout_or_say(self) -> Layout | None:
        """The layout to write, or None after saying why not: not a layout yet, or one
        that breaks a rule (as ``layout plan --save`` refuses it)."""
        layout = self.evaluation.layout if self.evaluation else None
        if layout is None:
            problem = self.evaluation.problem if self.evaluation else None
            self.notify(f"Nothing to write yet: {problem}", severity="error")
            return None
        said = refusal(self.evaluation.results if self.evaluation else ())
        if said is not None:
            self.notify(said, severity="error", timeout=10)
            return None
        return layout

    def _saved(self, draft: Draft) -> None:
        self.saved = draft

    def action_save(self) -> None:
        if layout := self._layout_or_say():
            draft = self.draft
            ask_and_save(self, layout, lambda: self._saved(draft))

    def action_write_output(self) -> None:
        if layout := self._layout_or_say():
            ask_and_write_output(self, layout)

    def action_mover(self) -> None:
        from .mover_support import save_and_open

        draft = self.draft

        def opened(path: Path, saved: Layout) -> None:
            self._saved(draft)
            context(self).open_mover(saved, path)

        if layout := self._layout_or_say():
            host = context(self).host
            save_and_open(self, layout, opened, host if host.capabilities.moves_on_host else None)

    def action_back(self) -> None:
        # From a field, escape leaves the field (for its view, where 1-3 work again)
        # rather than the screen: one key too many must not lose the draft.
        if isinstance(self.focused, Input | Select):
            self.query_one(OptionsForm).focus()
            return
        leave(self, unsaved=self.draft != self.saved)

    def action_quit(self) -> None:
        leave(self, unsaved=self.draft != self.saved, quitting=True)
