#include "cpu/skycube/small_skyline.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <utility>

namespace sextant::cpu {

std::vector<PointId> small_skyline(const Dataset& data, Mask subspace) {
  std::array<int, max_columns> columns{};
  int count = 0;
  for (Mask rest = subspace; rest != 0; rest &= rest - 1) columns[count++] = std::countr_zero(rest);
  const auto dominates = [&](PointId q, PointId p) {
    const float* a = data.row(q);
    const float* b = data.row(p);
    bool better = false;
    for (int c = 0; c < count; ++c) {
      if (a[columns[c]] > b[columns[c]]) return false;
      better = better || a[columns[c]] < b[columns[c]];
    }
    return better;
  };

  const auto n = static_cast<PointId>(data.size());
  std::vector<std::pair<float, PointId>> order(n);
  for (PointId i = 0; i < n; ++i) {
    float sum = 0.0f;  // the same column order for every point
    for (int c = 0; c < count; ++c) sum += data(i, columns[c]);
    order[i] = {sum + 0.0f, i};
  }
  std::sort(order.begin(), order.end());
  std::vector<PointId> skyline;  // in sum order
  for (std::size_t g = 0; g < order.size();) {
    std::size_t end = g + 1;
    while (end < order.size() && order[end].first == order[g].first) ++end;
    const std::size_t confirmed = skyline.size();  // skyline points of smaller sums
    for (std::size_t i = g; i < end; ++i) {
      const PointId p = order[i].second;
      bool dominated = false;
      for (std::size_t k = 0; k < confirmed && !dominated; ++k) dominated = dominates(skyline[k], p);
      for (std::size_t j = g; j < end && !dominated; ++j) dominated = j != i && dominates(order[j].second, p);
      if (!dominated) skyline.push_back(p);
    }
    g = end;
  }
  std::sort(skyline.begin(), skyline.end());
  return skyline;
}

}  // namespace sextant::cpu
