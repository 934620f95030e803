"""The library's error codes as Python exceptions: one table in
spacrbench._binding, checked against the codes the library has. The code
for 'not on this platform' (SPACRBENCH_EUNSUPPORTED, what process groups
and the scaling check answer off Linux) is checked here on Linux too,
through the table, without a non-Linux build."""

from __future__ import annotations

import pytest

from spacrbench import _binding
from spacrbench import SpacrbenchError
from spacrbench._binding import EXCEPTIONS, UnsupportedPlatformError, c_text, codes, lib


def library_codes() -> dict:
    """Every SPACRBENCH_E* constant of the compiled header."""
    return {name[len("SPACRBENCH_"):]: getattr(lib, name) for name in dir(lib)
            if name.startswith("SPACRBENCH_E") and isinstance(getattr(lib, name), int)}


def test_codes_are_the_librarys_every_one() -> None:
    found = library_codes()
    assert found, "no SPACRBENCH_E* constants in the compiled module"
    assert {name: getattr(codes, name) for name in found} == found
    assert set(EXCEPTIONS) <= set(found.values())


def test_unsupported_is_a_not_implemented_error_with_the_librarys_text() -> None:
    assert codes.EUNSUPPORTED == -12
    assert c_text(lib.spacrbench_strerror(codes.EUNSUPPORTED)) == "not available on this platform"
    assert EXCEPTIONS[codes.EUNSUPPORTED] is UnsupportedPlatformError
    assert issubclass(UnsupportedPlatformError, NotImplementedError)
    with pytest.raises(NotImplementedError, match=r"scale: group: .*\(spacrbench error -12\)"):
        _binding.check(codes.EUNSUPPORTED, "scale: group")


@pytest.mark.parametrize("name, exc", [
    ("EINVAL", ValueError), ("ENOITEMS", ValueError), ("ERANGE", ValueError),
    ("EUNKNOWN_FIELDS", ValueError), ("ENOMEM", MemoryError), ("ESYSTEM", OSError),
    ("ETHREAD", OSError), ("EUSER", RuntimeError), ("EBUSY", RuntimeError),
    ("ENOSPACE", RuntimeError), ("EFORKED", RuntimeError),
])
def test_each_code_raises_its_exception(name: str, exc: type) -> None:
    code = getattr(codes, name)
    with pytest.raises(exc, match=rf"\(spacrbench error {code}\)") as info:
        _binding.raise_for(code, "what")
    # exactly the built-in type plus the package's base: not UnsupportedPlatformError's
    # base by accident
    assert type(info.value).__bases__ == (SpacrbenchError, exc)


def test_the_package_base_and_the_exported_platform_error() -> None:
    import spacrbench

    assert spacrbench.UnsupportedPlatformError is UnsupportedPlatformError
    assert issubclass(spacrbench.UnsupportedPlatformError, SpacrbenchError)
    for name in ("SpacrbenchValueError", "SpacrbenchTypeError", "SpacrbenchRuntimeError"):
        assert name in spacrbench.__all__
    # The package's own argument errors: the built-in type spaCR code catches, and the base.
    with pytest.raises(ValueError) as info:
        spacrbench.benchmark(lambda item: None, [])
    assert isinstance(info.value, spacrbench.SpacrbenchError)
    with pytest.raises(TypeError) as type_info:
        spacrbench.benchmark(42, [1])  # type: ignore[arg-type]
    assert isinstance(type_info.value, spacrbench.SpacrbenchValueError.__mro__[1])
    assert isinstance(type_info.value, spacrbench.SpacrbenchTypeError)
    with pytest.raises(ValueError) as value_info:
        spacrbench.recommend_workers(None, cores="many")
    assert isinstance(value_info.value, spacrbench.SpacrbenchError)
