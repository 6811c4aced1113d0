# Sourced by the GPU-machine scripts that end with a summary (gpu-stream-window.sh, gpu-matching.sh,
# gpu-pipeline.sh). Expects $start (seconds), $root, $build and $out; sets status=0 and summary=().
status=0
summary=()
# note <line>: printed now and again in the summary.
note() {
  summary+=("$1")
  echo "$1"
}
elapsed() { echo $(($(date +%s) - start)); }

# build_or_exit <benchmarks ON|OFF> <targets...>: configures $build (Release, CUDA, tests) and builds
# the targets with every core, logged in $out/build.log; on failure prints its tail and the summary
# and exits 1.
build_or_exit() {
  local benchmarks=$1
  shift
  echo "== configure + build ($(nproc) cores)"
  if cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSEXTANT_ENABLE_CUDA=ON \
    -DSEXTANT_BUILD_TESTS=ON -DSEXTANT_BUILD_BENCHMARKS="$benchmarks" >"$out/build.log" 2>&1 &&
    cmake --build "$build" -j "$(nproc)" --target "$@" >>"$out/build.log" 2>&1; then
    note "build: ok ($(elapsed) s)"
  else
    tail -n 60 "$out/build.log"
    note "build: FAILED (see build.log)"
    printf '%s\n' "${summary[@]}"
    exit 1
  fi
}

# run_step <name> <log> <command...>: timed, output in $out/<log>; a failure sets status=1 and prints
# the log's failure lines.
run_step() {
  local name=$1 log=$2
  shift 2
  local t0=$(date +%s)
  if "$@" >"$out/$log" 2>&1; then
    note "$name: passed ($(($(date +%s) - t0)) s)"
  else
    status=1
    note "$name: FAILED ($(($(date +%s) - t0)) s, see $log)"
    grep -E "Failure|FAILED|rror|Expected|Which is|got |want " "$out/$log" | head -n 40
  fi
}
