"""The package's exceptions: each a SpacrbenchError and the built-in type spaCR code catches."""


class SpacrbenchError(Exception):
    """Base of every error spacrbench raises itself."""


class SpacrbenchValueError(SpacrbenchError, ValueError):
    """An argument or figure has the right type but a wrong value."""


class SpacrbenchOverflowError(SpacrbenchValueError, OverflowError):
    """A number too large for int(), where spaCR's int() raised OverflowError."""


class SpacrbenchTypeError(SpacrbenchError, TypeError):
    """An argument or figure has the wrong type."""


class SpacrbenchRuntimeError(SpacrbenchError, RuntimeError):
    """The call cannot run now (a benchmark already running, a nested one)."""


class SpacrbenchOSError(SpacrbenchError, OSError):
    """The operating system refused what the library asked of it."""


class SpacrbenchFileNotFoundError(SpacrbenchOSError, FileNotFoundError):
    """A path given to the package is not there or not what it must be."""


class SpacrbenchMemoryError(SpacrbenchError, MemoryError):
    """The library could not allocate memory."""


class UnsupportedPlatformError(SpacrbenchError, NotImplementedError):
    """What the library cannot do on this operating system."""
