"""Six synthetic 2-channel 2048x2048 16-bit fields (nuclei + a stain), as a
microscope would write them."""
import os

import numpy as np
import tifffile

rng = np.random.default_rng(0)
os.makedirs("images", exist_ok=True)
yy, xx = np.mgrid[0:2048, 0:2048]
for n in range(6):
    nuclei = np.zeros((2048, 2048), np.float32)
    for cy, cx in rng.integers(40, 2008, size=(150 + 40 * n, 2)):
        y0, x0 = max(cy - 30, 0), max(cx - 30, 0)
        patch = (yy[y0:cy + 30, x0:cx + 30] - cy) ** 2 + (xx[y0:cy + 30, x0:cx + 30] - cx) ** 2
        nuclei[y0:cy + 30, x0:cx + 30] += 3000 * (patch < 400)
    stain = nuclei * rng.uniform(0.2, 1.0) + rng.normal(500, 50, nuclei.shape)
    field = np.stack([nuclei + rng.normal(300, 30, nuclei.shape), stain])
    tifffile.imwrite(f"images/field_{n:02d}.tif", field.clip(0, 65535).astype(np.uint16))
print("wrote", len(os.listdir("images")), "fields to images/")
