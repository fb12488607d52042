"""The compose screen's mover settings (app/layout/draft, app/layout/fill): typed values
reach the Layout's MoverPolicy; a wrong one names its field (for the inline error) by
the LayoutError's key; the cache's fill against the watermarks and a noatime cache, on
the demo NAS (seed 000, recorded) with its /cache mount's figures changed."""

from __future__ import annotations

import dataclasses

import pytest
from tierdeck.app.layout.draft import Draft, evaluate
from tierdeck.app.layout.fill import CacheFill, FillState, cache_fills
from tierdeck.app.machine.demo import load_demo_host
from tierdeck.app.machine.inventory import collect_inventory
from tierdeck.backends.host import RecordedHost
from tierdeck.core.layout.model import AgeBasis
from tierdeck.core.models import Inventory
from tierdeck.widgets.layout.compose_views import age_basis_explanation, fill_renderable


@pytest.fixture(scope="module")
def demo() -> tuple[Inventory, RecordedHost]:
    host = load_demo_host()
    return collect_inventory(host), host


def with_cache_mount(inv: Inventory, used_pct: int, options: tuple[str, ...]) -> Inventory:
    mounts = []
    for m in inv.mounts:
        if m.mountpoint == "/cache":
            size = m.size_bytes or 0
            m = dataclasses.replace(
                m, options=options, used_bytes=size * used_pct // 100,
                avail_bytes=size - size * used_pct // 100,
            )  # fmt: skip
        mounts.append(m)
    return dataclasses.replace(inv, mounts=tuple(mounts))


DRAFT = Draft().add_cache("/cache").add_slow("/mnt/disk1").add_slow("/mnt/disk2")


def test_the_mover_as_typed_is_the_layouts(demo: tuple[Inventory, RecordedHost]) -> None:
    draft = dataclasses.replace(
        DRAFT, min_age="7", age_basis=AgeBasis.MTIME, fill_high="90", fill_low=" 70",
        exclude="*.partial  incoming/*", schedule=" daily ",
    )  # fmt: skip
    mover = draft.layout().mover
    assert (mover.source, mover.destination) == (("/cache",), "/mnt/slow")
    assert (mover.min_age_days, mover.age_basis, mover.fill_high_pct, mover.fill_low_pct) == (
        7, AgeBasis.MTIME, 90, 70)  # fmt: skip
    assert (mover.exclude, mover.schedule) == (("*.partial", "incoming/*"), "daily")
    assert evaluate(draft, *demo).mover == mover


@pytest.mark.parametrize(
    ("name", "text", "says"),
    [
        ("fill_low", "80", "fill_low_pct: must be 0..fill_high_pct-1"),
        ("fill_high", "101", "fill_high_pct: must be 1..100"),
        ("fill_high", "eighty", "fill_high_pct: 'eighty' is not a whole number"),
        ("min_age", "-1", "min_age_days: must not be negative"),
        ("schedule", "  ", "schedule: one OnCalendar= line"),
        ("minfreespace", "lots", "not a size"),
        ("pool", "tiered", "is not an absolute path"),
    ],
)
def test_a_wrong_value_names_its_field(
    demo: tuple[Inventory, RecordedHost], name: str, text: str, says: str
) -> None:
    evaluation = evaluate(DRAFT.typed(name, text), *demo)
    assert evaluation.layout is None
    assert evaluation.problem_field == name
    assert evaluation.problem is not None and says in evaluation.problem


def test_fill_against_the_watermarks_follows_the_typing(
    demo: tuple[Inventory, RecordedHost],
) -> None:
    inv = with_cache_mount(demo[0], 72, ("rw", "relatime"))
    evaluation = evaluate(DRAFT, inv, demo[1])
    (fill,) = evaluation.fills
    assert fill.used_pct == pytest.approx(72, abs=0.01) and not fill.noatime
    assert fill_renderable(evaluation).plain == (
        "/cache 72 % full: below the 80 % high watermark, the mover moves only files "
        "older than 1 day (atime)"
    )
    evaluation = evaluate(DRAFT.typed("fill_high", "70").typed("min_age", "3"), inv, demo[1])
    assert evaluation.fills[0].state(evaluation.mover) is FillState.ABOVE_HIGH  # type: ignore[arg-type]
    assert fill_renderable(evaluation).plain == (
        "/cache 72 % full: above the 70 % high watermark, the mover moves the oldest "
        "files, whatever their age, until it is down to 60 %"
    )
    # a watermark being typed wrong: no fill line (the field's error says why); no layout
    # yet (no slow branch): the fill line all the same
    assert fill_renderable(evaluate(DRAFT.typed("fill_low", "85"), inv, demo[1])).plain == ""
    bare = evaluate(Draft().add_cache("/cache"), inv, demo[1])
    assert bare.layout is None and "72 % full" in fill_renderable(bare).plain
    assert "once it has a branch" in fill_renderable(evaluate(Draft(), inv, demo[1])).plain


def test_a_noatime_cache_is_said_at_the_age_basis(
    demo: tuple[Inventory, RecordedHost],
) -> None:
    inv = with_cache_mount(demo[0], 10, ("rw", "noatime"))
    fills = cache_fills(inv, ("/cache",))
    assert [(f.noatime, f.state(DRAFT.mover("/x"))) for f in fills] == [
        (True, FillState.BELOW_HIGH)
    ]
    unknown = CacheFill("/cache", None, False)
    assert unknown.state(DRAFT.mover("/x")) is FillState.UNKNOWN
    said = age_basis_explanation(AgeBasis.ATIME, fills)
    assert "/cache: mounted noatime" in said and "reads do not keep it cached" in said
    assert "reads do not" not in age_basis_explanation(AgeBasis.MTIME, fills)
    assert "noatime" not in age_basis_explanation(AgeBasis.ATIME, cache_fills(demo[0], ("/cache",)))
