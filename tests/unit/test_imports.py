"""The package's imports, walked: no module imports itself back through others, and no
module imports another's ``_private`` name. What two modules share is public where its
concept lives; a circle means a helper lives inside one of its users."""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import grimp

from ..paths import REPO

PRODUCT = ("app", "core", "backends", "screens", "widgets")


def cycles(imports: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in imports.get(module, ()):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(imports) + 100))
    try:
        for module in sorted(imports):
            if module not in index:
                visit(module)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(found)


def package_imports() -> dict[str, set[str]]:
    # Imports under TYPE_CHECKING are left out: they never run, so they close no circle.
    graph = grimp.build_graph("tierdeck", cache_dir=None, exclude_type_checking_imports=True)
    return {
        module: {m for m in graph.find_modules_directly_imported_by(module) if m in graph.modules}
        for module in graph.modules
        if module.startswith("tierdeck")
    }


def private_imports(files: Iterable[Path], root: Path = REPO) -> Iterator[str]:
    """``from x import _name`` (one underscore) in each file, as "file: x._name"."""
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        source = "." * node.level + (node.module or "")
                        yield f"{path.relative_to(root)}: {source}.{alias.name}"


def product_files() -> list[Path]:
    return sorted(
        path
        for folder in PRODUCT
        for path in (REPO / folder).rglob("*.py")
        if "demo_host" not in path.parts
    )


def test_no_module_imports_itself_back() -> None:
    assert cycles(package_imports()) == []


def test_the_walk_finds_a_circle() -> None:
    imports = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert cycles(imports) == [["a", "b", "c"]]


def test_no_module_imports_a_private_name_of_another() -> None:
    assert list(private_imports(product_files())) == []


def test_the_walk_finds_a_private_import(tmp_path: Path) -> None:
    sample = tmp_path / "app" / "sample.py"
    sample.parent.mkdir()
    text = "from .history.store import _hidden, public\nfrom . import __version__\n"
    sample.write_text(text, encoding="utf-8")
    assert list(private_imports([sample], tmp_path)) == ["app/sample.py: .history.store._hidden"]


def module_names(files: Iterable[Path], root: Path = REPO) -> list[str]:
    names = []
    for path in files:
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__main__":
            continue  # running it is what it does
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(("tierdeck", *parts)))
    return names


def test_every_module_imports() -> None:
    # mypy reads relative imports as missing modules (ignore_missing_imports): a module
    # moved without its importers would pass it and fail only when it runs.
    failed = []
    for name in module_names(product_files()):
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - each failure is listed, not the first
            failed.append(f"{name}: {type(exc).__name__}: {exc}")
    assert failed == []
