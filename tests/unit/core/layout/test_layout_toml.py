"""The layout model and its TOML file (tierdeck.layout/1): round trips, the typed
LayoutError with the key at fault, and garbage that never raises anything else."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tierdeck.app.layout.files import load_layout, save_layout
from tierdeck.core.layout.model import (
    AgeBasis,
    Branch,
    BranchMode,
    CacheFiles,
    CreatePolicy,
    Layout,
    LayoutError,
    LayoutErrorKind,
    MoverPolicy,
    PoolOptions,
    PoolSpec,
    default_layout,
    parse_pool_options,
)
from tierdeck.core.layout.toml_format import FORMAT, layout_from_toml, layout_to_toml

from ....mutations import apply_edits, edits

# Seed 000's two fstab lines, as its owner wrote them (real data).
SEED_SLOW_LINE = (
    "/mnt/disk* /mnt/slow-storage fuse.mergerfs defaults,nonempty,allow_other,use_ino,"
    "category.create=eplus,cache.files=off,moveonenospc=true,dropcacheonclose=true,"
    "minfreespace=300G,fsname=mergerfs 0 0"
)
SEED_CACHED_LINE = (
    "/cache /mnt/cached fuse.mergerfs nonempty,allow_other,use_ino,cache.files=off,"
    "category.create=lfs,moveonenospc=true,dropcacheonclose=true,minfreespace=4G,"
    "fsname=mergerfs 0 0"
)
GIB = 1024**3


def seed_layout() -> Layout:
    """Seed 000's NAS as one tiered layout: its ZFS mirror /cache in front of its two
    data disks, each pool with the options of its fstab line."""
    cached_opts = parse_pool_options(SEED_CACHED_LINE.split()[3])
    slow_opts = parse_pool_options(SEED_SLOW_LINE.split()[3])
    return Layout(
        cache=("/cache",),
        slow=(Branch("/mnt/disk1"), Branch("/mnt/disk2")),
        tiered_pool=PoolSpec("/mnt/cached", cached_opts),
        slow_pool=PoolSpec("/mnt/slow-storage", slow_opts),
        mover=MoverPolicy(source=("/cache",), destination="/mnt/slow-storage"),
    )


def test_seed_fstab_options_parse_to_typed_options() -> None:
    slow = parse_pool_options(SEED_SLOW_LINE.split()[3])
    assert slow.create is CreatePolicy.EPLUS
    assert slow.minfreespace_bytes == 300 * GIB
    assert slow.moveonenospc is True
    assert slow.cache_files is CacheFiles.OFF
    assert slow.dropcacheonclose is True
    assert slow.fsname == "mergerfs"
    assert slow.other == ("defaults", "nonempty", "allow_other", "use_ino")
    cached = parse_pool_options(SEED_CACHED_LINE.split()[3])
    assert cached.create is CreatePolicy.LFS
    assert cached.minfreespace_bytes == 4 * GIB


def test_mergerfs_defaults_when_an_option_is_absent() -> None:
    options = parse_pool_options("allow_other")
    assert options.create is CreatePolicy.EPMFS
    assert options.moveonenospc is False
    assert options.cache_files is CacheFiles.LIBFUSE


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("category.create=fastest", "category.create"),
        ("minfreespace=lots", "minfreespace"),
        ("dropcacheonclose=maybe", "dropcacheonclose"),
        ("cache.files=some", "cache.files"),
    ],
)
def test_bad_fstab_options_name_their_key(text: str, key: str) -> None:
    with pytest.raises(LayoutError) as info:
        parse_pool_options(text)
    assert info.value.kind is LayoutErrorKind.BAD_VALUE
    assert info.value.key == key


def test_tiered_pool_lists_cache_first_and_slow_pool_lifts_nc() -> None:
    layout = default_layout(
        ("/mnt/ssd1", "/mnt/ssd2"),
        (Branch("/mnt/disk1", BranchMode.NC), Branch("/mnt/disk2", BranchMode.RO)),
        "/mnt/tiered",
        "/mnt/slow",
    )
    assert [(b.path, b.mode) for b in layout.tiered_branches()] == [
        ("/mnt/ssd1", BranchMode.RW),
        ("/mnt/ssd2", BranchMode.RW),
        ("/mnt/disk1", BranchMode.NC),
        ("/mnt/disk2", BranchMode.RO),
    ]
    assert [(b.path, b.mode) for b in layout.slow_branches()] == [
        ("/mnt/disk1", BranchMode.RW),
        ("/mnt/disk2", BranchMode.RO),
    ]
    assert layout.mover.source == ("/mnt/ssd1", "/mnt/ssd2")
    assert layout.mover.destination == "/mnt/slow"
    assert layout.tiered_pool.options.create is CreatePolicy.FF


def test_one_slow_branch_needs_no_slow_pool_but_several_do() -> None:
    layout = default_layout(("/mnt/ssd",), (Branch("/mnt/disk1"),), "/mnt/tiered")
    assert layout.mover.destination == "/mnt/disk1"
    assert layout.pools()[0][0].mountpoint == "/mnt/tiered" and len(layout.pools()) == 1
    with pytest.raises(LayoutError) as info:
        default_layout(("/mnt/ssd",), (Branch("/a"), Branch("/b")), "/mnt/tiered")
    assert info.value.key == "slow_pool"


@pytest.mark.parametrize(
    ("build", "key"),
    [
        (lambda: MoverPolicy((), "/x", fill_high_pct=101), "fill_high_pct"),
        (lambda: MoverPolicy((), "/x", fill_high_pct=50, fill_low_pct=50), "fill_low_pct"),
        (lambda: MoverPolicy((), "/x", schedule="hourly\nExecStart=/bin/sh"), "schedule"),
        (lambda: PoolOptions(other=("allow_other,uid=0",)), "other"),
        (lambda: PoolOptions(other=("minfreespace=1G",)), "other"),
        (lambda: PoolOptions(fsname="a b"), "fsname"),
        (lambda: PoolOptions(minfreespace_bytes=-1), "minfreespace"),
        (lambda: default_layout(("ssd",), (Branch("/d"),), "/p"), "cache"),
        (lambda: default_layout(("/ssd",), (Branch("/d"),), "/p\n"), "tiered_pool.mountpoint"),
    ],
)
def test_impossible_values_are_layout_errors(build: object, key: str) -> None:
    with pytest.raises(LayoutError) as info:
        build()  # type: ignore[operator]
    assert info.value.key == key


def test_seed_layout_round_trips() -> None:
    layout = seed_layout()
    text = layout_to_toml(layout)
    assert tomllib.loads(text)["format"] == FORMAT
    assert layout_from_toml(text) == layout


def test_every_field_round_trips() -> None:
    layout = Layout(
        cache=("/mnt/nvme0", "/mnt/nvme1"),
        slow=(Branch("/mnt/disk 1", BranchMode.NC), Branch('/mnt/"q"', BranchMode.RO)),
        tiered_pool=PoolSpec(
            "/mnt/tiered",
            PoolOptions(
                create=CreatePolicy.MSPLUS,
                minfreespace_bytes=123,
                moveonenospc=CreatePolicy.LFS,
                cache_files=CacheFiles.AUTO_FULL,
                dropcacheonclose=False,
                fsname="t",
                other=("inodecalc=path-hash", "nonempty"),
            ),
        ),
        slow_pool=None,
        mover=MoverPolicy(
            source=("/mnt/nvme0",),
            destination="/mnt/disk 1",
            min_age_days=0,
            age_basis=AgeBasis.MTIME,
            fill_high_pct=95,
            fill_low_pct=0,
            exclude=("*.partial", "incoming/*"),
            schedule="*-*-* 03:00:00",
        ),
    )
    assert layout_from_toml(layout_to_toml(layout)) == layout


MINIMAL = f"""
format = "{FORMAT}"
cache = ["/mnt/ssd"]
[[slow]]
path = "/mnt/disk1"
[tiered_pool]
mountpoint = "/mnt/tiered"
"""


def test_a_minimal_file_takes_the_defaults() -> None:
    assert layout_from_toml(MINIMAL) == Layout(
        cache=("/mnt/ssd",),
        slow=(Branch("/mnt/disk1"),),
        tiered_pool=PoolSpec("/mnt/tiered"),
        slow_pool=None,
        mover=MoverPolicy(source=("/mnt/ssd",), destination="/mnt/disk1"),
    )


def test_sizes_may_be_written_as_mergerfs_writes_them() -> None:
    text = MINIMAL + '[tiered_pool.options]\nminfreespace = "300G"\n'
    assert layout_from_toml(text).tiered_pool.options.minfreespace_bytes == 300 * GIB


@pytest.mark.parametrize(
    ("edit", "kind", "key"),
    [
        (lambda t: t + "[oops", LayoutErrorKind.SYNTAX, None),
        (lambda t: t.replace(FORMAT, "tierdeck.layout/2"), LayoutErrorKind.FORMAT, "format"),
        (lambda t: t.replace('cache = ["/mnt/ssd"]', ""), LayoutErrorKind.MISSING, "cache"),
        (lambda t: t.replace('cache = ["/mnt/ssd"]', "cache = [1]"), LayoutErrorKind.WRONG_TYPE,
         "cache[0]"),
        (lambda t: t + 'colour = "red"\n', LayoutErrorKind.UNKNOWN_KEY, "tiered_pool.colour"),
        (lambda t: t + "[tiered_pool.options]\ncreate = \"fastest\"\n", LayoutErrorKind.BAD_VALUE,
         "tiered_pool.options.create"),
        (lambda t: t + "[tiered_pool.options]\nminfreespace = true\n", LayoutErrorKind.WRONG_TYPE,
         "tiered_pool.options.minfreespace"),
        (lambda t: t + "[tiered_pool.options]\nother = [\"fsname=x\"]\n",
         LayoutErrorKind.BAD_VALUE, "tiered_pool.options.other"),
        (lambda t: t + "[mover]\nfill_high_pct = true\n", LayoutErrorKind.WRONG_TYPE,
         "mover.fill_high_pct"),
        (lambda t: t + "[mover]\nfill_low_pct = 90\n", LayoutErrorKind.BAD_VALUE,
         "mover.fill_low_pct"),
        (lambda t: t.replace('path = "/mnt/disk1"', 'path = "/mnt/disk1"\nmode = "WO"'),
         LayoutErrorKind.BAD_VALUE, "slow[0].mode"),
        (lambda t: t + '[[slow]]\npath = "/mnt/disk2"\n', LayoutErrorKind.MISSING,
         "mover.destination"),
    ],
)  # fmt: skip
def test_load_errors_name_kind_and_key(
    edit: object, kind: LayoutErrorKind, key: str | None
) -> None:
    with pytest.raises(LayoutError) as info:
        layout_from_toml(edit(MINIMAL))  # type: ignore[operator]
    assert (info.value.kind, info.value.key) == (kind, key)


TOML_BITS = st.sampled_from(
    ["[", "]", "[[", "=", '"', "'", ",", "\n", "true", "1", "-1", "1e999", "{", "}", ".",
     "slow", "mode", "mover", "options", "create", "ff", "NC", "/", "300G", "format", "\ufeff"]
)  # fmt: skip


def loads_or_layout_error(text: str) -> None:
    try:
        layout_from_toml(text)
    except LayoutError as exc:
        assert exc.kind in LayoutErrorKind


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(edits(2000, 12, 6))
def test_mutated_layout_files_give_a_layout_or_a_layout_error(changes: list) -> None:
    loads_or_layout_error(apply_edits(layout_to_toml(seed_layout()), changes))


@settings(max_examples=300)
@given(st.lists(TOML_BITS, max_size=40).map("".join))
def test_toml_shaped_garbage_gives_a_layout_error(text: str) -> None:
    loads_or_layout_error(text)


@settings(max_examples=200)
@given(st.text(max_size=300))
def test_any_text_gives_a_layout_error(text: str) -> None:
    loads_or_layout_error(text)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                    max_size=3),
        max_leaves=12,
    ),
    st.sampled_from(["cache", "slow", "tiered_pool", "slow_pool", "mover", "format"]),
)  # fmt: skip
def test_wrong_types_at_any_key_give_a_layout_error(value: object, key: str) -> None:
    import tomli_w

    doc = tomllib.loads(layout_to_toml(seed_layout()))
    doc[key] = value
    try:
        text = tomli_w.dumps(doc)
    except (TypeError, ValueError):
        return  # None has no TOML spelling: nothing to load
    loads_or_layout_error(text)


@pytest.mark.parametrize("text", ["a=" + "[" * 100_000, "a=" + "{a=" * 100_000])
def test_deep_nesting_is_a_syntax_error_not_a_recursion_error(text: str) -> None:
    with pytest.raises(LayoutError) as info:
        layout_from_toml(text)
    assert info.value.kind is LayoutErrorKind.SYNTAX


def test_save_is_atomic_and_load_reads_it_back(tmp_path: Path) -> None:
    target = tmp_path / "nas.toml"
    target.write_text("old", encoding="utf-8")
    save_layout(target, seed_layout())
    assert load_layout(target) == seed_layout()
    assert [p.name for p in tmp_path.iterdir()] == ["nas.toml"]  # no temp file left


def test_load_of_a_file_that_is_not_a_layout(tmp_path: Path) -> None:
    target = tmp_path / "x.toml"
    target.write_bytes(b"\xff\xfe not utf-8")
    with pytest.raises(LayoutError) as info:
        load_layout(target)
    assert info.value.kind is LayoutErrorKind.SYNTAX


@pytest.mark.parametrize("text", ["", "\n\n", "# my layout, to do\n", "\ufeff"])
def test_an_empty_file_says_so(text: str) -> None:
    with pytest.raises(LayoutError) as info:
        layout_from_toml(text)
    assert "the file is empty" in str(info.value)
    assert "None" not in str(info.value)


def test_a_missing_format_line_says_it_is_missing() -> None:
    with pytest.raises(LayoutError) as info:
        layout_from_toml(MINIMAL.replace(f'format = "{FORMAT}"', ""))
    assert (info.value.kind, info.value.key) == (LayoutErrorKind.FORMAT, "format")
    assert str(info.value).endswith("it is missing")


def test_a_utf8_byte_order_mark_is_read_past(tmp_path: Path) -> None:
    """Notepad saves UTF-8 with a BOM: the file is still the layout."""
    target = tmp_path / "notepad.toml"
    target.write_bytes(b"\xef\xbb\xbf" + layout_to_toml(seed_layout()).encode())
    assert load_layout(target) == seed_layout()
