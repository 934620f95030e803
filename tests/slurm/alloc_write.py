"""Test helper for the SLURM tests: `alloc_write.py RESULTS ITEM` allocates
and touches N MiB (ITEM starts with "N:"), then appends ITEM as one JSON
line to RESULTS, so a test can check it arrived unchanged."""

import json
import os
import sys

results, item = sys.argv[1], sys.argv[2]
block = bytearray(int(item.split(":", 1)[0]) << 20)
for i in range(0, len(block), 4096):
    block[i] = 1
fd = os.open(results, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
os.write(fd, (json.dumps(item) + "\n").encode())
os.close(fd)
