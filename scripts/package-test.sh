#!/usr/bin/env bash
# The installed-package step of scripts/test.sh, runnable alone against any build:
#   scripts/package-test.sh <sextant build dir> <scratch dir>
# Installs the build into <scratch>/install, then builds tests/package (a consumer that includes
# <sextant/...> only, and every umbrella header alone) against it and checks that nothing of PAPI
# reaches the consumer: no PAPI in its configuration or link line, no libpapi among its libraries.
# It then runs where PAPI cannot be loaded (SEXTANT_PAPI_LIBRARY names a library that does not
# exist, as on the GPU machines), so its skycube with counters must succeed with "counters
# unavailable".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: scripts/package-test.sh <sextant build dir> <scratch dir>}
scratch=${2:?usage: scripts/package-test.sh <sextant build dir> <scratch dir>}
jobs=$(nproc)

rm -rf "$scratch"
mkdir -p "$scratch"
# Quiet unless something fails.
quietly() {
  "$@" >"$scratch/step.log" 2>&1 || { cat "$scratch/step.log" >&2; echo "failed: $*" >&2; exit 1; }
}
quietly cmake --install "$build" --prefix "$scratch/install"
quietly cmake -S "$root/tests/package" -B "$scratch/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$scratch/install"
quietly cmake --build "$scratch/consumer" -j "$jobs"
if grep -i papi "$scratch/consumer/CMakeCache.txt" "$scratch/consumer/build.ninja"; then
  echo "PAPI reached the consumer's configuration or link line (above)" >&2
  exit 1
fi
if ldd "$scratch/consumer/sextant_consumer" | grep libpapi; then
  echo "sextant_consumer links libpapi" >&2
  exit 1
fi
status=0
out=$(SEXTANT_PAPI_LIBRARY=/nonexistent/libpapi.so "$scratch/consumer/sextant_consumer") || status=$?
echo "$out"
[ "$status" = 0 ] || { echo "sextant_consumer failed (exit $status)" >&2; exit 1; }
grep -q "^counters unavailable: " <<<"$out" || { echo "expected 'counters unavailable' without PAPI" >&2; exit 1; }
echo "installed package: builds and runs without PAPI"
