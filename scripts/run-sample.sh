#!/usr/bin/env bash
# Set-up, build, and open the desktop app on the bundled sample trace. Without a display
# (a server, CI), print the diagnosis and write the report page instead.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh" "$root/build"
sample="$root/resources/sample.pt.trace.json.gz"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    exec "$root/build/bin/kinetoscope" "$sample"
fi
echo "no display: printing the diagnosis and writing build/sample-report.png instead of opening the window"
"$root/build/bin/kinetoscope" diagnose "$sample" || true
"$root/build/bin/kinetoscope" report "$sample" --out "$root/build/sample-report.png"
echo "report: $root/build/sample-report.png"
