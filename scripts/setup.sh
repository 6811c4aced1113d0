#!/usr/bin/env bash
# Installs what Sextant needs to build and test, with apt-get, as root. Does nothing when all is
# present. Where nothing can be installed (the lent GPU machines) it only detects, and fails
# only if something required is missing. PAPI is optional.
set -euo pipefail

have_header() {  # have_header <relative header path>
  local dir
  for dir in /usr/include /usr/local/include /usr/include/x86_64-linux-gnu; do
    [ -f "$dir/$1" ] && return 0
  done
  return 1
}

# name | Debian package | check | required?
checks=(
  "cmake|cmake|command -v cmake|yes"
  "C++ compiler|g++|command -v g++|yes"
  "ninja|ninja-build|command -v ninja|yes"
  "pkg-config|pkg-config|command -v pkg-config|no"
  "hwloc|libhwloc-dev|have_header hwloc.h|yes"
  "GoogleTest|libgtest-dev|have_header gtest/gtest.h|yes"
  "GoogleMock|libgmock-dev|have_header gmock/gmock.h|yes"
  "Google Benchmark|libbenchmark-dev|have_header benchmark/benchmark.h|yes"
  "PAPI|libpapi-dev|have_header papi.h|no"
)

missing_packages=()
missing_required=()
for entry in "${checks[@]}"; do
  IFS='|' read -r name package check required <<<"$entry"
  if ! eval "$check" >/dev/null 2>&1; then
    missing_packages+=("$package")
    [ "$required" = yes ] && missing_required+=("$name ($package)")
  fi
done

if [ ${#missing_packages[@]} -eq 0 ]; then
  echo "setup: everything Sextant needs is present"
  exit 0
fi

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && [ "${SEXTANT_NO_INSTALL:-0}" != 1 ]; then
  echo "setup: installing ${missing_packages[*]} with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  if apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing_packages[@]}"; then
    exit 0
  fi
  # One package this mirror lacks must not keep the others out: each alone.
  echo "setup: apt-get could not install them together; trying each"
  for package in "${missing_packages[@]}"; do
    apt-get install -y -qq --no-install-recommends "$package" || echo "setup: could not install $package"
  done
  echo "setup: checking what is usable"
  missing_required=()
  for entry in "${checks[@]}"; do
    IFS='|' read -r name package check required <<<"$entry"
    if [ "$required" = yes ] && ! eval "$check" >/dev/null 2>&1; then missing_required+=("$name ($package)"); fi
  done
fi

if [ ${#missing_required[@]} -ne 0 ]; then
  echo "setup: missing and not installable here: ${missing_required[*]}" >&2
  exit 1
fi
echo "setup: optional packages missing (${missing_packages[*]}); building without them"
