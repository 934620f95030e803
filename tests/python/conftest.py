"""The suite tests the INSTALLED package (pip install . into the interpreter
that runs pytest), never the source tree: python/spacrbench has no compiled
extension, and testing what users install is the point."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def pytest_report_header(config: pytest.Config) -> str:
    try:
        import spacrbench
    except ImportError as exc:
        return f"spacrbench: NOT INSTALLED ({exc}); run `pip install .` first"
    return f"spacrbench {spacrbench.__version__} from {Path(spacrbench.__file__).parent}"


@pytest.fixture(scope="session", autouse=True)
def _installed_package() -> None:
    try:
        import spacrbench
    except ImportError as exc:
        pytest.exit(f"spacrbench is not installed in {sys.executable}: {exc}. "
                    "Run `python -m pip install .` from the repository root.", returncode=2)
    src = REPO / "python"
    if Path(spacrbench.__file__).resolve().is_relative_to(src):
        pytest.exit("spacrbench was imported from the source tree, not an installation", 2)
