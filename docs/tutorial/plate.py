"""The pipeline sized for the whole plate, not only its first fields."""
import glob

import spacrbench
from pipeline import segment

if __name__ == "__main__":
    fields = sorted(glob.glob("plate/*.tif"))
    result = spacrbench.benchmark_plate(segment, fields)
    print(spacrbench.format_report(result))
