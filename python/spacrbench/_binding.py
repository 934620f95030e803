"""The compiled cffi module, its version check, and the error codes as exceptions."""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import Any, Dict, NoReturn, Type

# Windows: the .pyd finds spacrbench.dll in its own folder (LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR);
# Linux and macOS through the run path ($ORIGIN, @loader_path).
from ._spacrbench import ffi as ffi
from ._spacrbench import lib as lib

from ._errors import (SpacrbenchMemoryError, SpacrbenchOSError, SpacrbenchRuntimeError,
                      SpacrbenchTypeError, SpacrbenchValueError, UnsupportedPlatformError)

NOT_MEASURED: int = lib.SPACRBENCH_NOT_MEASURED
AUTO: int = lib.SPACRBENCH_AUTO


def check_version(compiled: int, loaded: int) -> None:
    """Refuse a libspacrbench that is not the one this binding was built for."""
    if compiled != loaded:
        raise ImportError(
            "spacrbench: the binding was compiled against libspacrbench "
            f"{_version_text(compiled)} but loaded {_version_text(loaded)}; "
            "reinstall spacrbench so both come from the same build"
        )


def _version_text(number: int) -> str:
    return f"{number // 10000}.{number // 100 % 100}.{number % 100} ({number})"


check_version(lib.SPACRBENCH_VERSION_NUMBER, lib.spacrbench_version_number())


#: The library's error codes by name (codes.EINVAL, ...).
codes: Any = SimpleNamespace(**{name[len("SPACRBENCH_"):]: getattr(lib, name)
                                for name in dir(lib) if name.startswith("SPACRBENCH_E")})


# Library codes to Python exceptions; a code not in it is a RuntimeError.
EXCEPTIONS: Dict[int, Type[Exception]] = {
    codes.EINVAL: SpacrbenchValueError,
    codes.ENOITEMS: SpacrbenchValueError,
    codes.ERANGE: SpacrbenchValueError,
    codes.EUNKNOWN_FIELDS: SpacrbenchValueError,
    codes.ETYPE: SpacrbenchTypeError,
    codes.ENOMEM: SpacrbenchMemoryError,
    codes.ESYSTEM: SpacrbenchOSError,
    codes.ETHREAD: SpacrbenchOSError,
    codes.EUNSUPPORTED: UnsupportedPlatformError,
}


def error_text(code: int) -> str:
    """The library's message for this thread's last failure, or the code's text."""
    detail = c_text(lib.spacrbench_last_error_message())
    return detail or c_text(lib.spacrbench_strerror(code))


def exception_for(code: int, what: str) -> Exception:
    """The Python exception that matches a negative library code."""
    message = f"{what}: {error_text(code)} (spacrbench error {code})"
    if code == codes.EUNSUPPORTED:
        message += f"; this is {sys.platform}, see docs/platforms.md"
    return EXCEPTIONS.get(code, SpacrbenchRuntimeError)(message)


def raise_for(code: int, what: str) -> NoReturn:
    """Raise the Python exception that matches a negative library code."""
    raise exception_for(code, what)


def check(code: int, what: str) -> int:
    """Pass a non-negative result through; raise for a negative one."""
    if code < 0:
        raise_for(code, what)
    return code


def new_struct(ctype: str) -> Any:
    """A zeroed size-versioned struct with its size field set."""
    obj = ffi.new(ctype + " *")
    obj.size = ffi.sizeof(ctype)
    return obj


def c_text(chars: Any) -> str:
    """A NUL-terminated char array or pointer as text ('' for NULL)."""
    if chars == ffi.NULL:
        return ""
    return str(ffi.string(chars).decode("utf-8", "replace"))


def name_of(function: Any, code: int) -> str:
    """The library's one spelling of an enum value."""
    return c_text(function(code))


class Names:
    """One of the library's enums: code <-> the library's name."""

    def __init__(self, prefix: str, function: Any) -> None:
        self.function = function
        codes = sorted(getattr(lib, attr) for attr in dir(lib) if attr.startswith(prefix))
        self.by_code: Dict[int, str] = {code: name_of(function, code) for code in codes}
        self.by_name: Dict[str, int] = {name: code for code, name in self.by_code.items()}

    def name(self, code: int) -> str:
        """The library's name ("unknown" for a value it does not know)."""
        return self.by_code.get(code) or name_of(self.function, code)

    def code(self, name: Any, what: str) -> int:
        """The code of a name. Spelling 1.0's hyphens ("hwm-reset") is accepted."""
        if not isinstance(name, str):
            raise SpacrbenchTypeError(f"{what} must be a str, not {type(name).__name__}")
        code = self.by_name.get(name, self.by_name.get(name.replace("-", "_")))
        if code is None:
            raise SpacrbenchValueError(f"{what} must be one of {sorted(self.by_name)}, not {name!r}")
        return code


def format_text(call: Any, what: str) -> str:
    """Run an snprintf-style formatter, again with the exact size if too small."""
    cap = 8192
    while True:
        buf = ffi.new("char[]", cap)
        length = check(call(buf, cap), what)
        if length < cap:
            return c_text(buf)
        cap = length + 1
