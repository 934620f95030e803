"""Test helper for the SLURM tests: `alloc_write.py RESULTS ITEM` allocates
and touches N MiB (ITEM starts with "N:"), then appends ITEM as one JSON
line to RESULTS, so a test can check it arrived unchanged. Inside a SLURM
job only, an item "N:...:big" allocates N (elsewhere 40: the measuring
run saw a small input, the cluster gets the large one) and an item
"S:...:sleep" sleeps S seconds (elsewhere not at all)."""

import json
import os
import sys
import time

results, item = sys.argv[1], sys.argv[2]
size = int(item.split(":", 1)[0])
in_job = "SLURM_JOB_ID" in os.environ
if item.endswith(":sleep"):
    if in_job:
        time.sleep(size)
    size = 1
elif item.endswith(":big") and not in_job:
    size = 40
block = bytearray(size << 20)
for i in range(0, len(block), 4096):
    block[i] = 1
fd = os.open(results, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
os.write(fd, (json.dumps(item) + "\n").encode())
os.close(fd)
