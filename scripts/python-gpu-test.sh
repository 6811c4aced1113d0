#!/usr/bin/env bash
# The Python package's GPU cases on a machine that cannot install from a registry:
#   scripts/python-gpu-test.sh <folder of carried wheels>
# The folder holds python/requirements-test.txt's packages as wheels for the GPU machine's Python
# (`pip download --only-binary=:all: --python-version 3.12 --platform manylinux_2_28_x86_64 -d <folder>
# ...` on a connected machine; paretoset, moocore and pandas may be left out: their cases skip) and,
# optionally, a sextant wheel built with CUDA. Without one, the script builds it here from the
# checkout with the folder's nanobind and scikit-build-core (no build isolation, no registry).
# Everything is installed into /tmp/site, then the pytest suite runs from there: the gpu-marked cases
# (which must not skip: a GPU is expected) and then the whole suite. Logs go to $OUT (else
# /tmp/python-gpu-out). Exit status 0 only if both passed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
wheels=${1:?usage: scripts/python-gpu-test.sh <folder of carried wheels>}
out=${OUT:-/tmp/python-gpu-out}
site=/tmp/site
python=${PYTHON:-python3}
pip=("$python" -m pip install --no-index --find-links "$wheels" --upgrade)
mkdir -p "$out"
status=0

{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; "$python" --version; } \
  >"$out/machine.txt" 2>&1
if ! ls "$wheels"/sextant-*.whl >/dev/null 2>&1; then
  echo "== build the sextant wheel (CUDA: $(command -v nvcc || echo none))"
  built=/tmp/sextant-wheel
  if ! { "${pip[@]}" --target /tmp/build-site nanobind scikit-build-core &&
    PYTHONPATH=/tmp/build-site CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "$python" -m pip wheel "$root" \
      --no-build-isolation --no-deps --no-index -w "$built" -C build-dir=/tmp/sextant-wheel-build; } \
    >"$out/wheel.log" 2>&1; then
    tail -n 30 "$out/wheel.log"
    echo "FAILED: building the wheel (see wheel.log)"
    exit 1
  fi
  pip=("$python" -m pip install --no-index --find-links "$built" --find-links "$wheels" --upgrade)
fi
echo "== install the carried wheels into $site"
if ! "${pip[@]}" --target "$site" sextant numpy pytest hypothesis >"$out/install.log" 2>&1; then
  tail -n 30 "$out/install.log"
  echo "FAILED: install (see install.log)"
  exit 1
fi
for optional in paretoset moocore pandas; do  # their cases skip without them
  "${pip[@]}" --target "$site" "$optional" >>"$out/install.log" 2>&1 || echo "(no $optional wheel: its cases skip)"
done
export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH}
"$python" -c "import sextant; print('sextant', sextant.__version__, 'has_cuda', sextant.has_cuda)" | tee "$out/version.txt"

cd /tmp  # import the installed package, not the checkout's sources
echo "== gpu cases"
"$python" -m pytest -p no:cacheprovider -m gpu -rs -v "$root/python/tests" >"$out/pytest-gpu.log" 2>&1 || status=1
tail -n 5 "$out/pytest-gpu.log"
if grep -q "SKIPPED" "$out/pytest-gpu.log"; then
  echo "FAILED: gpu cases skipped on a GPU machine (see pytest-gpu.log)"
  status=1
fi
echo "== whole suite"
"$python" -m pytest -p no:cacheprovider -q "$root/python/tests" >"$out/pytest-all.log" 2>&1 || status=1
tail -n 3 "$out/pytest-all.log"
exit "$status"
