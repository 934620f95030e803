"""The scaling check: the pipeline of step 3 with 1, 2, ... workers at once."""
import glob

import spacrbench
from pipeline import segment

if __name__ == "__main__":
    result = spacrbench.scale(segment, sorted(glob.glob("images/*.tif")))
    print(result.table)
    result.plot("scaling.png")
