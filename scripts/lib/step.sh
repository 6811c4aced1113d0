# Sourced by the GPU-machine scripts. step <name> <command...>: runs the command with its output in
# $logs/<name>.log, prints the log's last lines (40 on failure) and sets status=1 when it fails.
step() {
  local name=$1
  shift
  echo "== $name"
  if "$@" >"$logs/$name.log" 2>&1; then
    tail -n 3 "$logs/$name.log"
  else
    status=1
    echo "FAILED: $name (last lines of $logs/$name.log)"
    tail -n 40 "$logs/$name.log"
  fi
}
