"""A sweep from the dashboard on the lab NAS, nothing replaced: w, the sweep file's
path typed, the real plan (fio --parse-only, each cell's preflight) and real fio per
cell; the matrix ends with both cells done, each a stored run tagged with the sweep,
and no test file is left in the target."""

from __future__ import annotations

from pathlib import Path

import pytest
from tierdeck.app.history.run_sets import RunSetKind, RunSetStore, set_tag
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import LiveHost
from tierdeck.core.jobspec import BENCH_FILE_PREFIX
from tierdeck.screens.modals.confirm import PromptScreen
from tierdeck.screens.sequence.sweep import SweepScreen

from tests.pilot.waiting import paste_text, wait_for_inventory
from tests.waiting import wait_until

pytestmark = pytest.mark.integration


async def test_w_runs_a_real_sweep_file_on_the_lab(
    lab_nas: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path / "data"))
    target = lab_nas / "mnt" / "hdd0"
    sweep = tmp_path / "two.toml"
    sweep.write_text(
        'schema = "tierdeck.sweep/1"\nname = "two depths"\n'
        f'target = "{target}"\n'
        '[base]\nrw = "randread"\nbs = "4k"\nsize = "8m"\nruntime = 1\ntime_based = true\n'
        "[axes]\niodepth = [1, 4]\n"
    )
    app = TierdeckApp(LiveHost(), hotplug=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_inventory(pilot, app)
        await pilot.press("w")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the prompt")
        await paste_text(pilot, str(sweep))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SweepScreen), "the sweep view")
        view = app.screen
        assert isinstance(view, SweepScreen)
        await wait_until(
            pilot, lambda: view.cells_done == 2 and not view.running, "both cells", timeout=120
        )
        assert view.result.complete
        run_ids = [c.run_id for c in view.result.cells]
    store = RunSetStore()
    found = store.list_sets(RunSetKind.SWEEP)[0]
    assert found.name == "two depths"
    tagged = {r.id for r in store.list(tag=set_tag(RunSetKind.SWEEP, found.id))}
    assert tagged == set(run_ids) and len(tagged) == 2
    assert [p.name for p in target.iterdir() if p.name.startswith(BENCH_FILE_PREFIX)] == []
