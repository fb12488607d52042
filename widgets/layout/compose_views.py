"""What the compose screen draws: the candidate branches, the rule results and the
create policies' answers (app/layout/draft.Evaluation), as a table and Rich text."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import DataTable

from ...app.layout.draft import Candidate, Draft, Evaluation
from ...app.layout.fill import CacheFill, FillState
from ...core.layout.model import AgeBasis, CreatePolicy, MoverPolicy
from ...core.layout.rules import RuleSeverity, create_policy_placement
from ...core.mergerfs_policy import Placement
from ...core.units import counted, format_bytes
from ..detail_pane import plain_row
from ..text_fit import SeparatedLines

_MARK = {
    RuleSeverity.ERROR: ("✗ error", "bold red"),
    RuleSeverity.WARNING: ("! warn ", "bold yellow"),
    RuleSeverity.OK: ("✓ ok   ", "green"),
}

# Each option's one-line explanation, under its field.
EXPLAIN = {
    "pool": "Tiered pool mountpoint: programs use it; cache branches first, then slow.",
    "slow_pool": "Slow pool mountpoint: the slow branches only; the mover writes here. "
    "Empty: none (one slow branch only).",
    "create": "Create policy: which branch a new file goes to.",
    "minfreespace": "minfreespace: a branch with less free space takes no new file. "
    "Keep it below the cache's size.",
    "slow_minfreespace": "Slow pool minfreespace: a slow branch with less free space takes "
    "no file, not even from the mover.",
    "file_size": "File size for the simulator (checks view): where would such a file land?",
    "min_age": "Mover: minimum age in days. Below the high watermark only files older "
    "than this leave the cache.",
    "age_basis": "Age basis: atime (last read: files still being read stay cached) "
    "or mtime (last written).",
    "fill_high": "High watermark, % full: above it the oldest files move whatever their age.",
    "fill_low": "Low watermark, % full: the mover stops there once it has started by fill.",
    "exclude": "Never moved: globs relative to a cache branch, separated by spaces "
    "(*.partial incoming/*).",
    "schedule": "When the mover runs: a systemd OnCalendar= value (hourly, daily, *:0/15).",
    "health_schedule": "Health check timer: `tierdeck check` keeping SMART readings, "
    "an OnCalendar= value (hourly). Empty: no health timer.",
    "prometheus": "Health check's node_exporter textfile (*.prom in its textfile folder). "
    "Empty: none.",
}


_PLACEMENT = {
    RuleSeverity.OK: "sends them to the cache first",
    RuleSeverity.WARNING: "sends them to the cache only at times (see the checks)",
    RuleSeverity.ERROR: "does not send them to the cache first",
}


def create_explanation(policy: CreatePolicy) -> str:
    """The create policy field's label: what it is, and what this policy does here."""
    return f"{EXPLAIN['create']} {policy}: {_PLACEMENT[create_policy_placement(policy)]}."


def age_basis_explanation(basis: AgeBasis, fills: tuple[CacheFill, ...]) -> str:
    """The age basis field's label, saying which cache mounts keep no atime."""
    out = EXPLAIN["age_basis"]
    noatime = [f.path for f in fills if f.noatime]
    if noatime:
        out += f" {', '.join(noatime)}: mounted noatime, so atime is when a file was written"
        out += "; reads do not keep it cached." if basis is AgeBasis.ATIME else "."
    return out


def _fill_line(fill: CacheFill, mover: MoverPolicy) -> Text:
    state = fill.state(mover)
    if state is FillState.UNKNOWN or fill.used_pct is None:
        return Text(f"{fill.path}: how full is unknown (no usage figures for its mount)", "dim")
    days = "day" if mover.min_age_days == 1 else "days"
    out = Text.assemble((f"{fill.path} {fill.used_pct:.0f} % full", "bold"), ": ")
    if state is FillState.ABOVE_HIGH:
        out.append(f"above the {mover.fill_high_pct} % high watermark", style="bold yellow")
        out.append(
            f", the mover moves the oldest files, whatever their age, until it is down to "
            f"{mover.fill_low_pct} %"
        )
    else:
        out.append(f"below the {mover.fill_high_pct} % high watermark", style="green")
        out.append(
            f", the mover moves only files older than {mover.min_age_days} {days} "
            f"({mover.age_basis})"
        )
    return out


def fill_renderable(evaluation: Evaluation) -> Text:
    """The cache branches' fill now against the watermarks as typed."""
    if not evaluation.fills:
        return Text("The cache's fill shows here once it has a branch (view 1, c).", "dim")
    if evaluation.mover is None:
        return Text("")  # a number being typed is wrong: its field says why
    return Text("\n").join(_fill_line(f, evaluation.mover) for f in evaluation.fills)


class CandidateTable(DataTable[Text | str]):
    """The inventory's mounts, one row each, with the tier the draft gives them."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)  # type: ignore[arg-type]
        self.rows_shown: tuple[Candidate, ...] = ()

    def on_mount(self) -> None:
        for label, key in (("Path", "path"), ("Tier", "tier"), ("Size", "size"),
                           ("Free", "free"), ("FS", "fs"), ("Media", "media"),
                           ("Disks", "disks")):  # fmt: skip
            self.add_column(label, key=key)

    def show(self, rows: tuple[Candidate, ...], draft: Draft) -> None:
        row = self.cursor_row
        self.rows_shown = rows
        self.clear()
        for c in rows:
            tier = draft.tier_of(c.path)
            style = "bold cyan" if tier == "cache" else "bold" if tier else "dim"
            self.add_row(
                c.path, Text(tier or "-", style=style), format_bytes(c.size_bytes),
                format_bytes(c.avail_bytes), c.fs_type, c.media, ",".join(c.disks) or "-",
                key=c.path,
            )  # fmt: skip
        if rows:
            self.move_cursor(row=min(row, len(rows) - 1))

    @property
    def highlighted_path(self) -> str | None:
        if not self.rows_shown or not 0 <= self.cursor_row < len(self.rows_shown):
            return None
        return self.rows_shown[self.cursor_row].path


def tiers_line(draft: Draft) -> Text:
    """The draft's tiers in one line: what the pools will list, in order."""
    out = Text.assemble(("cache: ", "bold"))
    out.append(", ".join(draft.cache) or "none yet (c)", style="cyan" if draft.cache else "dim")
    out.append("  slow: ", style="bold")
    slow = ", ".join(f"{b.path}={b.mode.value}" for b in draft.slow)
    out.append(slow or "none yet (s)", style="" if draft.slow else "dim")
    if draft.slow:
        out.append("  (m: mode)", style="dim")
    return out


def summary_line(evaluation: Evaluation) -> Text:
    """The verdict shown on every view, so typing an option shows its effect at once."""
    if evaluation.problem is not None:
        problem = evaluation.problem.removeprefix("layout: ")  # "not a layout yet" says it
        return Text.assemble(("not a layout yet: ", "bold yellow"), problem)
    counts = {s: sum(r.severity is s for r in evaluation.results) for s in RuleSeverity}
    out = Text("checks: ", style="bold")
    out.append(
        counted(counts[RuleSeverity.ERROR], "error"),
        style="bold red" if counts[RuleSeverity.ERROR] else "green",
    )
    out.append(
        f", {counted(counts[RuleSeverity.WARNING], 'warning')}",
        style="yellow" if counts[RuleSeverity.WARNING] else "",
    )
    out.append(f", {counts[RuleSeverity.OK]} ok")
    chosen = evaluation.placements.get(evaluation.chosen) if evaluation.chosen else None
    if chosen is not None:
        out.append(f" · a new file lands on {_answer(chosen).plain}")
    return out


def rules_renderable(evaluation: Evaluation) -> Table | Text:
    if evaluation.problem is not None:
        return Text(evaluation.problem, style="yellow")
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column(ratio=1)
    for r in evaluation.results:
        mark, style = _MARK[r.severity]
        plain_row(table, Text(mark, style=style), Text.assemble(r.message, "\n", (r.reason, "dim")))
    return table


def _answer(placement: Placement) -> Text:
    if placement.error is not None:
        return Text(f"none: {placement.error.value}", style="red")
    if placement.random:
        shares = ", ".join(
            f"{p} {s:.0%}" for p, s in zip(placement.branches, placement.shares, strict=False)
        )
        return Text(f"random: {shares}")
    out = Text(placement.lands_on or "-")
    if placement.too_small:
        out.append(" (too small: ENOSPC mid-write)", style="red")
    return out


def simulation_renderable(evaluation: Evaluation) -> Table | Text:
    if evaluation.problem is not None:
        return Text("")
    if evaluation.size_problem is not None:
        return Text(evaluation.size_problem, style="yellow")
    table = Table(box=None, padding=(0, 1), show_edge=False)
    table.add_column(f"policy ({format_bytes(evaluation.file_size)} file)", no_wrap=True)
    table.add_column("lands on")
    for policy, placement in evaluation.placements.items():
        chosen = policy is evaluation.chosen
        name = Text(
            ("▶ " if chosen else "  ") + policy.value, style="bold reverse" if chosen else ""
        )
        plain_row(table, name, _answer(placement))
    return table


def fstab_renderable(evaluation: Evaluation) -> Text | Group:
    """The fstab lines ``tierdeck layout apply`` would write (core/layout/outputs),
    wrapped between options, never inside a path or an option."""
    if evaluation.problem is not None:
        return Text("")
    out = Text("fstab (tierdeck layout apply writes these)\n", style="bold")
    if evaluation.fstab_problem is not None:
        return out.append(f"cannot be written: {evaluation.fstab_problem}", style="red")
    out.remove_suffix("\n")
    return Group(out, SeparatedLines(evaluation.fstab))
