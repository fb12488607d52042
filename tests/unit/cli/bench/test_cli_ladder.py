"""``tierdeck bench ladder``'s refusals: exit 2 with one clear line, before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from tierdeck.app.cli.bench import ladder as cli_ladder
from tierdeck.app.cli.common import EXIT_REFUSED


def test_unknown_option_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli_ladder.ladder_cmd, ["--target", str(tmp_path), "--option", "bogus=1,2"]
    )
    assert result.exit_code == EXIT_REFUSED
    assert "tierdeck cannot sweep 'bogus'" in result.output


def test_not_a_mergerfs_pool_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tierdeck.app.ladder import throwaway_mounts
    from tierdeck.app.machine import inventory
    from tierdeck.app.machine.demo import load_demo_host

    recorded = inventory.collect_inventory(load_demo_host())
    monkeypatch.setattr(inventory, "collect_inventory", lambda _host: recorded)
    monkeypatch.setattr(throwaway_mounts, "clean_stale", lambda _host: [])
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path))
    result = CliRunner().invoke(cli_ladder.ladder_cmd, ["--target", str(tmp_path)])
    assert result.exit_code == EXIT_REFUSED
    assert f"refused: {tmp_path} is not a mergerfs pool's mountpoint" in result.output


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--client", "laptop"], "--client and --client-path go together"),
        (["--client-path", "/mnt/nas"], "--client and --client-path go together"),
        (["--client", "laptop", "--client-path", "mnt/nas"], "a full path on the client"),
        (
            ["--client", "laptop", "--client-path", "/mnt/nas", "--option", "async_read=true"],
            "--client adds a rung to the layer ladder: leave out --option",
        ),
    ],
)
def test_client_options_are_checked_before_anything_runs(args: list[str], said: str) -> None:
    result = CliRunner().invoke(cli_ladder.ladder_cmd, ["--target", "/mnt/pool", *args])
    assert result.exit_code == EXIT_REFUSED
    assert said in result.output


def test_the_help_explains_the_network_rung() -> None:
    result = CliRunner().invoke(cli_ladder.ladder_cmd, ["--help"])
    assert "--client HOST" in result.output and "--client-path PATH" in result.output
    assert "no fio port is opened on the network" in " ".join(result.output.split())
