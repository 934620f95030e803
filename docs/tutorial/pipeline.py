"""A spaCR-style per-field step: smooth the nuclei, Otsu threshold, label,
measure the stain per nucleus. Measured with spacrbench."""
import glob
import sys

import numpy as np
import tifffile
from skimage import filters, measure

from spacrbench import benchmark, format_report, recommend_workers  # was: from spacr.benchmark import ...


def segment(path):
    field = tifffile.imread(path).astype(np.float32)
    nuclei = filters.gaussian(field[0], sigma=2)
    mask = nuclei > filters.threshold_otsu(nuclei)
    labels = measure.label(mask)
    table = measure.regionprops_table(labels, intensity_image=field[1],
                                      properties=("label", "area", "intensity_mean"))
    return len(table["label"])


if __name__ == "__main__":
    if len(sys.argv) > 1:  # one field, as a SLURM task or `spacrbench run` item runs it
        print(sys.argv[1], segment(sys.argv[1]), "nuclei")
        sys.exit(0)
    fields = sorted(glob.glob("images/*.tif"))
    m = benchmark(segment, fields, warmup=1, timeline=True)
    rec = recommend_workers(m)
    print(format_report(m, rec))
    m.plot("pipeline.png", rec)
    with open("report.md", "w") as f:
        f.write(format_report(m, rec, format="markdown"))
