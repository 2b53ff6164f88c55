"""The layers hold: each module's imports (at the top or inside functions), read from its
source, against the contracts below. A contract broken names the module and the import."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "referee"

#: (modules under this prefix, may not import modules under these prefixes)
CONTRACTS = [
    ("referee.game", ("referee.speech", "referee.vision", "referee.voice", "referee.store",
                      "referee.live", "referee.cli", "referee.session", "referee.replay")),
    ("referee.speech", ("referee.vision",)),
    ("referee.vision", ("referee.speech",)),
]  # fmt: skip


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, root: Path = ROOT) -> set[str]:
    """Every module ``path`` imports, anywhere in it (relative imports resolved)."""
    tree = ast.parse(path.read_text(), str(path))
    package = module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize(("layer", "forbidden"), CONTRACTS, ids=[c[0] for c in CONTRACTS])
def test_a_layer_imports_nothing_above_or_beside_it(layer, forbidden):
    broken = [
        f"{module_name(path)} imports {name}"
        for path in MODULES
        if within(module_name(path), layer)
        for name in sorted(imports(path))
        if any(within(name, prefix) for prefix in forbidden)
    ]
    assert broken == []


def test_the_contract_check_sees_imports_inside_functions(tmp_path):
    source = tmp_path / "referee" / "game" / "probe.py"
    source.parent.mkdir(parents=True)
    source.write_text("def f():\n    from referee.speech import vad\n    from . import cards\n")
    assert imports(source, tmp_path) >= {"referee.speech.vad", "referee.game.cards"}
