"""The ladder from the dashboard on the lab NAS, nothing replaced: p on the lab's
pool/cached, the menu's "run it", the real plan (probes, the policy's branch) and real
fio on every rung through real throwaway mounts; the table ends with five rungs (the
cache and a slow branch of the tiered pool, the pool, tmpfs, nullrw), each a stored run
tagged with the ladder (enter opens one), the job it ran said under the diagnosis, and
nothing is left mounted under this process's throwaway root. The rungs last 1 s here
(the default runtime patched: the users' is longer)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tierdeck.app.history.run_sets import RunSetKind, RunSetStore, set_tag
from tierdeck.app.ladder import plan as ladder_plan
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import LiveHost
from tierdeck.core.ladder.model import RungKind
from tierdeck.screens.history.run_detail import RunDetailScreen
from tierdeck.screens.modals.choice import ChoiceScreen
from tierdeck.screens.sequence.ladder import LadderScreen

from tests.integration.test_ladder_lab import no_leftovers
from tests.pilot.waiting import press_p_on_pool, screen_text
from tests.waiting import wait_until

pytestmark = pytest.mark.integration


async def test_p_runs_the_real_ladder_on_the_labs_tiered_pool(
    lab_nas: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(ladder_plan, "DEFAULT_RUNTIME", 1)
    pool = str(lab_nas / "pool" / "cached")
    app = TierdeckApp(LiveHost(), hotplug=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await press_p_on_pool(pilot, app, pool)
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the menu")
        await pilot.press("enter")  # run it, with the default job
        await wait_until(pilot, lambda: isinstance(app.screen, LadderScreen), "the ladder")
        view = app.screen
        assert isinstance(view, LadderScreen)
        await wait_until(
            pilot, lambda: view.rungs_done == 5 and not view.running, "five rungs", timeout=180
        )
        kinds = [r.kind for r in view.rungs]
        assert kinds == [
            RungKind.BRANCH,
            RungKind.BRANCH,
            RungKind.POOL,
            RungKind.TMPFS,
            RungKind.NULLRW,
        ]
        assert [r.label for r in view.rungs[:2]] == ["branch", "slow"]
        assert all(r.skipped is None and r.run_id is not None for r in view.rungs)
        text = " ".join(screen_text(app).split())
        assert (
            "Diagnosis" in text and "Job: sequential 1 MiB writes, O_DIRECT, 1 s per rung" in text
        )
        # enter: pick the pool's rung, its stored run opens in full
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the rungs")
        await pilot.press("down", "down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, RunDetailScreen), "the run")
        detail = app.screen
        assert isinstance(detail, RunDetailScreen)
        await wait_until(pilot, lambda: detail.run is not None, "the run loaded")
        assert detail.run is not None and detail.run.id == view.rungs[2].run_id
        assert detail.run.target.path == pool
    store = RunSetStore()
    ladder = store.list_sets(RunSetKind.LADDER)[0]
    tagged = {r.id for r in store.list(tag=set_tag(RunSetKind.LADDER, ladder.id))}
    assert tagged == {r.run_id for r in view.rungs}
    no_leftovers(os.getpid())
