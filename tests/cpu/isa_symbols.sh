#!/usr/bin/env bash
# A translation unit compiled for AVX2 or AVX-512 must not emit weak (inline or template) code
# that other translation units emit too: the linker keeps one copy of such a function for the
# whole program, and if it keeps the AVX-512 one, a CPU without AVX-512 dies of SIGILL in code
# that never asked for it. So every weak code symbol of a *_avx2 / *_avx512 member must carry its
# instruction set in its name (MdmcKernel<Avx512Isa>::..., reduce_avx2<...>).
#   isa_symbols.sh <static library>
set -euo pipefail
lib=$1
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
echo "isa_symbols: every weak code symbol of the SIMD translation units in $(basename "$lib") names its instruction set"
