"""The #SBATCH options a caller passes as `extra`, checked once for every
scheduler hand-off. Imports only the package's errors."""

from __future__ import annotations

from typing import Any, List

from ._errors import SpacrbenchTypeError


def directive_list(extra: Any) -> List[str]:
    """extra (#SBATCH options, e.g. ["--partition=short"]) as a list of
    str. A single string is refused rather than split into characters."""
    if isinstance(extra, (str, bytes)):
        raise SpacrbenchTypeError(f"extra must be a list of #SBATCH options, not a single "
                                  f"{type(extra).__name__} ({extra!r}); write extra=[{extra!r}]")
    try:
        options = iter(extra)
    except TypeError:
        raise SpacrbenchTypeError(f"extra must be a list of #SBATCH options, not "
                                  f"{type(extra).__name__} ({extra!r})") from None
    return [str(d) for d in options]
