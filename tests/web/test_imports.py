"""The web package's modules import each other in one direction only (no circles, even inside functions)."""

from __future__ import annotations

import ast
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "web"


def imports_of(path: Path) -> set[str]:
    """The web.* modules a file imports anywhere in it (module level or inside a function)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "web":
                found |= {f"web.{alias.name}" for alias in node.names}
            elif node.module.startswith("web."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("web.")}
    return found


def test_no_module_of_web_imports_one_that_imports_it_back() -> None:
    graph = {f"web.{p.stem}": {m for m in imports_of(p) if m.count(".") == 1} for p in WEB.glob("*.py")}
    cycles = []
    for start in graph:
        stack, seen = [(start, [start])], set()
        while stack:
            module, path = stack.pop()
            for nxt in graph.get(module, ()):
                if nxt == start:
                    cycles.append(" -> ".join([*path, nxt]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*path, nxt]))
    assert cycles == []
    assert "web.api" not in imports_of(WEB / "access.py")
