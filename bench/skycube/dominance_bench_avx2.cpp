// Built with AVX2 flags; skips itself at run time on a CPU without AVX2.
#include "bench/skycube/dominance_bench.hpp"

using sextant::bench::dominance_block;
BENCHMARK_TEMPLATE(dominance_block, sextant::cpu::Avx2Isa)->Arg(4)->Arg(8)->Arg(12)->Arg(16);
