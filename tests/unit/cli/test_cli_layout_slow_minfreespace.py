"""`layout plan --slow-minfreespace SIZE` sets the slow pool's minfreespace (before, only
the tiered pool's could be set and the slow pool kept mergerfs's 4G), and the plan
checks every pool's against the demo NAS's free space (/mnt/disk1 7.2T, /mnt/disk2 16T)."""

from __future__ import annotations

import json

from tierdeck.app.layout.draft import Draft, evaluate
from tierdeck.core.layout.rules import RuleId, RuleSeverity

from ..cli_support import run
from ..layout.test_layout_draft import demo  # noqa: F401  (a fixture)
from .test_cli_layout import GOOD


def _plan(*extra: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    result = run(*GOOD, *extra, "--json")
    return result.exit_code, json.loads(result.stdout)


def _free_space(doc: dict) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    return [(r["severity"], r["message"]) for r in doc["rules"] if r["rule"] == "pool-free-space"]


def test_slow_minfreespace_goes_to_the_slow_pool_only() -> None:
    code, doc = _plan("--slow-minfreespace", "10M")
    assert code == 0
    assert doc["layout"]["slow_pool"]["options"]["minfreespace"] == 10 * 2**20
    assert doc["layout"]["tiered_pool"]["options"]["minfreespace"] == 20 * 2**30
    tiered, slow = doc["outputs"]["fstab"]
    assert "minfreespace=10M" in slow.split()[3].split(",")
    assert "minfreespace=20G" in tiered.split()[3].split(",")
    assert ("ok", "every writable branch of the pool /mnt/slow has more than its minfreespace "
            "10M free") in _free_space(doc)  # fmt: skip


def test_a_slow_minfreespace_no_slow_branch_has_free_exits_2() -> None:
    code, doc = _plan("--slow-minfreespace", "8T")
    assert code == 0  # disk2 has 16T free: disk1 alone cannot take files
    assert [s for s, m in _free_space(doc) if "/mnt/slow" in m] == ["warning"]
    code, doc = _plan("--slow-minfreespace", "20T")
    assert code == 2
    assert [s for s, m in _free_space(doc) if "/mnt/slow" in m] == ["error"]


def test_bad_or_pointless_slow_minfreespace_is_refused_in_one_line() -> None:
    result = run(*GOOD, "--slow-minfreespace", "lots")
    assert result.exit_code == 2 and "not a size" in result.output
    one_slow = ("layout", "plan", "--demo", "--cache", "/cache", "--slow", "/mnt/disk1",
                "--pool", "/mnt/tiered", "--slow-minfreespace", "1G")  # fmt: skip
    result = run(*one_slow)
    assert result.exit_code == 2 and "no slow pool" in result.output


def test_the_compose_draft_sets_it_and_shows_a_bad_size_under_its_field(
    demo,  # noqa: ANN001, F811
) -> None:
    inv, host = demo
    draft = Draft().add_cache("/cache").add_slow("/mnt/disk1").add_slow("/mnt/disk2")
    ok = evaluate(draft.typed("minfreespace", "20G").typed("slow_minfreespace", "10M"), inv, host)
    assert ok.layout is not None and ok.layout.slow_pool is not None
    assert ok.layout.slow_pool.options.minfreespace_bytes == 10 * 2**20
    slow = [r for r in ok.results if r.rule is RuleId.POOL_FREE_SPACE and "/mnt/slow" in r.message]
    assert [r.severity for r in slow] == [RuleSeverity.OK]
    bad = evaluate(draft.typed("slow_minfreespace", "x"), inv, host)
    assert bad.layout is None and bad.problem_field == "slow_minfreespace"
