"""Times Python's pickle.load on a CUDA memory snapshot, the reference the snapshot
benchmark compares against (what PyTorch's own tools, and its memory_viz page's
converter, start with). Prints one JSON line: seconds, trace entries, peak RSS."""
import json
import pickle
import resource
import sys
import time

path = sys.argv[1]
start = time.perf_counter()
with open(path, "rb") as f:
    data = pickle.load(f)
seconds = time.perf_counter() - start
traces = data.get("device_traces", []) if isinstance(data, dict) else []
entries = sum(len(t) for t in traces)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": round(seconds, 3), "entries": entries, "peak_rss_bytes": peak}))
