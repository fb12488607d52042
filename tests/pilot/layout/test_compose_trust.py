"""The compose screen as a newcomer found it, on the demo NAS (seed 000) at 80x24: a mount
made after the screen opened, a tmpfs, where the focus goes and how it shows, leaving
with a layout not saved, a pool tierdeck applied, and saving a layout that breaks a rule."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from textual.widget import Widget
from textual.widgets import Input
from tierdeck.app.machine.demo import demo_host_path
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import RecordedHost
from tierdeck.core.layout.apply_plan import FSTAB, UNIT_DIR, block_name, replace_block
from tierdeck.core.layout.model import Branch, BranchMode, default_layout
from tierdeck.core.layout.outputs import layout_outputs
from tierdeck.core.layout.toml_format import layout_to_toml
from tierdeck.core.models import Inventory, MergerfsBranch, Mount
from tierdeck.screens.layout.compose import ComposeScreen
from tierdeck.screens.modals.confirm import ConfirmScreen, PromptScreen
from tierdeck.widgets.layout.compose_options import OptionsForm
from tierdeck.widgets.layout.compose_views import CandidateTable

from tests.waiting import wait_until

from ..history.test_compare import notes
from ..waiting import screen_text, wait_for_inventory
from .test_compose import SIZE, highlight, open_compose

GIB = 1024**3


def mount(path: str, fs_type: str, source: str, mount_id: int) -> Mount:
    # As mountinfo and statvfs give them for a 16 GiB filesystem, half used.
    return Mount(mount_id, 27, f"0:{mount_id}", "/", path, fs_type, source, ("rw", "relatime"),
                 ("rw",), 16 * GIB, 8 * GIB, 8 * GIB)  # fmt: skip


def with_mounts(inv: Inventory, *mounts: Mount) -> Inventory:
    return dataclasses.replace(inv, mounts=(*inv.mounts, *mounts))


def app_of(inventories: list[Inventory], host: RecordedHost) -> TierdeckApp:
    """The demo app whose refreshes load ``inventories`` in turn (the last one stays)."""

    def collect(_: object) -> Inventory:
        return inventories.pop(0) if len(inventories) > 1 else inventories[0]

    return TierdeckApp(host, demo=True, hotplug=False, collect=collect)


def paths(screen: ComposeScreen) -> list[str]:
    return [c.path for c in screen.query_one(CandidateTable).rows_shown]


async def test_r_brings_a_filesystem_mounted_since(
    demo_host: RecordedHost, demo_inventory: Inventory
) -> None:
    later = with_mounts(demo_inventory, mount("/mnt/disk3", "ext4", "/dev/sdf1", 900))
    app = app_of([demo_inventory, later], demo_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_compose(pilot, app)
        await highlight(pilot, screen, "/cache")
        await pilot.press("c")
        assert "/mnt/disk3" not in paths(screen)
        await pilot.press("r")
        await wait_for_inventory(pilot, app, after=1)
        await wait_until(pilot, lambda: "/mnt/disk3" in paths(screen), "the new mount")
        assert screen.draft.cache == ("/cache",)  # what was picked stays picked
        assert "New mount to pick: /mnt/disk3" in notes(app)
        await highlight(pilot, screen, "/mnt/disk3")
        await pilot.press("s")
        assert [b.path for b in screen.draft.slow] == ["/mnt/disk3"]


async def test_a_tmpfs_is_a_candidate_the_systems_own_are_not(
    demo_host: RecordedHost, demo_inventory: Inventory
) -> None:
    ram = with_mounts(demo_inventory, mount("/mnt/ram", "tmpfs", "tmpfs", 901))
    app = app_of([ram], demo_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_compose(pilot, app)
        shown = {c.path: c for c in screen.query_one(CandidateTable).rows_shown}
        assert shown["/mnt/ram"].media == "RAM"
        assert not {"/run", "/run/lock", "/dev/shm", "/sys/fs/cgroup"} & set(shown)
        await highlight(pilot, screen, "/mnt/ram")
        await pilot.press("c")
        assert screen.draft.cache == ("/mnt/ram",)


async def test_2_shows_the_options_without_putting_a_key_into_a_field(
    demo_host: RecordedHost,
) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_compose(pilot, app)
        await pilot.press("2")
        form = screen.query_one(OptionsForm)
        await wait_until(pilot, lambda: form.has_focus, "the options view focused")
        pool = screen.query_one("#opt-pool", Input)
        await pilot.press("x", "X")  # x is remove on view 1: here neither key edits
        assert pool.value == "/mnt/tiered" and screen.draft.pool == "/mnt/tiered"
        await pilot.press("tab")  # into the first field: the cursor at the end, no selection
        assert pool.has_focus and pool.region.height and form.scroll_y == 0
        assert pool.selection.is_empty and pool.cursor_position == len(pool.value)
        await pilot.press("/", "a")
        assert screen.draft.pool == "/mnt/tiered/a"


async def test_back_on_view_1_the_mounts_have_the_focus(demo_host: RecordedHost) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_compose(pilot, app)
        table = screen.query_one(CandidateTable)
        await pilot.press("2", "tab", "escape")  # into a field and out again
        assert screen.query_one(OptionsForm).has_focus
        screen.query_one("#opt-create").focus()
        await pilot.press("escape")  # out of the policy list's field too, not off the screen
        assert screen.query_one(OptionsForm).has_focus and app.screen is screen
        await pilot.press("1")
        await wait_until(pilot, lambda: table.has_focus, "the mounts focused")
        await pilot.press("3")
        await pilot.click("#--content-tab-tab-branches")  # the tab by mouse
        await wait_until(pilot, lambda: table.has_focus, "the mounts focused again")
        await pilot.press("down", "c")
        assert screen.draft.cache == (table.highlighted_path,)


async def test_c_s_x_wait_for_view_1(demo_host: RecordedHost) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_compose(pilot, app)
        await highlight(pilot, screen, "/cache")
        await pilot.press("c", "3", "x", "s")  # on the checks: the row is out of sight
        assert screen.draft.cache == ("/cache",) and screen.draft.slow == ()


@pytest.mark.parametrize("key", ["escape", "q"])
async def test_leaving_asks_before_losing_a_composed_layout(
    demo_host: RecordedHost, key: str
) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_compose(pilot, app)
        await highlight(pilot, screen, "/cache")
        await pilot.press("c", key)
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is screen, "still composing")
        assert screen.draft.cache == ("/cache",)
        await pilot.press("x", key)  # back to where it started: nothing to lose, no question
        if key == "q":
            await wait_until(pilot, lambda: app.return_code is not None, "tierdeck quit")
        else:
            await wait_until(pilot, lambda: app.screen is app.dashboard, "the dashboard")


async def test_escape_after_saving_leaves_at_once(
    demo_host: RecordedHost, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the prompt's file name, relative
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_compose(pilot, app)
        await highlight(pilot, screen, "/cache")
        await pilot.press("c")
        await highlight(pilot, screen, "/mnt/disk1")
        await pilot.press("s", "ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the prompt")
        await pilot.press("enter")  # the name offered
        await wait_until(pilot, (tmp_path / "tierdeck-layout.toml").exists, "the saved file")
        await wait_until(pilot, lambda: app.screen is screen, "back on the screen")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.dashboard, "the dashboard")


def applied_host(files: dict[str, str]) -> RecordedHost:
    class WithFiles(RecordedHost):
        def read_text(self, path: str) -> str:
            return files[path] if path in files else super().read_text(path)

    return WithFiles(demo_host_path())


def applied_pool(inv: Inventory) -> tuple[Inventory, dict[str, str]]:
    """The demo NAS after `layout apply /srv/tiers.toml` of /cache in front of disk1 and
    disk2 (NC) at /mnt/cached, its mover daily: the pool mergerfs reports, and the files
    apply left (fstab with its block, the mover's service) beside the layout file."""
    layout = default_layout(("/cache",), (Branch("/mnt/disk1"), Branch("/mnt/disk2", BranchMode.NC)),
                            "/mnt/cached", "/mnt/slow-storage")  # fmt: skip
    layout = dataclasses.replace(layout, mover=dataclasses.replace(layout.mover, schedule="daily"))
    outputs = layout_outputs(layout, layout_path="/srv/tiers.toml")
    fstab = "# /etc/fstab: static file system information.\n/dev/sda1 / ext4 defaults 0 1\n"
    files = {FSTAB: replace_block(fstab, block_name(layout), outputs.fstab),
             f"{UNIT_DIR}/{outputs.mover_service}": outputs.units[outputs.mover_service],
             "/srv/tiers.toml": layout_to_toml(layout)}  # fmt: skip
    branches = tuple(MergerfsBranch(b.path, b.mode, None) for b in layout.tiered_branches())
    pools = tuple(dataclasses.replace(p, branches=branches) if p.mountpoint == "/mnt/cached"
                  else p for p in inv.mergerfs)  # fmt: skip
    return dataclasses.replace(inv, mergerfs=pools), files


async def test_l_on_a_pool_tierdeck_applied_knows_its_cache(demo_inventory: Inventory) -> None:
    inv, files = applied_pool(demo_inventory)
    app = app_of([inv], applied_host(files))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_compose(pilot, app, "3")  # the first pool: /mnt/cached
        assert screen.draft.cache == ("/cache",)
        assert [(b.path, b.mode) for b in screen.draft.slow] == [
            ("/mnt/disk1", BranchMode.RW), ("/mnt/disk2", BranchMode.NC)]  # fmt: skip
        assert (screen.draft.pool, screen.draft.slow_pool) == ("/mnt/cached", "/mnt/slow-storage")
        assert screen.draft.schedule == "daily"  # the mover's, from the file its unit runs
        assert "tierdeck applied" in notes(app)[-1]
        await pilot.press("escape")  # nothing changed since: no question
        await wait_until(pilot, lambda: app.screen is app.dashboard, "the dashboard")


async def test_ctrl_s_refuses_a_layout_that_breaks_a_rule(demo_host: RecordedHost) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        # The seed's slow pool: eplus, and 300G minfreespace over a 231G cache.
        screen = await open_compose(pilot, app, "3", "down")
        await highlight(pilot, screen, "/cache")
        await pilot.press("c")
        for key in ("ctrl+s", "w", "o"):
            await pilot.press(key)
            assert not isinstance(app.screen, PromptScreen), key
            said = notes(app)[-1]
            assert said.startswith("Not written: the layout breaks a rule: "), said
            # the first rule broken, in the checks' words; minfreespace is the other
            assert "eplus does not send new files to the cache first (and 1 more error)" in said


def distance(a: Widget, b: Widget) -> int:
    """How far apart two widgets' backgrounds are, 0..765 (sum over R, G, B)."""
    one, two = (w.rich_style.bgcolor for w in (a, b))
    assert one is not None and two is not None
    return sum(abs(x - y) for x, y in zip(one.get_truecolor(), two.get_truecolor(), strict=True))


async def test_the_focus_is_plain_to_see(demo_host: RecordedHost) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_compose(pilot, app)
        table, form = screen.query_one(CandidateTable), screen.query_one(OptionsForm)
        assert table.has_focus and table.styles.border_left[0] == "thick"
        await pilot.press("2")
        await wait_until(pilot, lambda: form.has_focus, "the options view")
        assert form.styles.border_left[0] == "thick"
        await pilot.press("tab")
        pool, slow_pool = screen.query_one("#opt-pool"), screen.query_one("#opt-slow_pool")
        await wait_until(pilot, lambda: pool.has_focus, "the first field")
        assert form.styles.border_left[0] != "thick"  # the field has it now, not the view
        assert distance(pool, slow_pool) > 150  # Textual's compact field: 5 % grey, 27


async def test_at_80_columns_fstab_breaks_between_options_and_the_header_marks_a_cut(
    demo_host: RecordedHost,
) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_compose(pilot, app, "3", "down")
        await highlight(pilot, screen, "/cache")
        await pilot.press("c", "3")
        fstab = screen.query_one("#compose-fstab")
        fstab.scroll_visible(animate=False, immediate=True)
        await pilot.pause()
        shown = screen_text(app)
        assert screen.evaluation is not None
        for line in screen.evaluation.fstab:
            for option in line.split()[3].split(","):
                assert option in shown, option  # whole, on one row
        await pilot.press("2")
        field = screen.query_one("#opt-pool", Input)
        field.value = "srv/" + "very-long-directory-name/" * 4 + "pool"  # not absolute
        await pilot.pause()
        header = screen_text(app).splitlines()[1:3]
        assert header[0].strip().startswith("not a layout yet: tiered_pool.mountpoint:")
        assert header[1].rstrip().endswith("…")


async def test_the_footer_has_quit_at_80_columns_and_every_key_at_160(
    demo_host: RecordedHost,
) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_compose(pilot, app)
        await wait_until(pilot, lambda: screen_text(app).splitlines()[-1].strip(), "the footer")
        footer = screen_text(app).splitlines()[-1]
        assert "q Quit" in footer and footer.rstrip().endswith("? Help")  # nothing cut
        await pilot.resize_terminal(160, 50)
        await wait_until(pilot, lambda: "p From pool" in screen_text(app), "the wide footer")
        footer = screen_text(app).splitlines()[-1]
        assert all(key in footer for key in ("m Mode", "o Write", "v Mover", "q Quit"))
