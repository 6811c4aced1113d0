#!/usr/bin/env bash
# The Python package's GPU cases on a machine that cannot install from a registry:
#   scripts/python-gpu-test.sh <folder of carried wheels>
# installs the wheels found there (sextant built with CUDA, and python/requirements-test.txt's
# packages: `pip download -r python/requirements-test.txt -d <folder>` on a connected machine,
# `pip wheel . -w <folder>` on one with nvcc) into /tmp/site without a registry, then runs the
# pytest suite from there: the gpu-marked cases (which must not skip: a GPU is expected) and then
# the whole suite. Logs go to $OUT (else /tmp/python-gpu-out). Exit status 0 only if both passed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
wheels=${1:?usage: scripts/python-gpu-test.sh <folder of carried wheels>}
out=${OUT:-/tmp/python-gpu-out}
site=/tmp/site
python=${PYTHON:-python3}
mkdir -p "$out"
status=0

{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; "$python" --version; } \
  >"$out/machine.txt" 2>&1
echo "== install the carried wheels into $site"
if ! "$python" -m pip install --no-index --find-links "$wheels" --target "$site" --upgrade \
  sextant numpy pytest hypothesis paretoset moocore pandas >"$out/install.log" 2>&1; then
  tail -n 30 "$out/install.log"
  echo "FAILED: install (see install.log)"
  exit 1
fi
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
