#!/usr/bin/env bash
# The Python package's step of scripts/test.sh, runnable alone:
#   scripts/python-test.sh <scratch dir> [<Sextant install prefix>] [<sextant command>]
# Makes (or reuses) a virtual environment in <scratch>/venv with python/requirements-test.txt from
# PyPI, runs `pip install .` (the build folder <scratch>/build is kept, so a rerun recompiles only
# what changed) and the pytest suite of python/tests. With an install prefix, only the extension is
# compiled, against that install (SEXTANT_PYTHON_PREBUILT); without one, pip builds the library too.
# The sextant command, when given, is what the suite compares results with (SEXTANT_CLI).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=${1:?usage: scripts/python-test.sh <scratch dir> [<install prefix>] [<sextant command>]}
prefix=${2:-}
cli=${3:-}
python=${PYTHON:-python3}
mkdir -p "$scratch"
start=$(date +%s)

if [ ! -x "$scratch/venv/bin/python" ]; then
  "$python" -m venv "$scratch/venv"
fi
venv=$scratch/venv/bin
"$venv/python" -m pip install --quiet --disable-pip-version-check -r "$root/python/requirements-test.txt"
echo "python: test requirements installed ($(( $(date +%s) - start )) s)"

args=(--no-build-isolation --quiet --disable-pip-version-check)
if [ -n "$prefix" ] && "$venv/python" -m pip install "${args[@]}" "-Cbuild-dir=$scratch/build-prebuilt" \
  "-Ccmake.define.SEXTANT_PYTHON_PREBUILT=$prefix" "$root" >"$scratch/pip-prebuilt.log" 2>&1 &&
  (cd "$scratch" && "$venv/python" -c "import sextant" >>"$scratch/pip-prebuilt.log" 2>&1); then
  echo "python: extension built against $prefix ($(( $(date +%s) - start )) s)"
else
  # No install, or building or importing against it failed (the log says why): the whole
  # library, CPU only.
  [ -n "$prefix" ] && { tail -n 20 "$scratch/pip-prebuilt.log"; echo "python: building the library too (CPU only)"; }
  "$venv/python" -m pip install "${args[@]}" "-Cbuild-dir=$scratch/build" \
    -Ccmake.define.SEXTANT_ENABLE_CUDA=OFF "$root"
  echo "python: package built and installed ($(( $(date +%s) - start )) s)"
fi

# From outside the checkout, so that `import sextant` is the installed package.
cd "$scratch"
status=0
SEXTANT_CLI=$cli "$venv/python" -m pytest -q -p no:cacheprovider "$root/python/tests" || status=$?
echo "python: pytest done ($(( $(date +%s) - start )) s in all)"
exit "$status"
