"""The compose screen's `o` key writes what apply would: the same TOML, fstab lines and
units, each under a name that says what it is."""

from __future__ import annotations

from pathlib import Path

from tierdeck.app.layout.output_files import output_files, write_output
from tierdeck.app.layout.self_command import tierdeck_command
from tierdeck.core.layout.model import Branch, default_layout
from tierdeck.core.layout.outputs import layout_outputs
from tierdeck.core.layout.toml_format import layout_from_toml


def _layout():  # type: ignore[no-untyped-def]
    return default_layout(
        ("/mnt/ssd",), (Branch("/mnt/hdd0"), Branch("/mnt/hdd1")), "/mnt/tiered", "/mnt/slow"
    )


def test_every_output_apply_writes_is_offered(tmp_path: Path) -> None:
    layout = _layout()
    files = output_files(layout)
    outputs = layout_outputs(layout, command=tierdeck_command())
    assert [f.key for f in files] == ["toml", "fstab", *outputs.units]
    by_key = {f.key: f for f in files}
    assert layout_from_toml(by_key["toml"].text) == layout
    assert by_key["fstab"].text.splitlines() == list(outputs.fstab)
    for name, text in outputs.units.items():
        assert by_key[name].file_name == name and by_key[name].text == text
    target = tmp_path / "unit"
    write_output(target, by_key[outputs.mover_timer])
    assert target.read_text() == outputs.units[outputs.mover_timer]
