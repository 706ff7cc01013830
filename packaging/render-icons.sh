#!/usr/bin/env bash
# Renders the icon's PNG sizes from its SVG drawing into resources/icons/, where they are
# kept in the repository (the build needs no SVG renderer). Run it after editing
# resources/icons/kinetoscope.svg or kinetoscope-16.svg (the 16-pixel drawing).
# Needs rsvg-convert (Debian: librsvg2-bin).
set -euo pipefail
icons=$(cd "$(dirname "$0")/../resources/icons" && pwd)
command -v rsvg-convert >/dev/null || { echo "render-icons: rsvg-convert is missing (apt-get install librsvg2-bin)" >&2; exit 1; }
for size in 16 32 48 64 128 256; do
    src="$icons/kinetoscope.svg"
    [ "$size" -eq 16 ] && src="$icons/kinetoscope-16.svg"
    rsvg-convert --width "$size" --height "$size" --keep-aspect-ratio "$src" -o "$icons/kinetoscope-$size.png"
    echo "$icons/kinetoscope-$size.png"
done
