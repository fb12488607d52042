"""What a screen may ask of the running app, typed: the host, the inventory it shows,
and the benchmark service. Screens call ``context(self)`` instead of reaching into
``self.app`` untyped; the Textual App (``app.tui.TierdeckApp``) provides it, and a test
app may provide the same three things."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    # Only for the annotations: importing the service loads the runner, the preflight
    # and sqlite, which cost the dashboard's first paint 90 ms (bench/inventory.py).
    from ...backends.host import Host
    from ...core.models import Inventory
    from ..bench.service import BenchService


class AppContext(Protocol):
    @property
    def host(self) -> Host: ...

    @property
    def inventory(self) -> Inventory | None: ...

    @property
    def bench(self) -> BenchService: ...


class _InApp(Protocol):
    @property
    def app(self) -> Any: ...


def context(node: _InApp) -> AppContext:
    """The app ``node`` (a screen, a widget, a screen's mixin) belongs to, as what
    tierdeck's screens use of it."""
    return cast(AppContext, node.app)
