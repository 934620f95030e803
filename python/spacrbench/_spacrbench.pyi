# Type stub of the cffi extension generated from include/spacrbench.h and the headers it includes.
from typing import Any

ffi: Any
lib: Any
