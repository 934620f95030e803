# Type stub of the cffi extension generated from include/spacrbench.h.
from typing import Any

ffi: Any
lib: Any
