"""tierdeck layout plan/check/simulate on the demo NAS (seed 000: /cache, /mnt/disk1,
/mnt/disk2 and its two live pools): the plan's JSON object, rule errors and bad input
exiting 2, the saved file checked and simulated."""

from __future__ import annotations

import json
from pathlib import Path

from tierdeck.app.layout.files import load_layout

from ..cli_support import run

GOOD = ("layout", "plan", "--demo", "--cache", "/cache", "--slow", "/mnt/disk1",
        "--slow", "/mnt/disk2=NC", "--pool", "/mnt/tiered", "--slow-pool", "/mnt/slow",
        "--minfreespace", "20G")  # fmt: skip


def test_plan_json_object() -> None:
    result = run(*GOOD, "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["schema"] == "tierdeck.layout-plan/1"
    assert set(doc) == {"schema", "layout", "rules", "outputs"}
    assert doc["layout"]["format"] == "tierdeck.layout/1"
    assert doc["layout"]["slow"][1] == {"path": "/mnt/disk2", "mode": "NC"}
    assert {r["severity"] for r in doc["rules"]} <= {"ok", "warning"}
    assert set(doc["rules"][0]) == {"rule", "severity", "message", "reason"}
    fstab = doc["outputs"]["fstab"]
    assert fstab[0].startswith("/cache=RW:/mnt/disk1=RW:/mnt/disk2=NC /mnt/tiered fuse.mergerfs ")
    assert "minfreespace=20G" in fstab[0].split()[3].split(",")
    assert fstab[1].startswith("/mnt/disk1=RW:/mnt/disk2=RW /mnt/slow fuse.mergerfs ")
    units = doc["outputs"]["units"]
    mover = doc["outputs"]["mover"]
    assert list(units) == ["mnt-tiered.mount", "mnt-slow.mount", mover["service"],
                           mover["timer"]]  # fmt: skip
    assert "mover run --layout /etc/tierdeck/layout.toml" in units[mover["service"]]


def test_plan_text_and_save_then_check_and_simulate(tmp_path: Path) -> None:
    file = tmp_path / "lay.toml"
    result = run(*GOOD, "--save", str(file))
    assert result.exit_code == 0, result.output
    assert "fstab:" in result.output and "--- mnt-tiered.mount" in result.output
    assert f"--layout {file}" in result.output  # the service reads the saved file
    assert load_layout(file).tiered_pool.mountpoint == "/mnt/tiered"
    check = run("layout", "check", "--demo", str(file))
    assert check.exit_code == 0, check.output
    assert "create-cache-first" in check.output
    sim = run("layout", "simulate", "--demo", str(file), "--size", "10G")
    assert sim.exit_code == 0, sim.output
    rows = {line[2:].split()[0]: line for line in sim.output.splitlines()[4:]}
    assert rows["ff"].startswith("*") and rows["ff"].endswith("/cache")
    assert rows["mfs"].endswith("/mnt/disk1")  # disk2 is NC in the tiered pool
    assert "fails: EROFS" in rows["erofs"]


def test_seed_options_from_the_live_pool_break_rules_and_exit_2(tmp_path: Path) -> None:
    file = tmp_path / "lay.toml"
    result = run("layout", "plan", "--demo", "--cache", "/cache", "--from-pool",
                 "/mnt/slow-storage", "--pool", "/mnt/tiered", "--slow-pool", "/mnt/slow",
                 "--save", str(file))  # fmt: skip
    assert result.exit_code == 2
    # the plan is printed first, then the refusal
    assert "ERROR create-cache-first: eplus" in result.output
    assert "minfreespace 300G" in result.output
    assert "/cache=RW:/mnt/disk1=RW:/mnt/disk2=RW /mnt/tiered" in result.output
    assert not file.exists()


def test_from_pool_fills_slow_branches_and_options() -> None:
    result = run("layout", "plan", "--demo", "--cache", "/cache", "--from-pool",
                 "/mnt/slow-storage", "--slow-pool", "/mnt/slow", "--create", "ff",
                 "--minfreespace", "20G", "--option", "use_ino", "--json")  # fmt: skip
    doc = json.loads(result.output)
    assert doc["layout"]["tiered_pool"]["mountpoint"] == "/mnt/slow-storage"
    assert [b["path"] for b in doc["layout"]["slow"]] == ["/mnt/disk1", "/mnt/disk2"]
    options = doc["outputs"]["fstab"][0].split()[3].split(",")
    assert "cache.files=off" in options and "use_ino" in options
    assert "category.create=ff" in options


def test_bad_input_exits_2_with_one_line() -> None:
    cases = [
        ("--create", "bogus"),
        ("--minfreespace", "lots"),
        ("--from-pool", "/mnt/nowhere"),
        ("--option", "fsname=a b"),
    ]
    for extra in cases:
        result = run(*GOOD[:-2], *extra)  # without --minfreespace 20G
        assert result.exit_code == 2, (extra, result.output)
        assert result.output.count("\n") == 1 and result.output.startswith("tierdeck: ")
    two_slow = run("layout", "plan", "--demo", "--cache", "/cache", "--slow", "/mnt/disk1",
                   "--slow", "/mnt/disk2", "--pool", "/mnt/t")  # fmt: skip
    assert two_slow.exit_code == 2 and "slow pool" in two_slow.output


def test_check_and_simulate_refuse_bad_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("format = 1\n")
    for args in (("check",), ("simulate", "--size", "1G")):
        for path in (bad, tmp_path / "missing.toml"):
            result = run("layout", args[0], "--demo", str(path), *args[1:])
            assert result.exit_code == 2
            assert result.output.count("\n") == 1
    file = tmp_path / "lay.toml"
    assert run(*GOOD, "--save", str(file)).exit_code == 0
    result = run("layout", "simulate", "--demo", str(file), "--size", "10X")
    assert result.exit_code == 2 and "10X" in result.output


def test_check_exits_2_on_a_rule_error(tmp_path: Path) -> None:
    file = tmp_path / "lay.toml"
    assert run(*GOOD, "--save", str(file)).exit_code == 0
    file.write_text(file.read_text().replace('create = "ff"', 'create = "mfs"', 1))
    result = run("layout", "check", "--demo", str(file))
    assert result.exit_code == 2
    assert "ERROR create-cache-first" in result.output


def test_help_names_every_command() -> None:
    result = run("layout", "--help")
    for name in ("plan", "check", "simulate"):
        assert name in result.output
    plan = run("layout", "plan", "--help").output
    for flag in ("--cache", "--slow", "--pool", "--slow-pool", "--create", "--minfreespace",
                 "--option", "--from-pool", "--save", "--json"):  # fmt: skip
        assert flag in plan
