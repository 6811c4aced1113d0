// Builds against the installed Sextant and computes a tiny skycube.
#include <cstdio>
#include <vector>

#include "api/skycube.hpp"
#include "core/config.hpp"

int main() {
  const std::vector<float> values = {1, 4, 2, 2, 4, 1, 3, 3};
  const sextant::Dataset data(4, 2, values);
  sextant::skycube::SkycubeOptions options;
  options.kind = sextant::skycube::TemplateKind::reference;
  const auto result = sextant::skycube::compute_skycube(data, options);
  const auto full = result.cube.skyline(3);
  std::printf("installed package sextant %s: skyline of {0,1} has %zu points\n", sextant::build::version, full.size());
  return full == std::vector<sextant::PointId>{0, 1, 2} ? 0 : 1;  // (3,3) is dominated by (2,2)
}
