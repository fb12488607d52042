"""Which interface carries a share's traffic: the server from the mount, the route's
interface (``ip -o route get`` as captured on the dev VM), and its byte counters read
through the host seam; every parser survives any text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tierdeck.backends.host import LiveHost
from tierdeck.backends.netdev import (
    parse_counter,
    parse_getent,
    parse_route_get,
    read_interface,
    route_interface,
    server_of,
)

# ip -o route get, iproute2 6.1 on the dev VM (Debian 12), 2026-11-27
ROUTE_LOCAL = "local 127.0.0.1 dev lo src 127.0.0.1 uid 0 \\    cache <local> \n"
ROUTE_VIA = "10.0.2.2 via 192.0.2.1 dev eth0 src 192.0.2.2 uid 0 \\    cache \n"
# getent ahosts localhost, glibc 2.36 on the same VM
GETENT = "127.0.0.1       STREAM localhost\n127.0.0.1       DGRAM  \n127.0.0.1       RAW    \n"


@pytest.mark.parametrize(
    ("source", "options", "server"),
    [
        ("root@10.200.31.1:/srv/lab/pool", (), "10.200.31.1"),  # sshfs
        ("nas:/export", (), "nas"),  # a name, resolved on the host later
        ("//nas.lan/media", ("rw", "addr=192.168.1.5"), "192.168.1.5"),  # CIFS's addr=
        ("//nas.lan/media", (), "nas.lan"),
        ("https://dav.example.org/remote.php/dav", (), "dav.example.org"),
        ("[fd00::5]:/tank", (), "fd00::5"),
        ("gdrive:", (), "gdrive"),  # an rclone remote: a name that will not resolve
        ("mergerfs", (), "mergerfs"),
    ],
)
def test_the_server_of_a_share(source: str, options: tuple[str, ...], server: str) -> None:
    assert server_of(source, options) == server


def test_the_route_and_getent_answers() -> None:
    assert parse_route_get(ROUTE_LOCAL) == "lo"
    assert parse_route_get(ROUTE_VIA) == "eth0"
    assert parse_route_get("RTNETLINK answers: Network is unreachable\n") is None
    assert parse_getent(GETENT) == "127.0.0.1"
    assert parse_getent("") is None


def test_this_machine_reaches_its_loopback_through_lo() -> None:
    host = LiveHost()
    if not host.has_tool("ip"):
        pytest.skip("needs iproute2's ip")
    assert route_interface(host, "127.0.0.1") == "lo"
    assert route_interface(host, "localhost") == "lo"
    counters = read_interface(host, "lo")
    assert counters is not None and counters.rx_bytes >= 0
    assert read_interface(host, "no-such-if0") is None


@given(st.text(), st.lists(st.text(), max_size=3))
def test_any_mount_source_gives_a_server_or_none(source: str, options: list[str]) -> None:
    server = server_of(source, tuple(options))
    assert server is None or (server and "/" not in server and " " not in server)


@given(st.text())
def test_any_answer_gives_an_interface_an_address_a_counter_or_none(text: str) -> None:
    interface = parse_route_get(text)
    assert interface is None or ("/" not in interface and interface.strip() == interface)
    assert parse_getent(text) is None or parse_getent(text) in text
    counter = parse_counter(text)
    assert counter is None or counter >= 0
