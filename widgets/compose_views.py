"""What the compose screen draws: the candidate branches, the rule results and the
create policies' answers (app/layout_draft.Evaluation), as a table and Rich text."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.widgets import DataTable

from ..app.layout_draft import Candidate, Draft, Evaluation
from ..core.layout import CreatePolicy
from ..core.layout_rules import RuleSeverity, create_policy_placement
from ..core.mergerfs_policy import Placement
from ..core.units import format_bytes

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
    "file_size": "File size for the simulator (checks view): where would such a file land?",
}


_PLACEMENT = {
    RuleSeverity.OK: "sends them to the cache first",
    RuleSeverity.WARNING: "sends them to the cache only at times (see the checks)",
    RuleSeverity.ERROR: "does not send them to the cache first",
}


def create_explanation(policy: CreatePolicy) -> str:
    """The create policy field's label: what it is, and what this policy does here."""
    return f"{EXPLAIN['create']} {policy}: {_PLACEMENT[create_policy_placement(policy)]}."


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
    return out


def summary_line(evaluation: Evaluation) -> Text:
    """The verdict shown on every view, so typing an option shows its effect at once."""
    if evaluation.problem is not None:
        return Text.assemble(("not a layout yet: ", "bold yellow"), evaluation.problem)
    counts = {s: sum(r.severity is s for r in evaluation.results) for s in RuleSeverity}
    out = Text("checks: ", style="bold")
    out.append(
        f"{counts[RuleSeverity.ERROR]} errors",
        style="bold red" if counts[RuleSeverity.ERROR] else "green",
    )
    out.append(
        f", {counts[RuleSeverity.WARNING]} warnings",
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
        table.add_row(Text(mark, style=style), Text.assemble(r.message, "\n", (r.reason, "dim")))
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
        table.add_row(name, _answer(placement))
    return table


def fstab_renderable(evaluation: Evaluation) -> Text:
    """The fstab lines ``tierdeck layout apply`` would write (core/layout_outputs)."""
    if evaluation.problem is not None:
        return Text("")
    out = Text("fstab (tierdeck layout apply writes these)\n", style="bold")
    if evaluation.fstab_problem is not None:
        return out.append(f"cannot be written: {evaluation.fstab_problem}", style="red")
    return out.append("\n".join(evaluation.fstab))
