"""Times Python's json.load on a trace, the reference the ingest benchmark compares
against (what a Python tool such as the TensorBoard plugin or HTA starts with)."""
import json
import resource
import sys
import time

path = sys.argv[1]
start = time.perf_counter()
with open(path, "rb") as f:
    data = json.load(f)
seconds = time.perf_counter() - start
events = data if isinstance(data, list) else data["traceEvents"]
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": round(seconds, 3), "entries": len(events), "peak_rss_bytes": peak}))
