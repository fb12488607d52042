"""hosts.toml: read, written and refused clearly, whatever the file holds."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tierdeck.app.fleet.config import (
    FleetConfigError,
    FleetHost,
    add_host,
    fleet_toml,
    hosts_path,
    load_fleet,
    parse_fleet,
    remove_host,
    save_fleet,
)

GOOD = """
# two boxes
[[host]]
name = "nas"
ssh = "nas"
tags = ["home", "media"]

[[host]]
name = "backup-2"
ssh = "root@10.0.0.7:2222"
"""


def test_a_good_file_gives_its_hosts_in_order() -> None:
    assert parse_fleet(GOOD) == (
        FleetHost("nas", "nas", ("home", "media")),
        FleetHost("backup-2", "root@10.0.0.7:2222"),
    )


def test_what_is_written_reads_back(tmp_path: Path) -> None:
    hosts = parse_fleet(GOOD)
    save_fleet(hosts, tmp_path / "sub" / "hosts.toml")
    assert load_fleet(tmp_path / "sub" / "hosts.toml") == hosts
    assert parse_fleet(fleet_toml(())) == ()


def test_no_file_is_no_hosts_and_the_folder_follows_the_environment(_own_config: Path) -> None:
    assert hosts_path() == _own_config / "hosts.toml"
    assert load_fleet() == ()


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[[host]]\nname = 'nas'\n", "line 1 (host #1): no 'ssh'"),
        ("[[host]]\nname='a'\nssh='a'\n\n[[host]]\nssh = 'b'\n", "line 5 (host #2): no 'name'"),
        ("[[host]]\nname='a'\nssh='a'\n[[host]]\nname='a'\nssh='b'\n", "line 4: a second host named 'a'"),
        ("[[host]]\nname = 'nas'\nssh = '-oProxyCommand=x'\n", "line 1 (host #1): '-oProxyCommand=x' is not an ssh target"),
        ("[[host]]\nname = 'nas'\nssh = 'root@nas:99999'\n", "port 99999 is out of range"),
        ("[[host]]\nname = 'my nas'\nssh = 'nas'\n", "name 'my nas' is not a host name"),
        ("[[host]]\nname = 'nas'\nssh = 'nas'\ntags = 'home'\n", "'tags' must be a list of strings"),
        ("[[host]]\nname = 'nas'\nssh = 'nas'\nport = 22\n", "unknown key 'port'"),
        ("[[host]]\nname = 3\nssh = 'nas'\n", "'name' must be a string"),
        ("host = 'nas'\n", "'host' must be [[host]] tables"),
        ("[hosts]\n", "unknown key 'hosts'"),
        ("[[host]]\nname = 'nas\n", "not TOML: "),
    ],
)  # fmt: skip
def test_a_bad_file_says_where_and_what(text: str, said: str) -> None:
    with pytest.raises(FleetConfigError) as refused:
        parse_fleet(text)
    assert said in str(refused.value)
    assert "\n" not in str(refused.value)


def test_a_file_that_is_not_text_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "hosts.toml"
    path.write_bytes(b"[[host]]\nname = '\xff'\n")
    with pytest.raises(FleetConfigError, match="not UTF-8"):
        load_fleet(path)


@given(st.text(max_size=300))
def test_any_text_is_hosts_or_a_clear_error(text: str) -> None:
    try:
        hosts = parse_fleet(text)
    except FleetConfigError as exc:
        assert str(exc).startswith("hosts.toml")
    else:
        assert all(isinstance(h, FleetHost) for h in hosts)


_KEYS = st.sampled_from(["name", "ssh", "tags", "x"])
_VALUES = st.one_of(st.text(max_size=20), st.integers(), st.lists(st.text(max_size=5), max_size=3),
                    st.booleans(), st.lists(st.integers(), max_size=2))  # fmt: skip


@given(st.lists(st.dictionaries(_KEYS, _VALUES, max_size=4), max_size=4))
def test_any_tables_are_hosts_or_a_clear_error(tables: list[dict[str, object]]) -> None:
    import tomli_w

    text = tomli_w.dumps({"host": tables})
    try:
        hosts = parse_fleet(text)
    except FleetConfigError as exc:
        assert str(exc).startswith("hosts.toml") and "\n" not in str(exc)
    else:
        assert len(hosts) == len(tables)


def test_add_refuses_a_duplicate_and_a_bad_target_remove_an_unknown_name() -> None:
    hosts = add_host((), FleetHost("nas", "nas"))
    with pytest.raises(FleetConfigError, match="already in the fleet"):
        add_host(hosts, FleetHost("nas", "other"))
    with pytest.raises(FleetConfigError, match="not an ssh target"):
        add_host(hosts, FleetHost("b", "a b"))
    with pytest.raises(FleetConfigError, match="no host named 'x'"):
        remove_host(hosts, "x")
    assert remove_host(hosts, "nas") == ()
