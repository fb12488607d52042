"""The compose screen's options view: the pools' options, the mover's settings and the
simulator's file size, each field under its one-line explanation (which doubles as its
label) and over an inline error line.

The fields are built when the view is first shown (``build``): two Selects and twelve Inputs
cost first paint time a user on the mounts view does not need. Edits reach the screen as
the fields' own Input.Changed / Select.Changed messages; the screen hands back what to
show with ``show``.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Input, Select, Static

from ...app.layout.draft import Draft, Evaluation
from ...core.layout.model import AgeBasis, CreatePolicy
from .compose_views import EXPLAIN, age_basis_explanation, create_explanation, fill_renderable

# (section heading, its fields) in the order shown; "create" and "age_basis" are Selects.
SECTIONS = (
    ("Pools", ("pool", "slow_pool", "create", "minfreespace", "slow_minfreespace")),
    ("Mover", ("min_age", "age_basis", "fill_high", "fill_low", "exclude", "schedule")),
    ("Health check", ("health_schedule", "prometheus")),
    ("Simulator", ("file_size",)),
)
SELECTS = {"create": CreatePolicy, "age_basis": AgeBasis}


class OptionsForm(VerticalScroll):
    @property
    def built(self) -> bool:
        return bool(self.query("#opt-pool"))

    async def build(self, draft: Draft) -> None:
        if not self.built:
            await self.mount_all(list(self._fields(draft)))

    def _fields(self, draft: Draft) -> ComposeResult:
        for heading, names in SECTIONS:
            yield Static(heading, classes="heading")
            for name in names:
                yield Static(EXPLAIN[name], id=f"explain-{name}", classes="explain")
                if name in SELECTS:
                    yield Select(
                        [(p.value, p) for p in SELECTS[name]],
                        value=getattr(draft, name),
                        allow_blank=False,
                        id=f"opt-{name}",
                        compact=True,
                    )
                else:
                    # Not selected on focus: the next key would replace a whole path.
                    yield Input(
                        getattr(draft, name), id=f"opt-{name}", compact=True, select_on_focus=False
                    )
                yield Static(id=f"error-{name}", classes="error")
                if name == "fill_low":
                    yield Static(id="compose-fill")

    def set_values(self, draft: Draft) -> None:
        """The fields as the draft says (a draft started again from a pool)."""
        if not self.built:
            return  # they will be built from the draft
        with self.prevent(Input.Changed, Select.Changed):
            for _, names in SECTIONS:
                for name in names:
                    widget = self.query_one(f"#opt-{name}")
                    if isinstance(widget, Input | Select):
                        widget.value = getattr(draft, name)

    def show(self, draft: Draft, evaluation: Evaluation) -> None:
        """Labels that depend on the values, the inline error, the cache's fill."""
        if not self.built:
            return
        self.query_one("#explain-create", Static).update(create_explanation(draft.create))
        self.query_one("#explain-age_basis", Static).update(
            age_basis_explanation(draft.age_basis, evaluation.fills)
        )
        errors = {evaluation.problem_field: evaluation.problem}
        if evaluation.size_problem is not None:
            errors["file_size"] = evaluation.size_problem
        for box in self.query(".error").results(Static):
            message = errors.get((box.id or "").removeprefix("error-"))
            box.update(message or "")
            box.display = message is not None
        self.query_one("#compose-fill", Static).update(fill_renderable(evaluation))
