#!/usr/bin/env bash
# The installed-package step of scripts/test.sh, runnable alone against any build:
#   scripts/package-test.sh <sextant build dir> <scratch dir>
# Installs the build into <scratch>/install, then builds tests/package (a consumer that includes
# <sextant/...> only, and every umbrella header alone) against it and checks that nothing of PAPI
# reaches the consumer: no PAPI in its configuration or link line, no libpapi among its libraries.
# It then runs where PAPI cannot be loaded (SEXTANT_PAPI_LIBRARY names a library that does not
# exist, as on the GPU machines), so its skycube with counters must succeed with "counters
# unavailable". That consumer does not ask for Sextant::testing: its configuration must not look
# for GoogleTest, and it must configure where none can be found (CMAKE_DISABLE_FIND_PACKAGE_GTest).
# Then tests/package/testing, a consumer of Sextant::testing (its own cuboid hook, STSC built from
# it and its own stream aggregate, checked by the conformance bodies, which must also reject a
# wrong hook and a wrong aggregate), is built and run; asking for the component where GoogleTest
# cannot be found must fail, saying so.
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
if grep -i gtest "$scratch/consumer/CMakeCache.txt" "$scratch/consumer/build.ninja"; then
  echo "GoogleTest was looked for or linked by a consumer that does not ask for Sextant::testing (above)" >&2
  exit 1
fi
quietly cmake -S "$root/tests/package" -B "$scratch/consumer-no-gtest" -G Ninja -DCMAKE_PREFIX_PATH="$scratch/install" \
  -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON
if ldd "$scratch/consumer/sextant_consumer" | grep libpapi; then
  echo "sextant_consumer links libpapi" >&2
  exit 1
fi
status=0
out=$(SEXTANT_PAPI_LIBRARY=/nonexistent/libpapi.so "$scratch/consumer/sextant_consumer") || status=$?
echo "$out"
[ "$status" = 0 ] || { echo "sextant_consumer failed (exit $status)" >&2; exit 1; }
grep -q "^counters unavailable: " <<<"$out" || { echo "expected 'counters unavailable' without PAPI" >&2; exit 1; }
echo "installed package: builds and runs without PAPI, configures without GoogleTest"

# Sextant::testing: a user's hooks and aggregate checked by the conformance bodies.
quietly cmake -S "$root/tests/package/testing" -B "$scratch/testing-consumer" -G Ninja -DCMAKE_PREFIX_PATH="$scratch/install"
quietly cmake --build "$scratch/testing-consumer" -j "$jobs"
quietly "$scratch/testing-consumer/sextant_testing_consumer"
grep "^\[  PASSED  \]" "$scratch/step.log"
if cmake -S "$root/tests/package/testing" -B "$scratch/testing-no-gtest" -G Ninja -DCMAKE_PREFIX_PATH="$scratch/install" \
     -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON >"$scratch/step.log" 2>&1; then
  echo "find_package(Sextant COMPONENTS testing) succeeded where GoogleTest cannot be found" >&2
  exit 1
fi
grep -q "Sextant::testing needs GoogleTest" "$scratch/step.log" || {
  cat "$scratch/step.log" >&2
  echo "expected find_package(Sextant COMPONENTS testing) to say it needs GoogleTest" >&2
  exit 1
}
echo "installed package: Sextant::testing checks a user's hooks and aggregate; without GoogleTest it says so"
