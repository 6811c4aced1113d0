#include "bench/skycube/dominance_bench.hpp"

using sextant::bench::dominance_block;
BENCHMARK_TEMPLATE(dominance_block, sextant::cpu::ScalarIsa)->Arg(4)->Arg(8)->Arg(12)->Arg(16);

BENCHMARK_MAIN();
