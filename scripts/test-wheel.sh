#!/usr/bin/env bash
# The pure-Python wheel `kinetoscope` (python/pyproject.toml) built, installed in a fresh
# virtual environment and tested there: tests/api run from a folder outside the checkout,
# so `import kinetoscope` is the wheel's (the suite asserts it is under that environment).
#
#   scripts/test-wheel.sh              build, check, install, run tests/api
#   KINETOSCOPE_WHEEL_PANDAS=1 ...     also install the wheel's "pandas" extra (from the
#                                      package index) so open()'s tables are DataFrames
#
# torch is not installed again: the fresh environment sees the project venv's
# (${KINETOSCOPE_VENV:-$HOME/.local/share/kinetoscope/venv}, scripts/setup.sh) through a
# .pth file. The binary is $KINETOSCOPE_BIN, else build/bin/kinetoscope.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${KINETOSCOPE_VENV:-$HOME/.local/share/kinetoscope/venv}
python=$venv/bin/python
log() { printf '[test-wheel] %s\n' "$*"; }
fail() { printf '[test-wheel] FAILED: %s\n' "$*" >&2; exit 1; }

[ -x "$python" ] || fail "no project venv at $venv (run scripts/setup.sh)"
export KINETOSCOPE_BIN=${KINETOSCOPE_BIN:-$root/build/bin/kinetoscope}
[ -x "$KINETOSCOPE_BIN" ] || fail "no kinetoscope binary at $KINETOSCOPE_BIN (build it first)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The versions agree: CMake's project, the wheel's and the package's __version__.
cmake_version=$(sed -n 's/^project(Kinetoscope VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
wheel_version=$(sed -n 's/^version = "\([^"]*\)".*/\1/p' "$root/python/pyproject.toml")
package_version=$(sed -n 's/^__version__ = "\([^"]*\)".*/\1/p' "$root/python/kinetoscope/__init__.py")
[ -n "$cmake_version" ] && [ "$cmake_version" = "$wheel_version" ] && [ "$wheel_version" = "$package_version" ] ||
    fail "versions differ: CMakeLists.txt '$cmake_version', pyproject.toml '$wheel_version', __version__ '$package_version'"

# Built from a copy of python/: setuptools writes build/ and *.egg-info beside its sources.
cp -R "$root/python" "$work/src"
find "$work/src" -name __pycache__ -prune -exec rm -rf {} +
build_flags=(--no-deps --quiet --disable-pip-version-check -w "$work/dist")
if "$python" - <<'PY' 2>/dev/null; then
import setuptools, wheel, sys
sys.exit(0 if int(setuptools.__version__.split(".")[0]) >= 61 else 1)
PY
    build_flags+=(--no-build-isolation)  # the venv's setuptools and wheel: no download
else
    log "building in an isolated environment (setuptools from the package index)"
fi
log "building the wheel ($python -m pip wheel ${build_flags[*]} python/)"
"$python" -m pip wheel "${build_flags[@]}" "$work/src"
wheels=("$work"/dist/kinetoscope-*.whl)
[ ${#wheels[@]} -eq 1 ] && [ -f "${wheels[0]}" ] || fail "expected one kinetoscope wheel in $work/dist"
wheel_file=${wheels[0]}
log "built $(basename "$wheel_file")"

# What the wheel holds: the API and the probe, pure Python; no sitecustomize, no tests; no
# dependency but the pandas extra.
"$python" - "$wheel_file" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
need = ["kinetoscope/__init__.py", "kinetoscope/api/__init__.py", "kinetoscope/api/lab.py",
        "kinetoscope/api/reader.py", "kinetoscope/api/session.py", "kinetoscope/api/binary.py",
        "kinetoscope/probe/__init__.py", "kinetoscope/probe/runtime.py"]
missing = [n for n in need if n not in names]
unwanted = [n for n in names if n.endswith("sitecustomize.py") or n.startswith(("tests/", "boot/"))
            or n.endswith((".so", ".pyc", ".pyd"))]
meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
metadata = zipfile.ZipFile(sys.argv[1]).read(meta).decode()
requires = [l for l in metadata.splitlines() if l.startswith("Requires-Dist:")]
problems = []
if missing: problems.append("missing " + ", ".join(missing))
if unwanted: problems.append("should not hold " + ", ".join(unwanted))
if "Requires-Python: >=3.9" not in metadata: problems.append("no Requires-Python: >=3.9")
if any("extra ==" not in r for r in requires): problems.append("dependencies: %s" % requires)
if not sys.argv[1].endswith("-py3-none-any.whl"): problems.append("not a pure-Python wheel")
if problems:
    sys.exit("[test-wheel] FAILED: the wheel " + "; ".join(problems))
print("[test-wheel] the wheel holds %d files: kinetoscope, kinetoscope.api, kinetoscope.probe" % len(names))
PY

# A fresh environment (no system site-packages) that sees the project venv's torch: its
# site-packages folders (with the system's it inherits: typing_extensions, sympy...) are
# added after the fresh one's by a .pth file, so the wheel's kinetoscope comes first.
fresh=$work/venv
"$python" -m venv "$fresh"
fresh_site=$("$fresh/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$python" -c 'import site; print("\n".join(site.getsitepackages()))' > "$fresh_site/kinetoscope-test-torch.pth"
"$fresh/bin/python" -c 'import torch' 2>/dev/null || fail "the fresh environment does not see the project venv's torch"
"$fresh/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --no-index "$wheel_file"
if [ "${KINETOSCOPE_WHEEL_PANDAS:-0}" = 1 ]; then
    log "installing the pandas extra"
    "$fresh/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel_file[pandas]"
fi

# tests/api from a folder outside the checkout: the package is the installed wheel's.
mkdir -p "$work/run"
cd "$work/run"
installed=$("$fresh/bin/python" -c 'import kinetoscope; print(kinetoscope.__file__)')
case "$installed" in
    "$fresh"/*) log "kinetoscope imports from $installed" ;;
    *) fail "kinetoscope imports from $installed, not from the fresh environment $fresh" ;;
esac
KINETOSCOPE_API_INSTALLED=1 "$fresh/bin/python" "$root/tests/api/test_api.py"
log "passed"
