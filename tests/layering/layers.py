"""Which folder of src/ may call which (docs/architecture.md, "What may
call what"): one table, read by check_calls.py (the objects' symbols) and
check_includes.py (the #include lines). A folder may always use its own
subfolders and itself. The table must have no cycle; the checks fail on a
folder it does not name."""

from __future__ import annotations

from typing import Dict, List, Tuple

LAYERS: Dict[str, Tuple[str, ...]] = {
    # Portable helpers: nothing of ours.
    "util": (),
    # The ABI's mechanics: size-versioned structs, error codes, enum names.
    "abi": ("util",),
    # One field table per record, over the record engine.
    "records": ("abi", "util"),
    # NVML, loaded at run time.
    "gpu": ("abi", "util"),
    # The operating system: probe, sampler, process groups, supervisor.
    "os": ("gpu", "abi", "util"),
    # The serial run, the measurement, the timeline, discovery, the
    # worker count.
    "core": ("os", "gpu", "records", "abi", "util"),
    # The scaling check and its rules, over the core's recommendation.
    "scale": ("core", "os", "records", "abi", "util"),
    # Advice for a whole plate, over a measurement.
    "plate": ("core", "records", "abi", "util"),
    # The hand-off (SLURM/Dask), the job script and array, summarize.
    "cluster": ("core", "records", "abi", "util"),
    # What front ends print: the report, JSON objects, exports.
    "report": ("plate", "scale", "core", "os", "records", "abi", "util"),
    # The command's built-in workload: nothing of ours.
    "workload": (),
    # The command: the public API of any folder (check_calls.py) and the
    # library's util archive (util, records, os, gpu), never other internals.
    "cli": ("workload", "os", "gpu", "records", "util"),
}


def may_use(user: str, used: str) -> bool:
    """Whether folder user may call (or include from) folder used."""
    return used == user or used in LAYERS.get(user, ())


def circles(graph: Dict[str, Tuple[str, ...]]) -> List[List[str]]:
    """The folders that reach each other (strongly connected components of
    more than one folder, Tarjan's), each sorted; [] when the graph is
    one-way."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    found: List[List[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = []
            while True:
                top = stack.pop()
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)
