"""A layout's health check timer: its [health] table, the service and timer it renders
beside the mover's, `layout plan --health-timer`, and apply/undo into --root writing and
removing exactly those units (as the mover's)."""

from __future__ import annotations

import dataclasses
import json
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import cast

import pytest
from tierdeck.app.layout.applied import read_applied_tiers
from tierdeck.app.layout.apply import current_state, execute
from tierdeck.app.layout.draft import Draft, draft_from_pool, evaluate
from tierdeck.app.layout.output_files import output_files
from tierdeck.app.machine.demo import load_demo_host
from tierdeck.app.machine.inventory import collect_inventory
from tierdeck.backends.host import Host
from tierdeck.core.layout.apply_plan import ActionKind, ApplyAction, CurrentState, plan_apply
from tierdeck.core.layout.model import (
    DEFAULT_PROMETHEUS_FILE,
    HealthTimer,
    Layout,
    LayoutError,
    default_layout,
)
from tierdeck.core.layout.outputs import layout_outputs
from tierdeck.core.layout.toml_format import layout_from_toml, layout_to_toml

from ..cli.test_cli_layout_apply import FSTAB, UNITS, tree
from ..cli_support import run
from ..core.layout.test_layout_toml import seed_layout
from .test_draft_applied import SLOW, FileHost, applied_files, pool
from .test_layout_apply_run import LAYOUT, MemoryHost, undo_all

HEALTH_UNITS = ["tierdeck-health-mnt-tiered.service", "tierdeck-health-mnt-tiered.timer"]


def _exec_start(text: str) -> list[str]:
    line = next(x for x in text.splitlines() if x.startswith("ExecStart="))
    return shlex.split(line.removeprefix("ExecStart="))


def test_no_health_timer_unless_the_layout_has_one() -> None:
    out = layout_outputs(seed_layout())
    assert out.health_service is None and out.health_timer is None
    assert not [name for name in out.units if "health" in name]
    assert "[health]" not in layout_to_toml(seed_layout())


def test_the_health_units_run_check_over_the_layout() -> None:
    layout = dataclasses.replace(seed_layout(), health=HealthTimer("*:0/30"))
    out = layout_outputs(layout, command=("/opt/td/bin/python", "-m", "tierdeck"),
                         layout_path="/etc/t/my %lay.toml")  # fmt: skip
    # after the mover's units, in the order apply writes them
    assert list(out.units)[-4:] == [out.mover_service, out.mover_timer,
                                    "tierdeck-health-mnt-cached.service",
                                    "tierdeck-health-mnt-cached.timer"]  # fmt: skip
    assert out.health_service == "tierdeck-health-mnt-cached.service"
    service = out.units[out.health_service]
    assert _exec_start(service) == [
        "/opt/td/bin/python", "-m", "tierdeck", "check", "--layout", "/etc/t/my %%lay.toml",
        "--keep-readings", "--prometheus", DEFAULT_PROMETHEUS_FILE,
    ]  # fmt: skip
    assert "Type=oneshot\n" in service
    # WARNING and CRITICAL are the verdict, not a failed service; UNKNOWN (3) is
    assert "SuccessExitStatus=1 2\n" in service
    assert "RequiresMountsFor" not in service  # an unmounted branch is what it reports
    timer = out.units[out.health_timer or ""]
    assert "OnCalendar=*:0/30\n" in timer and "Persistent=true\n" in timer
    assert "WantedBy=timers.target\n" in timer


def test_without_a_textfile_the_check_writes_none() -> None:
    layout = dataclasses.replace(seed_layout(), health=HealthTimer(prometheus=None))
    out = layout_outputs(layout, command="/usr/bin/tierdeck")
    words = _exec_start(out.units[out.health_service or ""])
    assert words == ["/usr/bin/tierdeck", "check", "--layout", "/etc/tierdeck/layout.toml",
                     "--keep-readings"]  # fmt: skip


def test_the_health_table_round_trips_and_is_checked() -> None:
    for health in (HealthTimer(), HealthTimer("daily", None), HealthTimer("hourly", "/x/a.prom")):
        layout = dataclasses.replace(seed_layout(), health=health)
        text = layout_to_toml(layout)
        assert "[health]" in text and layout_from_toml(text) == layout
    base = layout_to_toml(seed_layout())
    defaults = layout_from_toml(base + "\n[health]\n")
    assert defaults.health == HealthTimer("hourly", DEFAULT_PROMETHEUS_FILE)
    for table, key in (('prometheus = "tierdeck.txt"', "health.prometheus"),
                       ('prometheus = "/var/lib/x/tierdeck.txt"', "health.prometheus"),
                       ('schedule = ""', "health.schedule"),
                       ("schedule = 3", "health.schedule"),
                       ('when = "daily"', "health.when")):  # fmt: skip
        with pytest.raises(LayoutError) as err:
            layout_from_toml(f"{base}\n[health]\n{table}\n")
        assert err.value.key == key, table


def test_apply_plans_the_health_timer_after_the_movers() -> None:
    layout = dataclasses.replace(seed_layout(), health=HealthTimer())
    out = layout_outputs(layout)
    plan = plan_apply(layout, out, (), CurrentState(None), root=None, stamp="s")
    enabled = [a.argv for a in plan.actions if a.kind is ActionKind.ENABLE_TIMER]
    assert enabled == [("systemctl", "enable", "--now", out.mover_timer),
                       ("systemctl", "enable", "--now", out.health_timer)]  # fmt: skip
    written = [a.path for a in plan.actions if a.kind is ActionKind.WRITE_UNIT]
    assert written[-2:] == [f"/etc/systemd/system/{out.health_service}",
                            f"/etc/systemd/system/{out.health_timer}"]  # fmt: skip
    no_systemd = plan_apply(layout, out, (), CurrentState(None, systemd=False), root=None,
                            stamp="s")  # fmt: skip
    last = no_systemd.actions[-1]
    assert last.argv[-1] == out.health_timer and last.skipped and "systemd" in last.skipped


@pytest.fixture
def health_layout(tmp_path: Path) -> Path:
    file = tmp_path / "lay.toml"
    result = run("layout", "plan", "--demo", "--cache", "/cache", "--slow", "/mnt/disk1",
                 "--slow", "/mnt/disk2=NC", "--pool", "/mnt/tiered", "--slow-pool",
                 "/mnt/slow", "--health-timer", "--save", str(file))  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "--- tierdeck-health-mnt-tiered.timer" in result.output
    return file


def test_plan_json_names_the_health_units(tmp_path: Path) -> None:
    args = ["layout", "plan", "--demo", "--cache", "/cache", "--slow", "/mnt/disk1",
            "--pool", "/mnt/tiered", "--json"]  # fmt: skip
    without = json.loads(run(*args).output)
    assert without["outputs"]["health"] is None and "health" not in without["layout"]
    doc = json.loads(run(*args, "--health-timer").output)
    assert doc["outputs"]["health"] == {"service": HEALTH_UNITS[0], "timer": HEALTH_UNITS[1]}
    assert set(HEALTH_UNITS) <= set(doc["outputs"]["units"])
    assert doc["layout"]["health"] == {"schedule": "hourly", "prometheus": DEFAULT_PROMETHEUS_FILE}


def test_apply_writes_the_health_units_and_undo_removes_them(
    health_layout: Path, tmp_path: Path
) -> None:
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "fstab").write_text(FSTAB)
    before = tree(root)
    result = run("layout", "apply", str(health_layout), "--root", str(root), "--dry-run")
    assert "start the health check's timer tierdeck-health-mnt-tiered.timer" in result.output
    assert tree(root) == before
    result = run("layout", "apply", str(health_layout), "--root", str(root), "--yes")
    assert result.exit_code == 0, result.output
    units = root / "etc/systemd/system"
    assert sorted(p.name for p in units.iterdir()) == sorted(UNITS + HEALTH_UNITS)
    words = _exec_start((units / HEALTH_UNITS[0]).read_text())
    assert words[1:] == ["check", "--layout", str(health_layout), "--keep-readings",
                         "--prometheus", DEFAULT_PROMETHEUS_FILE]  # fmt: skip
    assert run("layout", "undo", "--root", str(root), "--yes").exit_code == 0
    assert not list(units.iterdir())
    assert (root / "etc/fstab").read_text() == FSTAB


def test_systemd_verifies_the_health_units(health_layout: Path, tmp_path: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    root = tmp_path / "root"
    assert run("layout", "apply", str(health_layout), "--root", str(root), "--yes").exit_code == 0
    units = root / "etc/systemd/system"
    for name in HEALTH_UNITS:
        check = subprocess.run(["systemd-analyze", "verify", str(units / name)],
                               capture_output=True, text=True, check=False)  # fmt: skip
        assert check.returncode == 0, (name, check.stderr)
        # verify only warns of a key it does not know, naming the file: none may
        complaints = [line for line in check.stderr.splitlines() if name in line]
        assert not complaints and "is not executable" not in check.stderr, check.stderr


# -- the compose screen's fields (app/layout/draft) -----------------------------------
DRAFT = Draft().add_cache("/cache").add_slow("/mnt/disk1").add_slow("/mnt/disk2")


def test_the_compose_draft_has_no_health_timer_until_a_schedule_is_typed() -> None:
    assert DRAFT.layout().health is None
    typed = DRAFT.typed("health_schedule", " daily ")
    assert typed.layout().health == HealthTimer("daily", DEFAULT_PROMETHEUS_FILE)
    assert typed.typed("prometheus", " ").layout().health == HealthTimer("daily", None)
    names = [f.key for f in output_files(typed.layout())]
    assert names[-2:] == HEALTH_UNITS  # the `o` key offers them with the rest


@pytest.mark.parametrize(
    ("name", "text", "says"),
    [
        ("prometheus", "/srv/tierdeck.txt", "reads only *.prom files"),
        ("prometheus", "tierdeck.prom", "is not an absolute path"),
    ],
)
def test_a_wrong_health_value_names_its_field(name: str, text: str, says: str) -> None:
    demo = load_demo_host()
    draft = DRAFT.typed("health_schedule", "hourly").typed(name, text)
    evaluation = evaluate(draft, collect_inventory(demo), demo)
    assert evaluation.layout is None and evaluation.problem_field == name
    assert evaluation.problem is not None and says in evaluation.problem


def test_a_pool_tierdeck_applied_keeps_its_health_timer() -> None:
    layout = default_layout(("/cache",), SLOW, "/mnt/tiered", "/mnt/slow")
    layout = dataclasses.replace(layout, health=HealthTimer("*:0/20", "/srv/p/td.prom"))
    files = applied_files(layout)
    live = pool("/mnt/tiered", "/cache", "/mnt/disk 1", "/mnt/disk2")
    found = read_applied_tiers(cast(Host, FileHost(files)), live)
    assert found is not None and found.health == layout.health
    draft = draft_from_pool(live, found)
    assert (draft.health_schedule, draft.prometheus) == ("*:0/20", "/srv/p/td.prom")
    assert draft.layout().health == layout.health
    without = dataclasses.replace(layout, health=None)
    files["/srv/nas/tiers.toml"] = layout_to_toml(without)
    found = read_applied_tiers(cast(Host, FileHost(files)), live)
    assert found is not None and found.health is None
    assert draft_from_pool(live, found).layout().health is None


def test_undo_stops_the_timers_apply_enabled_and_only_those() -> None:
    """On the machine itself (a host in memory): apply enables the mover's and the
    health check's timers; a second apply replaces them (nothing to disable when it is
    undone: the first apply's timers are put back); the last undo stops and disables
    both before their files go."""
    layout = dataclasses.replace(LAYOUT, health=HealthTimer())
    outputs = layout_outputs(layout)
    host = MemoryHost({"/proc/self/mountinfo": "", "/etc/fstab": "a\n"})

    def apply_once() -> None:
        state = current_state(host, layout, outputs, None)
        plan = plan_apply(layout, outputs, (), state, root=None, stamp="S")
        execute(host, plan, lambda action: None)

    apply_once()
    timers = [outputs.mover_timer, outputs.health_timer]
    assert [c[-1] for c in host.commands if c[1:3] == ("enable", "--now")] == timers
    apply_once()
    before = len(host.commands)
    undo_all(host)
    assert not [c for c in host.commands[before:] if c[1:2] == ("disable",)]
    assert f"/etc/systemd/system/{outputs.health_timer}" in host.files
    before = len(host.commands)
    undo_all(host)
    disabled = [c for c in host.commands[before:] if c[1:2] == ("disable",)]
    assert disabled == [("systemctl", "disable", "--now", t) for t in timers]
    assert host.commands[-1] == ("systemctl", "daemon-reload")
    assert not [p for p in host.files if p.startswith("/etc/systemd/system/")]


def test_a_layout_without_its_health_timer_takes_the_earlier_one_away() -> None:
    """Apply with a health timer, then the same layout without: the second apply stops
    and disables that timer and removes both files (the machine runs what the layout
    says); undoing it puts them back and starts the timer again."""
    with_health = dataclasses.replace(LAYOUT, health=HealthTimer())
    host = MemoryHost({"/proc/self/mountinfo": "", "/etc/fstab": "a\n"})

    def apply_once(layout: Layout) -> tuple[ApplyAction, ...]:
        outputs = layout_outputs(layout)
        state = current_state(host, layout, outputs, None)
        plan = plan_apply(layout, outputs, (), state, root=None, stamp="S")
        execute(host, plan, lambda action: None)
        return plan.actions

    apply_once(with_health)
    service, timer = (f"/etc/systemd/system/{n}" for n in HEALTH_UNITS)
    texts = {service: host.files[service], timer: host.files[timer]}
    actions = apply_once(LAYOUT)
    dropped = [(a.kind, a.argv or a.path) for a in actions
               if a.kind in (ActionKind.DISABLE_TIMER, ActionKind.REMOVE_FILE)]  # fmt: skip
    assert dropped == [
        (ActionKind.DISABLE_TIMER, ("systemctl", "disable", "--now", HEALTH_UNITS[1])),
        (ActionKind.REMOVE_FILE, service),
        (ActionKind.REMOVE_FILE, timer),
    ]
    assert service not in host.files and timer not in host.files
    assert ("systemctl", "disable", "--now", HEALTH_UNITS[1]) in host.commands
    before = len(host.commands)
    undo_all(host)
    assert {service: host.files[service], timer: host.files[timer]} == texts
    assert host.commands[before:][-1] == ("systemctl", "enable", "--now",
                                          HEALTH_UNITS[1])  # fmt: skip
    # nothing of the kind without an earlier health timer
    fresh = MemoryHost({"/proc/self/mountinfo": "", "/etc/fstab": "a\n"})
    outputs = layout_outputs(LAYOUT)
    plan = plan_apply(LAYOUT, outputs, (), current_state(fresh, LAYOUT, outputs, None),
                      root=None, stamp="S")  # fmt: skip
    assert not plan.removed
    assert not [a for a in plan.actions if a.kind is ActionKind.DISABLE_TIMER]
