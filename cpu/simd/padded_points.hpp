// A copy of selected points in the layout the SIMD dominance tests want: rows of
// padded_stride(d) floats, 32-byte aligned, padding zero-filled (equal in every row, so it
// never sets a "less" bit and is masked off anyway).
#pragma once

#include <span>

#include "core/aligned_buffer.hpp"
#include "core/dataset.hpp"
#include "cpu/simd/dominance.hpp"

namespace sextant::cpu {

class PaddedPoints {
 public:
  PaddedPoints() = default;
  // Rows in the order of `ids` (row i = point ids[i]).
  PaddedPoints(const Dataset& data, std::span<const PointId> ids)
      : d_(data.dims()), stride_(padded_stride(data.dims())), size_(ids.size()), values_(ids.size() * stride_) {
    for (std::size_t i = 0; i < ids.size(); ++i) {
      float* dst = values_.data() + i * stride_;
      const float* src = data.row(ids[i]);
      for (int j = 0; j < stride_; ++j) dst[j] = j < d_ ? src[j] : 0.0f;
    }
  }

  int dims() const noexcept { return d_; }
  int stride() const noexcept { return stride_; }
  std::size_t size() const noexcept { return size_; }
  const float* row(std::size_t i) const noexcept { return values_.data() + i * static_cast<std::size_t>(stride_); }

 private:
  int d_ = 0;
  int stride_ = 0;
  std::size_t size_ = 0;
  AlignedBuffer<float> values_;
};

}  // namespace sextant::cpu
