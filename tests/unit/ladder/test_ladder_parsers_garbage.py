"""The ladder's parsers of outside text never fail but as designed, whatever the bytes:
--option (a typed OptionSweep or OptionSweepError), the throwaway root's owner file,
/proc/PID/stat and a stored ladder's definition (a value or None)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from tierdeck.app.ladder.store import stored_role, stored_text
from tierdeck.app.ladder.throwaway_mounts import Owner, parse_owner, parse_stat_start
from tierdeck.core.ladder.model import BranchRole
from tierdeck.core.ladder.options import (
    SWEEPABLE,
    OptionSweep,
    OptionSweepError,
    parse_option_sweep,
)

from tests.mutations import json_values

# the shapes that reach the parsers' branches, and plain garbage
_option_text = st.one_of(
    st.text(max_size=80),
    st.builds(
        lambda name, values: f"{name}={','.join(values)}",
        st.one_of(st.sampled_from(sorted(SWEEPABLE)), st.text(max_size=20)),
        st.lists(st.text(max_size=12), max_size=5),
    ),
)


@given(_option_text)
def test_option_sweep_is_typed_or_refused(text: str) -> None:
    try:
        found = parse_option_sweep(text)
    except OptionSweepError as exc:
        assert str(exc)  # says why
        return
    assert isinstance(found, OptionSweep) and found.name in SWEEPABLE
    assert found.values and all(v == v.strip() and v for v in found.values)


@given(st.one_of(st.text(max_size=200), st.builds(json.dumps, st.dictionaries(
    st.sampled_from(["pid", "start_ticks", "x"]),
    st.one_of(st.integers(), st.text(max_size=5), st.none(), st.booleans()))),
))  # fmt: skip
def test_owner_file_garbage_is_none_or_an_owner(text: str) -> None:
    found = parse_owner(text)
    assert found is None or (isinstance(found, Owner) and type(found.pid) is int and found.pid > 0)
    assert parse_owner('{"pid": true, "start_ticks": 5}') is None


@given(st.text(max_size=300))
def test_stat_garbage_is_none_or_a_number(text: str) -> None:
    found = parse_stat_start(text)
    assert found is None or isinstance(found, int)


_json_value = json_values(max_size=3, max_leaves=6)


@given(
    st.dictionaries(
        st.sampled_from(["branch_roles", "job", "direct_refused", "x"]), _json_value, max_size=4
    ),
    st.one_of(st.none(), st.sampled_from(["/mnt/cache", ""]), st.text(max_size=8)),
)
def test_a_stored_ladders_definition_garbage_is_none_or_typed(
    definition: dict[str, object], path: str | None
) -> None:
    """A run set's definition is JSON from the history, written by any tierdeck."""
    role = stored_role(definition, path)
    assert role is None or isinstance(role, BranchRole)
    for key in ("job", "direct_refused"):
        text = stored_text(definition, key)
        assert text is None or isinstance(text, str)
    assert stored_role({"branch_roles": {"/mnt/cache": "slow"}}, "/mnt/cache") is BranchRole.SLOW
