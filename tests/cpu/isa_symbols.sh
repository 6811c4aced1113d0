#!/usr/bin/env bash
# A translation unit compiled for AVX2 or AVX-512 must not emit weak (inline or template) code
# that other translation units emit too: the linker keeps one copy of such a function for the
# whole program, and if it keeps the AVX-512 one, a CPU without AVX-512 dies of SIGILL in code
# that never asked for it. So every weak code symbol of a *_avx2 / *_avx512 member must carry its
# instruction set in its name (MdmcKernel<Avx512Isa>::..., reduce_avx2<...>).
# Also (with objdump): no instruction on a zmm or mask register outside the *_avx512 members, and
# the members that hold the AVX-512 variants are there at all (a renamed file would otherwise
# leave this check with nothing to look at).
#   isa_symbols.sh <static library>
set -euo pipefail
lib=$1
required_avx512="mdmc_cpu_avx512 cuboid_kernels_avx512 count_window_cpu_avx512"

bad=$(nm -C -A "$lib" 2>/dev/null | awk '
  { split($1, where, ":"); member = where[2] }
  member ~ /_avx2\.cpp\.o$|_avx512\.cpp\.o$/ && $2 == "W" {
    isa = (member ~ /_avx512\./) ? "avx512" : "avx2"
    line = $0; sub(/^[^ ]* W /, "", line)
    if (tolower(line) !~ isa) print member ": " line
  }')
if [ -n "$bad" ]; then
  echo "weak code symbols without their instruction set in the name (see $0):"
  echo "$bad"
  exit 1
fi

members=$(ar t "$lib")
for m in $required_avx512; do
  if ! grep -qx "$m\.cpp\.o" <<<"$members"; then
    echo "$(basename "$lib") has no member $m.cpp.o: update required_avx512 in $0"
    exit 1
  fi
done

if command -v objdump >/dev/null; then
  leaks=$(objdump -d --no-show-raw-insn "$lib" 2>/dev/null | awk '
    /file format/ { member = $1; sub(/:$/, "", member); next }
    /^[0-9a-f]+ <.*>:$/ { fn = $2; next }
    /%zmm|%k[0-7]/ && member !~ /_avx512\.cpp\.o$/ { n[member " " fn]++ }
    END { for (k in n) print k " (" n[k] " instructions)" }')
  if [ -n "$leaks" ]; then
    echo "AVX-512 instructions outside the *_avx512 translation units (see $0):"
    echo "$leaks"
    exit 1
  fi
fi
echo "isa_symbols: every weak code symbol of the SIMD translation units in $(basename "$lib") names its" \
  "instruction set; AVX-512 code only in the *_avx512 units ($(grep -c '_avx512\.cpp\.o$' <<<"$members") of them)"
