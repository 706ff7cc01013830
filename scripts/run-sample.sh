#!/usr/bin/env bash
# Set-up, build, and run Kinetoscope on the bundled sample trace.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh" "$root/build"
"$root/build/bin/kinetoscope" summary "$root/resources/sample.pt.trace.json.gz"
