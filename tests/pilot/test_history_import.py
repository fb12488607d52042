"""``i`` in the history list imports files of fio output, as `history import` does:
the run appears, selected; a file that is not fio output is refused with the reason and
nothing is stored."""

from __future__ import annotations

from pathlib import Path

from textual.notifications import Notification
from textual.pilot import Pilot
from textual.widgets import Input
from tierdeck.app.history import HistoryStore
from tierdeck.core.bench_models import RunStatus
from tierdeck.screens.confirm import PromptScreen
from tierdeck.screens.history import HistoryScreen

from tests.snapshot_apps.bench_data import HistoryApp
from tests.waiting import wait_until

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fio_import"


async def import_through_prompt(pilot, app: HistoryApp, text: str) -> HistoryScreen:  # type: ignore[no-untyped-def]
    await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), "history")
    screen = app.screen
    assert isinstance(screen, HistoryScreen)
    await wait_until(pilot, lambda: screen.loads > 0, "the first listing")
    await pilot.press("i")
    await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the prompt")
    app.screen.query_one(Input).value = text
    await pilot.press("enter")
    await wait_until(pilot, lambda: app.screen is screen, "back to the list")
    return screen


async def notified(pilot: Pilot[None], app: HistoryApp, words: str) -> Notification:
    """The first notification saying ``words``, once it is shown."""
    await wait_until(
        pilot, lambda: any(words in n.message for n in app._notifications), repr(words)
    )
    return next(n for n in app._notifications if words in n.message)


async def test_i_imports_a_fio_json_file(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    app = HistoryApp(path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await import_through_prompt(pilot, app, str(FIXTURES / "fio333_sigint.json"))
        await wait_until(pilot, lambda: len(screen.runs) == 1, "the imported run listed")
        assert screen.runs[0].imported is not None
        assert screen.selected_id == screen.runs[0].id
    assert len(HistoryStore(path).list()) == 1


async def test_a_file_that_is_not_fio_output_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("zpool status\n  pool: tank\n state: ONLINE\n")
    path = tmp_path / "history.sqlite3"
    app = HistoryApp(path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await import_through_prompt(pilot, app, str(junk))
        await notified(pilot, app, "not imported")
        assert screen.runs == []
    assert HistoryStore(path).list(status=None) == []


async def test_the_prompt_refuses_a_missing_file(tmp_path: Path) -> None:
    app = HistoryApp(tmp_path / "history.sqlite3")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), "history")
        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the prompt")
        app.screen.query_one(Input).value = str(tmp_path / "nope.json")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)  # stays, with the reason


async def test_a_failed_run_is_imported_and_says_where_to_find_it(tmp_path: Path) -> None:
    # fio 3.33's JSON of a real O_DIRECT open refused by ramfs: job error 22
    failed = FIXTURES.parent / "fio" / "fio333_odirect_ramfs.stdout"
    path = tmp_path / "history.sqlite3"
    app = HistoryApp(path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await import_through_prompt(pilot, app, str(failed))
        note = await notified(pilot, app, "fio error 22")
        assert note.message == (
            "fio333_odirect_ramfs.stdout: imported as run #1 (failed: fio error 22, Invalid"
            " argument; f lists the failed runs)."
        )
        assert note.severity == "warning"
        assert screen.runs == []  # the ok runs' list, as the notification says
    assert [r.id for r in HistoryStore(path).list(status=RunStatus.FAILED)] == [1]
