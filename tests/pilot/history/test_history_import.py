"""``i`` in the history list imports files of fio output, as `history import` does:
the run appears, selected; a file that is not fio output is refused with the reason and
nothing is stored."""

from __future__ import annotations

from pathlib import Path

from textual.notifications import Notification
from textual.pilot import Pilot
from textual.widgets import Input
from tierdeck.app.history.store import HistoryStore
from tierdeck.core.bench_models import RunStatus
from tierdeck.screens.history.history import HistoryScreen
from tierdeck.screens.modals.confirm import PromptScreen

from tests.pilot.waiting import history_listed
from tests.snapshots.apps.bench_data import HistoryApp
from tests.support.fio_notes import LEFT_OUT, notes_leaving_options_out, notes_with_a_failed_run
from tests.waiting import wait_until

from ...paths import FIXTURES as ALL_FIXTURES

FIXTURES = ALL_FIXTURES / "fio_import"


async def import_through_prompt(pilot, app: HistoryApp, text: str) -> HistoryScreen:  # type: ignore[no-untyped-def]
    screen = await history_listed(pilot, app)
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


async def test_a_notes_file_of_two_fio_runs_lists_both_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    app = HistoryApp(path)
    async with app.run_test(size=(80, 24)) as pilot:
        notes = FIXTURES / "fio31_dyu_write_read_notes.txt"
        screen = await import_through_prompt(pilot, app, str(notes))
        await wait_until(pilot, lambda: len(screen.runs) == 2, "both runs listed")
        messages = [n.message for n in app._notifications]
        assert f"{notes.name}: imported as runs #1, #2." in messages
        assert screen.selected_id == 2


async def test_job_options_left_out_are_said_at_once(tmp_path: Path) -> None:
    app = HistoryApp(tmp_path / "history.sqlite3")
    async with app.run_test(size=(80, 24)) as pilot:
        path = FIXTURES / "fio333_path_name_jsonplus.json"
        await import_through_prompt(pilot, app, str(path))
        await wait_until(
            pilot,
            lambda: any("imported as run #1" in n.message for n in app._notifications),
            "the import's notification",
        )
        (said,) = [n for n in app._notifications if "imported as run #1" in n.message]
        assert "fio option runtime=500ms not understood" in said.message
        assert said.severity == "warning"


async def test_options_left_out_by_each_run_of_a_notes_file_are_said(tmp_path: Path) -> None:
    notes = notes_leaving_options_out(tmp_path)  # each run leaves an option out
    app = HistoryApp(tmp_path / "history.sqlite3")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await import_through_prompt(pilot, app, str(notes))
        await wait_until(pilot, lambda: len(screen.runs) == 2, "both runs listed")
        (said,) = [n for n in app._notifications if "imported as runs #1, #2" in n.message]
        for n, (job, option) in enumerate(LEFT_OUT, start=1):
            assert f"run {n}: kept job {job!r}; fio option {option} not understood" in said.message
        assert said.severity == "warning"


async def test_a_failed_run_of_a_notes_file_is_said_with_the_options_left_out(
    tmp_path: Path,
) -> None:
    notes = notes_with_a_failed_run(tmp_path)  # run 2 failed (EIO); each leaves one out
    app = HistoryApp(tmp_path / "history.sqlite3")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await import_through_prompt(pilot, app, str(notes))
        said = await notified(pilot, app, "imported as runs #1, #2")
        assert said.message.startswith(
            "notes.txt: imported as runs #1, #2 (run 2 failed: fio error 5, Input/output"
            " error; f lists the failed runs). run 1: kept job"
        )
        for n, (job, option) in enumerate(LEFT_OUT, start=1):
            assert f"run {n}: kept job {job!r}; fio option {option} not understood" in said.message
        assert said.severity == "warning"
        await wait_until(pilot, lambda: [r.id for r in screen.runs] == [1], "the ok run listed")
        assert screen.selected_id == 1  # the run the list shows, not the failed one
