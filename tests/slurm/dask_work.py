"""The work the Dask tests run (importable by the workers through
PYTHONPATH): allocate and touch N MiB, return its size."""


def work(mib: int) -> int:
    block = bytearray(mib << 20)
    for i in range(0, len(block), 4096):
        block[i] = 1
    return len(block)
