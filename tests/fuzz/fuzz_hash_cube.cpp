// Fuzz target: the HashCube file loader (templates/skycube/hash_cube.hpp); a cube that loads
// must answer every query it claims to hold and save back to the same bytes.
#include <sstream>

#include "fuzz_support.hpp"
#include "templates/skycube/hash_cube.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sextant;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  fuzz::expect_only_sextant_errors([&] {
    std::istringstream in(bytes, std::ios::binary);
    const skycube::HashCube cube = skycube::HashCube::load(in, "fuzz.cube");
    const Mask all = (Mask{1} << cube.dims()) - 1;
    for (Mask m = 1; m <= all && m < 4096; ++m)
      if (cube.computed(m)) (void)cube.skyline(m);
    std::ostringstream out(std::ios::binary);
    cube.save(out);
    if (out.str() != bytes) std::abort();  // load accepts exactly what save writes
  });
  return 0;
}
