"""A checkbox whose state reads without colour.

Textual's checkbox draws the same ``▐X▌`` on and off and tells them apart by colour
alone, which a 16-colour SSH session or a colour-blind eye loses. This one draws
``[x]`` or ``[ ]``, bold or dim; the screens also say the state in the label.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Checkbox

ON = "[x]"
OFF = "[ ]"


class StateCheckbox(Checkbox):
    @property
    def _button(self) -> Content:
        return Content.styled(ON, "bold") if self.value else Content.styled(OFF, "dim")

    @property
    def glyph(self) -> str:
        """What the box shows now: ``[x]`` or ``[ ]`` (tests read it)."""
        return ON if self.value else OFF
