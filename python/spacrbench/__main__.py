"""python -m spacrbench: the same built-in demo and options as `spacrbench`."""

import sys

from ._cli import main

sys.exit(main())
