#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (GPU-labelled tests skip without a GPU),
# then builds the CPU code again with AddressSanitizer + UBSan and runs the CPU tests, and
# checks that the installed CMake package works for a consumer, without PAPI (scripts/package-test.sh).
# Then it builds the Python package against that install and runs its pytest suite
# (scripts/python-test.sh; needs python3 with venv and PyPI).
# Without a visible GPU, device code is compiled to PTX only (nothing here could run it; ptxas is
# most of the CUDA build time); SEXTANT_CUDA_ARCHITECTURES overrides either choice.
#   SEXTANT_ENABLE_CUDA=AUTO|ON|OFF (default AUTO)   SEXTANT_SKIP_SANITIZERS=1 to skip that pass
#   SEXTANT_SKIP_PYTHON=1 to skip the Python step
#   SEXTANT_SANITIZE_CXX=clang++ to build the sanitizer pass with clang (with its sanitizer runtimes
#   and OpenMP installed; docs/PERFORMANCE.md, session 38, compares it with g++)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEXTANT_BUILD_DIR:-$root/build}
jobs=$(nproc)
step() { echo "== $* (at $((SECONDS / 60)) min $((SECONDS % 60)) s)"; }

"$root/scripts/setup.sh"

cuda_architectures=${SEXTANT_CUDA_ARCHITECTURES:-}
if [ -z "$cuda_architectures" ] && ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  cuda_architectures=90-virtual
fi
step "build (Release, CUDA=${SEXTANT_ENABLE_CUDA:-AUTO}${cuda_architectures:+, CUDA architectures $cuda_architectures})"
cmake -S "$root" -B "$build/test" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DSEXTANT_ENABLE_CUDA="${SEXTANT_ENABLE_CUDA:-AUTO}" -DCMAKE_INSTALL_PREFIX="$build/test/install" \
  ${cuda_architectures:+-DCMAKE_CUDA_ARCHITECTURES="$cuda_architectures"}
cmake --build "$build/test" -j "$jobs"
step "tests"
# The skycube tests' reference cubes, computed once for this run's test processes and both builds
# (testing/skycube_conformance.hpp, shared_reference_cube).
export SEXTANT_TEST_REFERENCE_DIR=$build/reference-cubes
rm -rf "$SEXTANT_TEST_REFERENCE_DIR" && mkdir -p "$SEXTANT_TEST_REFERENCE_DIR"
ctest --test-dir "$build/test" --output-on-failure -j "$jobs" --timeout 900

step "installed package"
"$root/scripts/package-test.sh" "$build/test" "$build/package"

if [ "${SEXTANT_SKIP_PYTHON:-0}" != 1 ]; then
  # The extension is compiled against the install the package step made (no library is built
  # twice) and compared with this build's sextant command.
  step "Python package (pytest)"
  "$root/scripts/python-test.sh" "$build/python" "$build/package/install" "$build/test/apps/sextant"
fi

if [ "${SEXTANT_SKIP_SANITIZERS:-0}" != 1 ]; then
  step "CPU build and tests under AddressSanitizer + UBSan"
  # -O1 -g1: half the compile time of -O2 -g on the largest units, with line numbers kept in reports
  # (-O0 was tried: docs/PERFORMANCE.md, session 17). This build leaves out what it would not
  # run or what checks no running code: gpu-labelled tests, the umbrella-header and install checks,
  # the objdump check and two forced-ISA reruns (tests/CMakeLists.txt, the CMake files by them).
  # libFuzzer's instrumentation stays off with clang: the smoke runs use the deterministic driver.
  cmake -S "$root" -B "$build/asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSEXTANT_SANITIZE=ON \
    ${SEXTANT_SANITIZE_CXX:+-DCMAKE_CXX_COMPILER="$SEXTANT_SANITIZE_CXX"} -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DSEXTANT_ENABLE_CUDA=OFF -DSEXTANT_BUILD_BENCHMARKS=OFF -DSEXTANT_BUILD_FUZZERS=ON -DSEXTANT_LIBFUZZER=OFF
  cmake --build "$build/asan" -j "$jobs"
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  export LSAN_OPTIONS=suppressions=$root/scripts/lsan-suppressions.txt  # LLVM OpenMP's, with clang
  ctest --test-dir "$build/asan" --output-on-failure -j "$jobs" --timeout 1800 -LE 'gpu|fuzz'
  # Every parser's fuzz target: its seeds and a fixed number of mutants, fixed RNG seed
  # (docs/fuzzing.md); any crash, sanitizer report or unexpected exception fails the step.
  step "fuzz smoke run (ASan + UBSan)"
  ctest --test-dir "$build/asan" --output-on-failure -j "$jobs" --timeout 300 -L fuzz
fi
step "all tests passed"
