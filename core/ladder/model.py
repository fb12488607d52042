"""The layer-penalty ladder: the same job on each layer of a mergerfs pool.

mergerfs's benchmarking guide (seed 004) isolates layers one by one; seed 000 found the
answer by hand ("raw pool 1240 vs mergerfs 374"). The rungs, bottom of the stack first:

- ``branch``: a branch filesystem directly: the one the pool's create policy picks
  (role ``create``), on a tiered pool also the slow branch new files spill to once the
  cache is full (role ``slow``), or each branch;
- ``pool``: the pool itself;
- ``tmpfs``: a throwaway mergerfs with the pool's options over a tmpfs;
- ``nullrw``: the same with ``nullrw=true`` (FUSE alone, no data written);
- ``option``: a throwaway pool of the same branches with one option changed (the
  mergerfs option sweep);
- ``network``: the same job from a client machine over its mount of the pool (NFS,
  SMB, sshfs), driven by fio's client/server mode.

Each rung's penalty is measured against the rung it adds a layer to (``COMPARED_TO``):
the pool against the branch its create policy writes to (what mergerfs costs over that
disk; a slow branch is not what the pool writes a new file to), tmpfs against nullrw
(what moving the data through FUSE costs), an option rung against the pool as mounted,
the network rung against the pool on the NAS (what the network and the share's
protocol cost a client).
``penalty_pct`` = (1 - rung / reference) x 100 on the job's bandwidth: 70 means the
layer loses 70 % of what is below it; negative means it is faster. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from ..bench_models import DirectionSummary
from ..compare.noise import Metric, job_seconds, noise_pct, spread_pct
from ..fio_models import Sample
from ..sweep.model import metric_value

LADDER_SCHEMA = "tierdeck.ladder/1"


class RungKind(StrEnum):
    BRANCH = "branch"
    POOL = "pool"
    TMPFS = "tmpfs"
    NULLRW = "nullrw"
    OPTION = "option"
    NETWORK = "network"


class BranchRole(StrEnum):
    """Why a branch rung is on the ladder."""

    CREATE = "create"  # the create policy puts a new file there: the pool's reference
    SLOW = "slow"  # a tiered pool's slow branch, where new files go once the cache is full
    OTHER = "other"  # every RW branch was asked for (--all-branches)


COMPARED_TO: Mapping[RungKind, RungKind | None] = {
    RungKind.BRANCH: None,
    RungKind.POOL: RungKind.BRANCH,
    RungKind.TMPFS: RungKind.NULLRW,
    RungKind.NULLRW: None,
    RungKind.OPTION: RungKind.POOL,
    RungKind.NETWORK: RungKind.POOL,
}


def rung_label(kind: RungKind, option: tuple[str, str] | None, role: BranchRole | None) -> str:
    """A rung's name in tables and in its run set's cells, the same planned or run: an
    option rung by the option it changes, the slow branch as "slow", the rest by kind."""
    if option is not None:
        return f"{option[0]}={option[1]}"
    if role is BranchRole.SLOW:
        return "slow"
    return kind.value


@dataclass(frozen=True)
class Rung:
    kind: RungKind
    path: str  # where fio ran (a branch, the pool, a throwaway mountpoint)
    run_id: int | None = None
    summary: Mapping[str, DirectionSummary] = field(default_factory=dict, hash=False)
    skipped: str | None = None  # why it could not run; the others still do
    option: tuple[str, str] | None = None  # an option rung's (name, value)
    penalty_pct: float | None = None  # filled by with_penalties
    role: BranchRole | None = None  # a branch rung's; None: unknown (an old ladder)
    spread_pct: float | None = None  # its bandwidth's own second-by-second spread (CV, %)

    @property
    def label(self) -> str:
        return rung_label(self.kind, self.option, self.role)


def rung_bandwidth(rung: Rung) -> float | None:
    """The job's bandwidth on this rung (its busiest direction), None if skipped."""
    if rung.skipped is not None:
        return None
    return metric_value(rung.summary, Metric.BW)


def bandwidth_spread(
    summary: Mapping[str, DirectionSummary], series: Sequence[Sample]
) -> float | None:
    """How much a rung's bandwidth wandered second by second (core/compare/noise's
    spread, on the direction that moved the most bytes); None when unknown."""
    busy = [d for d, s in summary.items() if s.bw_bytes > 0]
    if not busy:
        return None
    direction = max(busy, key=lambda d: summary[d].bw_bytes)
    return spread_pct(job_seconds(series, None), direction, Metric.BW)


def penalty_pct(value: float | None, reference: float | None) -> float | None:
    if value is None or reference is None or reference <= 0:
        return None
    return (1.0 - value / reference) * 100.0


def reference_of(rung: Rung, rungs: Sequence[Rung]) -> Rung | None:
    """The rung this one is measured against. For the pool: the branch its create policy
    writes to (the best of them for a random policy); only a ladder that does not say
    which branch that is (stored before roles were kept) falls back to the best branch.
    A slow branch never is the reference: the pool does not write a new file there."""
    wanted = COMPARED_TO[rung.kind]
    if wanted is None:
        return None
    candidates = [r for r in rungs if r.kind is wanted and rung_bandwidth(r) is not None]
    if wanted is RungKind.BRANCH and any(r.role is not None for r in rungs):
        candidates = [r for r in candidates if r.role is BranchRole.CREATE]
    if not candidates:
        return None
    return max(candidates, key=lambda r: rung_bandwidth(r) or 0.0)


def with_penalties(rungs: Sequence[Rung]) -> tuple[Rung, ...]:
    return tuple(replace(r, penalty_pct=_penalty_against(r, reference_of(r, rungs))) for r in rungs)


def _penalty_against(rung: Rung, reference: Rung | None) -> float | None:
    if reference is None:
        return None
    return penalty_pct(rung_bandwidth(rung), rung_bandwidth(reference))


@dataclass(frozen=True)
class LadderResult:
    id: int | None
    pool: str  # the pool's mountpoint
    rungs: tuple[Rung, ...]
    job: str | None = None  # what every rung ran, in words (None: not known, an old ladder)
    direct_refused: str | None = None  # the pool's answer to O_DIRECT when it refused it

    def rung(self, kind: RungKind) -> Rung | None:
        return next((r for r in self.rungs if r.kind is kind), None)


# Penalties within this many percent read as "no measurable cost": two runs of the same
# job on the same disk differ by a few percent (core/compare/noise). Rungs that wandered
# more second by second widen the band (noise_band).
NOISE_PCT = 5.0


def noise_band(rung: Rung, reference: Rung) -> float:
    """How far apart two rungs must be to differ: NOISE_PCT, or their spreads combined
    when larger (a delta inside the runs' own second-by-second spread is noise)."""
    combined = noise_pct(rung.spread_pct, reference.spread_pct)
    return max(NOISE_PCT, combined or 0.0)


def _pct(value: float) -> str:
    return f"{abs(value):.0f} %"


def _not_measured(rungs: Sequence[Rung], kinds: Sequence[RungKind]) -> str:
    """``tmpfs/nullrw``: which of ``kinds`` has no measured rung (absent or skipped)."""
    names = [k.value for k in kinds if not any(r.kind is k and r.skipped is None for r in rungs)]
    return "/".join(names or [k.value for k in kinds])


def _fuse_clause(rungs: Sequence[Rung], pool_penalty: float) -> str:
    tmpfs = next((r for r in rungs if r.kind is RungKind.TMPFS), None)
    fuse = tmpfs.penalty_pct if tmpfs is not None else None
    if fuse is None:
        gone = _not_measured(rungs, (RungKind.TMPFS, RungKind.NULLRW))
        return f"the {gone} rung did not run, so FUSE's own share is unknown"
    if fuse <= NOISE_PCT:
        return "FUSE over tmpfs costs nothing measurable, so it comes from the branches or the pool's options"
    if fuse >= pool_penalty - NOISE_PCT:
        return f"FUSE over tmpfs costs {_pct(fuse)} too, so FUSE itself is the bottleneck"
    return f"FUSE over tmpfs costs {_pct(fuse)}, so the rest comes from the branch options"


def _option_diagnosis(rungs: Sequence[Rung]) -> str:
    measured = [r for r in rungs if r.kind is RungKind.OPTION and r.penalty_pct is not None]
    if not measured:
        return "no option rung could be compared with the pool: no verdict"
    best = min(measured, key=lambda r: r.penalty_pct or 0.0)
    gain = -(best.penalty_pct or 0.0)
    if gain <= NOISE_PCT:
        return f"no value tried beats the pool as mounted by more than {NOISE_PCT:.0f} % (best: {best.label})"
    return f"{best.label} is {_pct(gain)} faster than the pool as mounted"


def _slow_clause(rungs: Sequence[Rung], reference: Rung) -> str:
    """On a tiered pool: what a new file gets once the cache is full (the slow rung)."""
    slow = next((r for r in rungs if r.role is BranchRole.SLOW), None)
    if slow is None:
        return ""
    if slow.skipped is not None:
        return f"; the slow branch {slow.path} did not run"
    slow_bw, cache_bw = rung_bandwidth(slow), rung_bandwidth(reference)
    if slow_bw is None or cache_bw is None:
        return ""
    text = f"; the slow branch {slow.path} takes {slow_bw / 1024**2:,.0f} MiB/s"
    versus = penalty_pct(slow_bw, cache_bw)
    if versus is not None and abs(versus) > NOISE_PCT:
        word = "slower" if versus > 0 else "faster"
        text += f", {_pct(versus)} {word} than {reference.path}"
    return text + " (where new files go once the cache is full)"


def network_clause(rungs: Sequence[Rung]) -> str:
    """What the network costs a client: its rung against the pool on the NAS, or why
    that is unknown; empty without a network rung."""
    network = next((r for r in rungs if r.kind is RungKind.NETWORK), None)
    if network is None:
        return ""
    if network.skipped is not None:
        return f"; the network rung did not run ({network.skipped})"
    pool = reference_of(network, rungs)
    if pool is None or network.penalty_pct is None:
        return "; the pool rung did not run, so what the network costs is unknown"
    band = noise_band(network, pool)
    if network.penalty_pct > band:
        return f"; through the network: {_pct(network.penalty_pct)} slower than the pool on the NAS"
    if network.penalty_pct < -band:
        return (
            f"; through the network: {_pct(network.penalty_pct)} faster than the pool on the "
            "NAS (a cache on the client is answering)"
        )
    return f"; through the network: within {band:.0f} % of the pool on the NAS (no measurable cost)"


def diagnose(rungs: Sequence[Rung]) -> str:
    """One line on where the pool's time goes, from rungs with their penalties filled
    (:func:`with_penalties`). It names the branch the pool is compared with: the one its
    create policy writes to, and ends with what the network costs when a client ran."""
    if any(r.kind is RungKind.OPTION for r in rungs):
        return _option_diagnosis(rungs)
    return _layer_diagnosis(rungs) + network_clause(rungs)


def _layer_diagnosis(rungs: Sequence[Rung]) -> str:
    pool = next((r for r in rungs if r.kind is RungKind.POOL), None)
    penalty = pool.penalty_pct if pool is not None else None
    reference = reference_of(pool, rungs) if pool is not None else None
    if pool is None or penalty is None or reference is None:
        gone = _not_measured(rungs, (RungKind.BRANCH, RungKind.POOL))
        if pool is not None and rung_bandwidth(pool) is not None and gone == "branch/pool":
            gone = "branch the pool writes to"  # a slow branch ran, not that one
        return f"the {gone} rung did not run, so mergerfs's own cost is unknown"
    branch, over = f"{reference.path}, the branch it writes to", f" over {reference.path}"
    if reference.role is None:  # a ladder stored before it said which branch that is
        branch, over = "its branch", " here"
    slow = _slow_clause(rungs, reference)
    band = noise_band(pool, reference)
    if penalty < -band:
        return (
            f"the pool is {_pct(penalty)} faster than {branch}: a cache above the disk "
            f"(page cache, cache.files) is answering, not the disk{slow}"
        )
    if penalty <= band:
        return (
            f"mergerfs costs nothing measurable here (the pool is within "
            f"{band:.0f} % of {branch}){slow}"
        )
    return f"mergerfs itself costs {_pct(penalty)}{over}; {_fuse_clause(rungs, penalty)}{slow}"
