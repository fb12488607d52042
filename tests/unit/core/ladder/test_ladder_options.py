"""Mount options of the ladder's throwaway pools, and ``--option`` values."""

from __future__ import annotations

import pytest
from tierdeck.core.ladder.options import (
    THROWAWAY_FSNAME,
    OptionSweep,
    OptionSweepError,
    parse_option_sweep,
    pool_mount_options,
    tmpfs_size_bytes,
)

# As backends/mergerfs reads the lab's pool/cached (mergerfs 2.33.5): keys normalised.
POOL = {
    "async-read": "true",
    "branches": "/mnt/cache=RW:/mnt/hdd0=RW",
    "cache.files": "libfuse",
    "cache.negative-entry": "0",
    "category.create": "ff",
    "category.action": "epall",
    "func.create": "ff",
    "fsname": "lab-cached",
    "minfreespace": "67108864",
    "mount": "/pool/cached",
    "pid": "5596",
    "srcmounts": "/mnt/cache:/mnt/hdd0",
    "statfs-ignore": "none",
    "follow-symlinks": "never",
    "version": "2.33.5",
    "some-future-key": "1",
    "empty": "",
}


def test_pool_options_respelled_as_mergerfs_2_33_takes_them() -> None:
    options = pool_mount_options(POOL)
    pairs = dict(options.pairs)
    # mergerfs 2.33.5 refuses "cache.negative-entry" at mount: the "_" spelling goes
    assert pairs["cache.negative_entry"] == "0"
    assert pairs["async_read"] == "true"
    assert pairs["statfs_ignore"] == "none"
    assert pairs["follow-symlinks"] == "never"  # listed with "-" by 2.33 itself
    assert pairs["func.create"] == "ff"
    assert pairs["minfreespace"] == "67108864"
    assert pairs["fsname"] == THROWAWAY_FSNAME
    for gone in ("branches", "srcmounts", "mount", "pid", "version", "category.create"):
        assert gone not in pairs
    assert options.dropped == ("some-future-key",)


def test_with_option_replaces_the_pools_value_last() -> None:
    options = pool_mount_options(POOL).with_option("cache.files", "off")
    assert options.pairs[-1] == ("cache.files", "off")
    assert [k for k, _ in options.pairs].count("cache.files") == 1
    assert "cache.files=off" in options.text()
    assert options.with_option("nullrw", "true").pairs[-1] == ("nullrw", "true")


def test_option_sweep_parsed_and_respelled() -> None:
    assert parse_option_sweep("cache.files=off,partial,auto-full") == OptionSweep(
        "cache.files", ("off", "partial", "auto-full")
    )
    assert parse_option_sweep("async-read=true,false") == OptionSweep(
        "async_read", ("true", "false")
    )
    assert parse_option_sweep("minfreespace=1G,100M").values == ("1G", "100M")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("cache.files", "NAME=V1,V2"),
        ("=off", "NAME=V1,V2"),
        ("fsname=a,b", "cannot sweep 'fsname'"),
        ("bogus=1", "cannot sweep 'bogus'"),
        ("cache.files=off,bogus", "'bogus' is not one of"),
        ("direct_io=yes", "'yes' is not one of true, false"),
        ("cache.files=off,,partial", "empty value"),
        ("cache.files=off,off", "given twice"),
        ("minfreespace=lots", "not a size"),
        ("threads=1,2,3,4,5,6,7,8,9", "at most 8"),
    ],
)
def test_option_sweep_refused_clearly(text: str, said: str) -> None:
    with pytest.raises(OptionSweepError, match=said):
        parse_option_sweep(text)


def test_tmpfs_size_has_a_margin() -> None:
    mib = 1024 * 1024
    assert tmpfs_size_bytes(8 * mib) == 24 * mib
    assert tmpfs_size_bytes(1000 * mib) == 1100 * mib
    assert tmpfs_size_bytes(1) % mib == 0
