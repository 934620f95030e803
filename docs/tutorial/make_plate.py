"""A small plate: three wells of four 2-channel 1024x1024 16-bit fields,
written compressed (zlib), as many microscopes do. Well A02 is dense: six
times the nuclei of the others, so its files are larger."""
import os

import numpy as np
import tifffile

rng = np.random.default_rng(1)
os.makedirs("plate", exist_ok=True)
yy, xx = np.mgrid[0:1024, 0:1024]
for w, well in enumerate(["A01", "A02", "A03"]):
    for f in range(4):
        nuclei = np.zeros((1024, 1024), np.float32)
        for cy, cx in rng.integers(20, 1004, size=(240 if well == "A02" else 40, 2)):
            y0, x0 = max(cy - 15, 0), max(cx - 15, 0)
            patch = (yy[y0:cy + 15, x0:cx + 15] - cy) ** 2 + (xx[y0:cy + 15, x0:cx + 15] - cx) ** 2
            nuclei[y0:cy + 15, x0:cx + 15] += 3000 * (patch < 100)
        stain = nuclei * rng.uniform(0.2, 1.0) + rng.normal(500, 50, nuclei.shape)
        field = np.stack([nuclei + rng.normal(300, 30, nuclei.shape), stain])
        tifffile.imwrite(f"plate/{well}_f{f + 1}.tif", field.clip(0, 65535).astype(np.uint16),
                         compression="zlib")
print("wrote", len(os.listdir("plate")), "fields to plate/")
