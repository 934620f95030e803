"""The package's exceptions. Each derives from SpacrbenchError and from the
built-in type spaCR code catches today (ValueError, TypeError,
RuntimeError, ...), so `except ValueError` keeps working and
`except spacrbench.SpacrbenchError` catches everything the package raises
on its own account. Imports nothing of the package."""


class SpacrbenchError(Exception):
    """Base of every error spacrbench raises itself (an exception raised by
    the work or the progress callable passes through unchanged)."""


class SpacrbenchValueError(SpacrbenchError, ValueError):
    """An argument or figure has the right type but a wrong value."""


class SpacrbenchOverflowError(SpacrbenchValueError, OverflowError):
    """A number too large for int() (infinity), where spaCR's int() raised
    OverflowError: `except OverflowError` and `except ValueError` both
    keep working."""


class SpacrbenchTypeError(SpacrbenchError, TypeError):
    """An argument or figure has the wrong type."""


class SpacrbenchRuntimeError(SpacrbenchError, RuntimeError):
    """The call cannot run now (a benchmark already running, a nested one)."""


class SpacrbenchOSError(SpacrbenchError, OSError):
    """The operating system refused what the library asked of it."""


class SpacrbenchFileNotFoundError(SpacrbenchOSError, FileNotFoundError):
    """A path given to the package is not there, or is not what it must
    be (summarize()'s directory, its job_script); errno and filename are
    set, so `except FileNotFoundError` and `except OSError` keep working."""


class SpacrbenchMemoryError(SpacrbenchError, MemoryError):
    """The library could not allocate memory."""


class UnsupportedPlatformError(SpacrbenchError, NotImplementedError):
    """What the library cannot do on this operating system
    (SPACRBENCH_EUNSUPPORTED): process groups and the scaling check are
    Linux's (cgroups, fork); benchmark() and the recommendation work
    everywhere."""
