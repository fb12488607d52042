"""The compose screen on the demo NAS (seed 000), by keyboard at 80x24: open it from the
dashboard, pick branches, see a rule fail and pass, save a layout that loads back equal."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input, Select, TabbedContent
from tierdeck.app.layout.files import load_layout
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import RecordedHost
from tierdeck.core.layout.model import BranchMode, CreatePolicy
from tierdeck.core.layout.outputs import layout_outputs
from tierdeck.core.layout.rules import RuleId, RuleSeverity
from tierdeck.screens.layout.compose import ComposeScreen
from tierdeck.screens.modals.choice import ChoiceScreen
from tierdeck.screens.modals.confirm import ConfirmScreen, PromptScreen
from tierdeck.widgets.layout.compose_views import CandidateTable

from tests.waiting import wait_until

from ..history.test_compare import notes
from ..modals.test_help import check_page, open_help
from ..waiting import screen_text, shown_text, wait_for_inventory

SIZE = (80, 24)


def demo_app(host: RecordedHost) -> TierdeckApp:
    return TierdeckApp(host, demo=True, hotplug=False)


async def open_compose(pilot: Pilot[None], app: TierdeckApp, *keys: str) -> ComposeScreen:
    await wait_for_inventory(pilot, app)
    await pilot.press(*keys, "l")
    await wait_until(pilot, lambda: isinstance(app.screen, ComposeScreen), "the compose screen")
    assert isinstance(app.screen, ComposeScreen)
    return app.screen


async def highlight(pilot: Pilot[None], screen: ComposeScreen, path: str) -> None:
    table = screen.query_one(CandidateTable)
    table.focus()
    while table.highlighted_path != path:
        before = table.cursor_row
        await pilot.press("down")
        assert table.cursor_row != before, f"{path} is not a candidate"


def severities(screen: ComposeScreen, rule: RuleId) -> set[RuleSeverity]:
    assert screen.evaluation is not None
    return {r.severity for r in screen.evaluation.results if r.rule is rule}


async def type_into(pilot: Pilot[None], screen: ComposeScreen, field: str, text: str) -> None:
    box = screen.query_one(f"#opt-{field}", Input)
    box.focus()
    await pilot.press("ctrl+a", "ctrl+k", *text)  # select to the start, cut to the end
    assert box.value == text


async def test_pick_branches_fix_rules_and_save(
    demo_host: RecordedHost, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the prompts get a short relative name, typed key by key
    app = demo_app(demo_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_compose(pilot, app)
        assert screen.evaluation is not None and screen.evaluation.problem is not None
        assert "at least one cache branch" in shown_text(screen.query_one("#compose-summary"))
        await highlight(pilot, screen, "/cache")
        await pilot.press("c")
        await highlight(pilot, screen, "/mnt/disk1")
        await pilot.press("s")
        await highlight(pilot, screen, "/mnt/disk2")
        await pilot.press("s", "m")  # disk2: NC in the tiered pool
        assert screen.draft.cache == ("/cache",)
        assert [(b.path, b.mode) for b in screen.draft.slow] == [
            ("/mnt/disk1", BranchMode.RW),
            ("/mnt/disk2", BranchMode.NC),
        ]
        assert "slow NC" in screen_text(app)
        assert "cache: /cache  slow: /mnt/disk1=RW, /mnt/disk2=NC" in shown_text(
            screen.query_one("#compose-tiers")
        )
        # The seed's minfreespace, 300G, over a 231G cache: an error, then a fix.
        await pilot.press("2")
        await type_into(pilot, screen, "minfreespace", "300G")
        assert severities(screen, RuleId.MINFREESPACE) == {RuleSeverity.ERROR}
        summary = shown_text(screen.query_one("#compose-summary"))
        assert "checks: 1 error, " in summary
        await type_into(pilot, screen, "minfreespace", "20G")
        assert severities(screen, RuleId.MINFREESPACE) == {RuleSeverity.OK}
        assert "0 errors" in shown_text(screen.query_one("#compose-summary"))
        # x takes a branch out again; escape leaves the field, not the screen
        await pilot.press("escape", "1")
        assert app.screen is screen
        await highlight(pilot, screen, "/mnt/disk2")
        await pilot.press("x", "s")
        assert screen.draft.slow[-1].mode is BranchMode.RW
        await pilot.press("3", "end")  # the simulator is below the rules
        await pilot.pause()
        checks = shown_text(screen.query_one("#compose-sim"))
        assert "▶ ff" in checks and "/cache" in checks
        # save: the prompt, a path, enter; the file loads back as the layout shown
        target = tmp_path / "tiers.toml"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the prompt")
        await pilot.press("ctrl+a", "ctrl+k", *target.name, "enter")
        await wait_until(pilot, target.exists, "the saved layout")
        assert app.screen is screen
        assert load_layout(target) == screen.evaluation.layout  # type: ignore[union-attr]
        # saving again over it asks first; "keep" leaves the file as it was
        target.write_text("# the user's own notes\n")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the prompt")
        await pilot.press("ctrl+a", "ctrl+k", *target.name, "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "replace?")
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is screen, "back, nothing written")
        assert target.read_text() == "# the user's own notes\n"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the prompt")
        await pilot.press("ctrl+a", "ctrl+k", *target.name, "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "replace?")
        await pilot.press("y")
        await wait_until(pilot, lambda: target.read_text().startswith("format"), "replaced")
        assert load_layout(target) == screen.evaluation.layout  # type: ignore[union-attr]
        # o: any output to a file; the second choice is the fstab lines, as apply writes them
        fstab = tmp_path / "fstab-lines"
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the outputs")
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the prompt")
        assert app.screen.query_one(Input).value == "tierdeck-fstab"
        await pilot.press("ctrl+a", "ctrl+k", *fstab.name, "enter")
        await wait_until(pilot, fstab.exists, "the fstab lines")
        layout = screen.evaluation.layout  # type: ignore[union-attr]
        assert fstab.read_text().splitlines() == list(layout_outputs(layout).fstab)


async def test_start_from_the_seed_pool_and_fix_its_policy(demo_host: RecordedHost) -> None:
    """On the mergerfs tab, the second pool (/mnt/slow-storage: eplus, minfreespace 300G)
    is the start: its branches are the slow tier, its live options the tiered pool's."""
    app = demo_app(demo_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_compose(pilot, app, "3", "down")
        assert [b.path for b in screen.draft.slow] == ["/mnt/disk1", "/mnt/disk2"]
        assert screen.draft.pool == "/mnt/slow-storage"
        assert (screen.draft.create, screen.draft.minfreespace) == (CreatePolicy.EPLUS, "300G")
        await highlight(pilot, screen, "/cache")
        await pilot.press("c")
        assert severities(screen, RuleId.CREATE_CACHE_FIRST) == {RuleSeverity.ERROR}
        assert severities(screen, RuleId.MINFREESPACE) == {RuleSeverity.ERROR}
        await pilot.press("3")
        rules = shown_text(screen.query_one("#compose-rules"))
        assert "eplus does not send new files to the cache first" in rules
        # the create policy by keyboard: open the list, walk to ff, enter
        await pilot.press("2")
        screen.query_one("#opt-create").focus()
        await pilot.press("enter")
        select = screen.query_one("#opt-create", Select)
        await wait_until(pilot, lambda: select.expanded, "the policy list")
        # the list is CreatePolicy's order and opens on eplus: ff is five rows down
        await pilot.press(*["down"] * 5, "enter")
        assert screen.draft.create is CreatePolicy.FF
        assert severities(screen, RuleId.CREATE_CACHE_FIRST) == {RuleSeverity.OK}
        await type_into(pilot, screen, "minfreespace", "50G")
        assert screen.evaluation is not None
        assert not [r for r in screen.evaluation.results if r.severity is RuleSeverity.ERROR]
        await pilot.press("escape")  # out of the field
        assert app.screen is screen
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ComposeScreen), "back")


async def test_p_cycles_pools_and_save_refuses_a_half_layout(demo_host: RecordedHost) -> None:
    app = demo_app(demo_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_compose(pilot, app)
        await pilot.press("ctrl+s")
        assert not isinstance(app.screen, PromptScreen)
        assert notes(app)[-1].startswith("Nothing to write yet: layout: cache: at least one")
        await pilot.press("p")
        assert screen.draft.pool == "/mnt/cached"
        await pilot.press("2")  # the fields are built from the draft when first shown
        assert screen.query_one("#opt-pool", Input).value == "/mnt/cached"
        await pilot.press("p")  # 2 focuses the view, not a field: p is the next pool
        assert screen.draft.pool == "/mnt/slow-storage"
        assert screen.query_one("#opt-pool", Input).value == "/mnt/slow-storage"
        assert screen.query_one("#opt-minfreespace", Input).value == "300G"
        assert notes(app)[-1] == "Started from the pool /mnt/slow-storage: add its cache with c."


async def test_compose_help_lists_its_keys(demo_host: RecordedHost) -> None:
    app = demo_app(demo_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_compose(pilot, app)
        page = await open_help(pilot, screen)
        text = check_page(app, page, screen)
        assert "add the highlighted mount to the cache tier" in text


async def test_wide_terminals_show_the_checks_beside_the_views(demo_host: RecordedHost) -> None:
    app = demo_app(demo_host)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await open_compose(pilot, app)
        assert screen.wide and screen.query_one("#compose-side").display
        await highlight(pilot, screen, "/cache")
        await pilot.press("c")
        await highlight(pilot, screen, "/mnt/disk1")
        await pilot.press("s", "3")  # no third view here: 3 goes to the checks beside
        assert screen.query_one("#compose-side").has_focus
        assert screen.query_one(TabbedContent).active == "tab-branches"
        assert "the mover starts at 80%" in shown_text(screen.query_one("#side-rules"))


async def seen(pilot: Pilot[None], widget: Widget) -> str:
    """What ``widget`` shows once scrolled into view, as a user would look for it."""
    widget.scroll_visible(animate=False, immediate=True)
    await pilot.pause()
    return shown_text(widget)


async def test_a_low_watermark_at_the_high_one_is_an_inline_error(
    demo_host: RecordedHost,
) -> None:
    app = demo_app(demo_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_compose(pilot, app, "3", "down")  # the seed's pool: slow tier
        await highlight(pilot, screen, "/cache")
        await pilot.press("c", "2")
        error = screen.query_one("#error-fill_low")
        fill = screen.query_one("#compose-fill")
        assert not error.display
        assert "below the 80 % high watermark" in await seen(pilot, fill)
        await type_into(pilot, screen, "fill_low", "80")
        assert "fill_low_pct: must be 0..fill_high_pct-1" in await seen(pilot, error)
        assert "not a layout yet" in shown_text(screen.query_one("#compose-summary"))
        assert await seen(pilot, fill) == ""
        await type_into(pilot, screen, "fill_high", "90")  # fixed from the other side
        assert not error.display
        assert "below the 90 % high watermark" in await seen(pilot, fill)
        assert screen.evaluation is not None and screen.evaluation.layout is not None
        assert screen.evaluation.layout.mover.fill_low_pct == 80


async def test_cycling_a_slow_branch_mode_changes_the_fstab_preview(
    demo_host: RecordedHost,
) -> None:
    app = demo_app(demo_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_compose(pilot, app, "3", "down")
        await highlight(pilot, screen, "/cache")
        await pilot.press("c", "3")
        fstab = screen.query_one("#compose-fstab")
        assert "/cache=RW:/mnt/disk1=RW:/mnt/disk2=RW " in await seen(pilot, fstab)
        for mode in ("NC", "RO", "RW"):
            await pilot.press("1")
            await highlight(pilot, screen, "/mnt/disk2")
            await pilot.press("m", "3")
            assert f"/cache=RW:/mnt/disk1=RW:/mnt/disk2={mode} " in await seen(pilot, fstab)
        await pilot.press("1", "ctrl+home")
        await highlight(pilot, screen, "/cache")
        await pilot.press("m")  # a cache branch has no mode of its own: nothing changes
        assert screen.draft.cache == ("/cache",) and screen.draft.tier_of("/cache") == "cache"
