#!/usr/bin/env bash
# CI test of the Debian package, from an already-built tree (root, Debian 12):
#   scripts/test-package.sh [BUILD_DIR]      (default: build/)
# Makes the package (scripts/package.sh), validates its desktop entry and AppStream file,
# installs it with apt-get as a user would, runs what it installed from /usr/bin (the
# CLI, the GUI under Xvfb, the engine when a torch wheel is at hand, `kinetoscope profile`
# on a real script with a Python that has torch), checks the file
# types, the desktop entry and the icons are registered, then removes it and checks it
# is gone. Whatever it installed (the package, dependencies apt pulled in, a LibTorch
# link) is removed again on every exit, failure included. Exits 1 with one line
# "test-package: FAIL: reason" on the first check that fails. Refuses to run where a
# kinetoscope is installed already, which it would replace.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
app_id=io.github.kinetoscope.Kinetoscope
export DEBIAN_FRONTEND=noninteractive

say() { printf '[test-package] %s\n' "$*"; }
fail() { printf 'test-package: FAIL: %s\n' "$*" >&2; exit 1; }
last_line() { grep -v '^[[:space:]]*$' "$1" 2>/dev/null | tail -n 1; }
# apt's first error in a log, else its last line.
apt_error() { local l; l=$(grep -E '^(E:|dpkg:)' "$1" | head -n 1); echo "${l:-$(last_line "$1")}"; }
# apt-get, bounded, waiting a while for the dpkg lock rather than failing on it.
apt_get() { timeout 180 apt-get -o DPkg::Lock::Timeout=60 "$@"; }
# The packages installed now, one name a line, sorted for comm.
installed_packages() { dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' | awk '$1 ~ /^ii/ {print $2}' | LC_ALL=C sort; }
# A PNG's width x height, from the od dump of bytes 16 to 23 of its header.
png_size() { awk '{print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8}'; }

[ "$(id -u)" -eq 0 ] || fail "run as root (it installs the package with apt-get)"
for tool in dpkg-deb dpkg-shlibdeps apt-get desktop-file-validate appstreamcli xvfb-run readelf; do
    command -v "$tool" >/dev/null || fail "$tool is missing (scripts/setup.sh installs it)"
done
if dpkg-query -W -f='${Status}' kinetoscope 2>/dev/null | grep -q 'ok installed'; then
    fail "a kinetoscope package is installed already ($(dpkg-query -W -f='${Version}' kinetoscope)); remove it first"
fi
[ ! -e /usr/bin/kinetoscope ] || fail "/usr/bin/kinetoscope exists outside any package; remove it first"

work=$(mktemp -d /tmp/kinetoscope-test-package.XXXXXX)
chmod 755 "$work"   # apt's _apt user reads the .deb from here
installed=0
made_link=""
made_libdir=0
packages_before="$work/packages-before"
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    if [ -n "$made_link" ]; then
        rm -f "$made_link"
        [ "$made_libdir" -eq 0 ] || rmdir /usr/lib/kinetoscope 2>/dev/null || true
    fi
    if [ "$installed" -eq 1 ]; then
        if dpkg-query -W -f='${Status}' kinetoscope 2>/dev/null | grep -q 'ok installed'; then
            say "cleaning up: purging kinetoscope"
            apt_get purge -y -q kinetoscope > "$work/cleanup.log" 2>&1 || true
        fi
        # Exactly the packages that were not installed before, nothing apt merely
        # considers unneeded.
        local new
        new=$(installed_packages | LC_ALL=C comm -13 "$packages_before" - | tr '\n' ' ')
        if [ -n "$new" ]; then
            say "cleaning up: purging what apt pulled in: $new"
            # shellcheck disable=SC2086  # one word per package
            apt_get purge -y -q $new >> "$work/cleanup.log" 2>&1 || true
        fi
        if dpkg-query -W -f='${Status}' kinetoscope 2>/dev/null | grep -q 'ok installed'; then
            echo "test-package: cleanup could not remove the package kinetoscope (log: $work/cleanup.log)" >&2
            exit 1
        fi
    fi
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the package --------------------------------------------------------------------
say "packaging $build"
deb=$(bash "$root/scripts/package.sh" "$build" 2> "$work/package.log") \
    || fail "scripts/package.sh failed: $(last_line "$work/package.log")"
[ -f "$deb" ] || fail "scripts/package.sh printed no .deb"
cp "$deb" "$work/"
deb="$work/$(basename "$deb")"
version=$(dpkg-deb -f "$deb" Version)
depends=$(dpkg-deb -f "$deb" Depends)
say "$(basename "$deb"): $(du -k "$deb" | cut -f1) KiB, version $version"
say "Depends: $depends"
dpkg-deb -c "$deb" > "$work/contents" || fail "dpkg-deb cannot list $deb"
has_engine=0
grep -q ' \./usr/bin/kinetoscope-engine$' "$work/contents" && has_engine=1

# --- what it ships, validated before it is installed ---------------------------------
dpkg-deb -x "$deb" "$work/root"
desktop="usr/share/applications/$app_id.desktop"
metainfo="usr/share/metainfo/$app_id.metainfo.xml"
for f in usr/bin/kinetoscope "$desktop" "$metainfo" usr/share/mime/packages/kinetoscope.xml \
         usr/share/kinetoscope/sample.pt.trace.json.gz; do
    [ -f "$work/root/$f" ] || fail "the package lacks /$f"
done
desktop-file-validate "$work/root/$desktop" > "$work/desktop.log" 2>&1 \
    || fail "desktop-file-validate: $(last_line "$work/desktop.log")"
[ ! -s "$work/desktop.log" ] || fail "desktop-file-validate: $(last_line "$work/desktop.log")"
say "desktop-file-validate: no complaints"
# Errors and warnings fail; info and pedantic notes are shown but do not.
appstreamcli validate --no-net --no-color "$work/root/$metainfo" > "$work/appstream.log" 2>&1 \
    || fail "appstreamcli validate: $(grep -E '^[EW]:' "$work/appstream.log" | head -n 1)"
if grep -qE '^[EW]:' "$work/appstream.log"; then
    fail "appstreamcli validate: $(grep -E '^[EW]:' "$work/appstream.log" | head -n 1)"
fi
say "appstreamcli validate: $(last_line "$work/appstream.log")"
grep -q "<release version=\"$version\"" "$work/root/$metainfo" \
    || fail "the AppStream file has no release $version"

# The declared dependencies cover every package dpkg-shlibdeps finds for the binary.
mkdir -p "$work/shlibs/debian"
printf 'Source: kinetoscope\n\nPackage: kinetoscope\nArchitecture: any\n' > "$work/shlibs/debian/control"
(cd "$work/shlibs" && dpkg-shlibdeps -O "$work/root/usr/bin/kinetoscope") > "$work/shlibs.out" 2> "$work/shlibs.log" \
    || fail "dpkg-shlibdeps: $(last_line "$work/shlibs.log")"
declared=" $(echo "$depends" | sed 's/[,|]/\n/g' | awk '{print $1}' | tr '\n' ' ') "
while read -r p; do
    case "$declared" in *" $p "*) ;; *) fail "Depends lacks $p, which kinetoscope links (packaging/CMakeLists.txt)";; esac
done < <(sed -n 's/^shlibs:Depends=//p' "$work/shlibs.out" | sed 's/[,|]/\n/g' | awk 'NF {print $1}')
say "Depends covers what dpkg-shlibdeps finds"

# --- install, as a user would ---------------------------------------------------------
installed_packages > "$packages_before"
say "apt-get install ./$(basename "$deb")"
installed=1
(cd "$work" && apt_get install -y -q "./$(basename "$deb")") > "$work/install.log" 2>&1 \
    || fail "apt-get install: $(apt_error "$work/install.log")"
dpkg-query -W -f='${Status}' kinetoscope 2>/dev/null | grep -q 'ok installed' \
    || fail "apt-get install left kinetoscope not installed"
pulled=$(installed_packages | LC_ALL=C comm -13 "$packages_before" - | grep -cvx kinetoscope || true)
say "installed ($pulled other packages pulled in)"

# --- run it from /usr/bin --------------------------------------------------------------
# The CLI and the GUI first, before the check below links a LibTorch: viewing needs none.
[ -x /usr/bin/kinetoscope ] || fail "/usr/bin/kinetoscope is not installed"
cd "$work"   # nothing from the source tree or the build folder
got=$(/usr/bin/kinetoscope --version 2> "$work/version.log") || fail "kinetoscope --version: $(last_line "$work/version.log")"
case "$got" in "kinetoscope $version"|"kinetoscope $version "*) ;; *) fail "kinetoscope --version says '$got', the package is $version";; esac
say "--version: $got"
sample=/usr/share/kinetoscope/sample.pt.trace.json.gz
timeout 60 /usr/bin/kinetoscope summary "$sample" > "$work/summary.out" 2> "$work/summary.log" \
    || fail "kinetoscope summary $sample: $(last_line "$work/summary.log")"
[ -s "$work/summary.out" ] || fail "kinetoscope summary printed nothing"
say "summary: $(awk 'NR > 1 && NF {print; exit}' "$work/summary.out")"

# The GUI, in a home and temporary folder of its own: it keeps recent files and window
# state, and must not meet (or hand its file to) a kinetoscope the user has open.
mkdir -p "$work/home" "$work/tmp" "$work/run"
chmod 700 "$work/run"
shot="$work/x.png"
env HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_CACHE_HOME="$work/home/.cache" \
    XDG_DATA_HOME="$work/home/.local/share" XDG_RUNTIME_DIR="$work/run" TMPDIR="$work/tmp" \
    timeout 120 xvfb-run -a /usr/bin/kinetoscope "$sample" --screenshot "$shot" > "$work/gui.log" 2>&1 \
    || fail "the GUI under xvfb-run: $(last_line "$work/gui.log")"
[ -s "$shot" ] || fail "the GUI wrote no screenshot"
[ "$(head -c 8 "$shot" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "the GUI's screenshot is not a PNG"
say "GUI: screenshot $(od -An -tu1 -j16 -N8 "$shot" | png_size) PNG"

# The engine: installed beside kinetoscope, finding LibTorch through
# /usr/lib/kinetoscope/torch. With a torch wheel at hand, the link is made for the
# check and removed again (a link the machine already has is used as it is).
if [ "$has_engine" -eq 1 ]; then
    [ -x /usr/bin/kinetoscope-engine ] || fail "/usr/bin/kinetoscope-engine is not installed"
    # shellcheck disable=SC2016  # a literal $ORIGIN
    readelf -d /usr/bin/kinetoscope-engine | grep -q 'path: \[\$ORIGIN/../lib/kinetoscope/torch/lib' \
        || fail "kinetoscope-engine's run path does not start with \$ORIGIN/../lib/kinetoscope/torch/lib"
    torch_dir=""
    for py in "${KINETOSCOPE_VENV:-$HOME/.local/share/kinetoscope/venv}/bin/python" python3; do
        command -v "$py" >/dev/null 2>&1 || continue
        torch_dir=$("$py" -c 'import importlib.util as u, os; s = u.find_spec("torch"); print(os.path.dirname(s.origin) if s else "")' 2>/dev/null) || torch_dir=""
        [ -n "$torch_dir" ] && [ -f "$torch_dir/lib/libtorch_cpu.so" ] && break
        torch_dir=""
    done
    if [ ! -e /usr/lib/kinetoscope/torch ]; then
        # Without LibTorch the lab says where to point it, in one line; nothing else breaks
        # (the summary and the GUI above ran without it).
        rc=0
        env -u KINETOSCOPE_LIBTORCH -u LD_LIBRARY_PATH timeout 60 /usr/bin/kinetoscope run --device cpu --steps 2 \
            --out "$work/run" > "$work/run.out" 2> "$work/run.err" || rc=$?
        [ "$rc" -ne 0 ] || fail "kinetoscope run succeeded without LibTorch"
        grep -q 'KINETOSCOPE_LIBTORCH' "$work/run.err" \
            || fail "kinetoscope run without LibTorch does not say where to point it: $(last_line "$work/run.err")"
        say "engine without LibTorch: exit $rc, $(grep -c . "$work/run.err") line: $(grep -o 'the engine cannot start[^:]*' "$work/run.err" | head -n 1)"
    fi
    if [ -e /usr/lib/kinetoscope/torch ]; then
        say "engine: using the machine's /usr/lib/kinetoscope/torch"
    elif [ -n "$torch_dir" ]; then
        [ -d /usr/lib/kinetoscope ] || { mkdir /usr/lib/kinetoscope; made_libdir=1; }
        ln -s "$torch_dir" /usr/lib/kinetoscope/torch
        made_link=/usr/lib/kinetoscope/torch
        say "engine: linked /usr/lib/kinetoscope/torch -> $torch_dir for the check"
    fi
    if [ -e /usr/lib/kinetoscope/torch ]; then
        env -u LD_LIBRARY_PATH ldd /usr/bin/kinetoscope-engine > "$work/ldd.out" 2>&1 || true
        if grep -q 'not found' "$work/ldd.out"; then
            fail "kinetoscope-engine misses $(grep 'not found' "$work/ldd.out" | awk '{print $1}' | tr '\n' ' ')through /usr/lib/kinetoscope/torch"
        fi
        grep -Eq 'libtorch_cpu\.so => /usr/(bin/\.\./)?lib/kinetoscope/torch/lib/' "$work/ldd.out" \
            || fail "kinetoscope-engine does not take libtorch_cpu.so from /usr/lib/kinetoscope/torch/lib"
        env -u LD_LIBRARY_PATH timeout 60 /usr/bin/kinetoscope-engine --help > "$work/engine.out" 2>&1 \
            || fail "kinetoscope-engine --help: $(last_line "$work/engine.out")"
        say "engine: starts with LibTorch from /usr/lib/kinetoscope/torch/lib$(awk '/libcudart/ {print "; " $1 " from " $3}' "$work/ldd.out")"
        if [ -n "$made_link" ]; then
            rm -f "$made_link"; made_link=""
            [ "$made_libdir" -eq 0 ] || rmdir /usr/lib/kinetoscope
        fi
    else
        say "engine: installed (no torch wheel here to run it with)"
    fi
fi

# The probe: installed in /usr/share/kinetoscope/python, found by /usr/bin/kinetoscope
# beside it. With a Python that has torch, `kinetoscope profile` runs a real training
# script (tests/probe/train_mlp.py) from /usr/bin and writes its session and trace.
[ -f /usr/share/kinetoscope/python/boot/sitecustomize.py ] \
    || fail "the probe (/usr/share/kinetoscope/python/boot/sitecustomize.py) is not installed"
profile_python=""
for py in "${KINETOSCOPE_VENV:-$HOME/.local/share/kinetoscope/venv}/bin/python" python3; do
    command -v "$py" >/dev/null 2>&1 || continue
    "$py" -c 'import torch' >/dev/null 2>&1 && { profile_python=$py; break; }
done
if [ -n "$profile_python" ]; then
    timeout 300 /usr/bin/kinetoscope profile --out "$work/profile" --skip 2 --active 2 -- \
        "$profile_python" "$root/tests/probe/train_mlp.py" --steps-total 10 \
        > "$work/profile.out" 2> "$work/profile.err" \
        || fail "kinetoscope profile from /usr/bin: exit $?, $(last_line "$work/profile.err")"
    grep -q '^kinetoscope profile: 6 steps measured' "$work/profile.err" \
        || fail "kinetoscope profile from /usr/bin measured no steps: $(grep 'kinetoscope profile' "$work/profile.err" | head -n 1)"
    [ -f "$work/profile/session.kinetoscope.json" ] && [ -f "$work/profile/trace.json" ] \
        || fail "kinetoscope profile from /usr/bin wrote no session and trace in $work/profile"
    say "profile: a real script profiled from /usr/bin with $profile_python (6 steps, a trace)"
else
    say "profile: the probe is installed (no Python with torch here to run it with)"
fi

# --- registered with the desktop ----------------------------------------------------
for t in x-kineto-trace+json x-kineto-trace+gzip x-kinetoscope-session+json x-pytorch-memory-snapshot; do
    [ -f "/usr/share/mime/application/$t.xml" ] \
        || fail "the MIME database has no application/$t (is shared-mime-info installed?)"
done
grep -q ':\*\.pt\.trace\.json\.gz$' /usr/share/mime/globs2 || fail "the MIME globs lack *.pt.trace.json.gz"
if command -v xdg-mime >/dev/null && command -v mimetype >/dev/null; then
    # xdg-mime asks mimetype (libfile-mimeinfo-perl), which reads the shared database.
    cp "$sample" "$work/probe.pt.trace.json.gz"
    got=$(xdg-mime query filetype "$work/probe.pt.trace.json.gz" 2>/dev/null || true)
    [ "$got" = application/x-kineto-trace+gzip ] || fail "xdg-mime says a trace is '$got'"
    # In the test's own home: the user's own choices (mimeapps.list) are not asked.
    got=$(env HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" \
          xdg-mime query default application/x-kineto-trace+gzip 2>/dev/null || true)
    [ "$got" = "$app_id.desktop" ] || fail "xdg-mime opens traces with '$got', not $app_id.desktop"
fi
say "MIME: the four types are in the database"
[ -f "/usr/share/applications/$app_id.desktop" ] || fail "the desktop entry is not installed"
if command -v update-desktop-database >/dev/null; then
    grep -q "^application/x-kineto-trace+gzip=.*$app_id.desktop" /usr/share/applications/mimeinfo.cache \
        || fail "mimeinfo.cache does not give traces to $app_id.desktop"
fi
[ -f "/usr/share/metainfo/$app_id.metainfo.xml" ] || fail "the AppStream file is not installed"
for size in 16 32 48 64 128 256; do
    icon="/usr/share/icons/hicolor/${size}x${size}/apps/$app_id.png"
    [ -f "$icon" ] || fail "the ${size}x${size} icon is not installed"
    dims=$(od -An -tu1 -j16 -N8 "$icon" | png_size)
    [ "$dims" = "${size}x${size}" ] || fail "$icon is $dims"
done
[ -f "/usr/share/icons/hicolor/scalable/apps/$app_id.svg" ] || fail "the scalable icon is not installed"
say "desktop entry, AppStream file and icons (16 to 256, scalable) in place"

# --- remove -----------------------------------------------------------------------------
say "apt-get purge kinetoscope"
apt_get purge -y -q kinetoscope > "$work/remove.log" 2>&1 \
    || fail "apt-get purge: $(apt_error "$work/remove.log")"
for f in /usr/bin/kinetoscope /usr/bin/kinetoscope-engine "/usr/share/applications/$app_id.desktop" \
         /usr/share/mime/application/x-kineto-trace+gzip.xml /usr/share/kinetoscope; do
    [ ! -e "$f" ] || fail "$f is still there after the package was removed"
done
say "removed: /usr/bin/kinetoscope and the file types are gone"
say "PASS"
