// N-Queens as a pipeline of placement stages (paper 003, Section 7.1): a partial board with queens
// on rows 0 .. r-1 goes to the stage of row r, which emits one board per free column (at most n - r:
// its gain limit). The host places the first n - stages rows (as the paper does its first four) so
// that the pipeline's `stages` nodes place the last ones; for n < stages the trailing stages pass
// complete boards through. Boards leave the sink in lexicographic order of their columns when the
// run keeps input order. n <= 20: a board keeps each row's column in 5 bits.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_device.hpp"
#include "templates/pipeline/hooks.hpp"
#include "templates/pipeline/pipeline.hpp"
#include "templates/pipeline/run_spec.hpp"

namespace sextant::pipeline::apps::nqueens {

inline constexpr std::uint32_t max_n = 20;
inline constexpr std::uint32_t stages = 10;

struct Board {
  std::uint64_t lo = 0;    // columns of rows 0 .. 11, 5 bits each
  std::uint64_t hi = 0;    // rows 12 .. 19
  std::uint32_t cols = 0;  // occupied columns
  std::uint32_t ld = 0;    // columns attacked on this row along one diagonal ...
  std::uint32_t rd = 0;    // ... and along the other
  std::uint32_t row = 0;   // rows placed
};

SEXTANT_HD_INLINE std::uint32_t column_of(const Board& b, std::uint32_t row) {
  return row < 12 ? static_cast<std::uint32_t>((b.lo >> (5 * row)) & 31U)
                  : static_cast<std::uint32_t>((b.hi >> (5 * (row - 12))) & 31U);
}

// The board with a queen on its next row at `column` (0 <= column < n, free).
SEXTANT_HD_INLINE Board place(const Board& b, std::uint32_t column, std::uint32_t n) {
  Board out = b;
  const std::uint32_t bit = 1U << column;
  const std::uint32_t mask = (n >= 32 ? 0xffffffffU : (1U << n) - 1U);
  if (b.row < 12)
    out.lo |= std::uint64_t{column} << (5 * b.row);
  else
    out.hi |= std::uint64_t{column} << (5 * (b.row - 12));
  out.cols = b.cols | bit;
  out.ld = ((b.ld | bit) << 1) & mask;
  out.rd = (b.rd | bit) >> 1;
  out.row = b.row + 1;
  return out;
}

SEXTANT_HD_INLINE std::uint32_t free_columns(const Board& b, std::uint32_t n) {
  const std::uint32_t mask = (n >= 32 ? 0xffffffffU : (1U << n) - 1U);
  return ~(b.cols | b.ld | b.rd) & mask;
}

struct Params {
  std::uint32_t n = 8;
  std::uint32_t first_row = 0;  // the row stage 1 places
};

// At namespace scope: clang 14 does not index a template's own static constexpr array in a
// constant expression.
inline constexpr std::string_view place_row_names[] = {"place 1", "place 2", "place 3", "place 4",
                                                       "place 5", "place 6", "place 7", "place 8",
                                                       "place 9", "place 10"};

template <unsigned K>
struct PlaceRow {
  static constexpr std::string_view name = place_row_names[K];
  using Input = Board;
  using Output = Board;
  using Params = nqueens::Params;

  static SEXTANT_HD unsigned gain_limit(const Params& p) {
    const std::uint32_t row = p.first_row + K;
    return row < p.n ? p.n - row : 1U;
  }

  template <class Emit>
  static SEXTANT_HD void run(const Params& p, const Input& b, Emit& out) {
    if (p.first_row + K >= p.n) {  // every row is placed: pass the solution on
      out.push(b);
      return;
    }
    std::uint32_t free = free_columns(b, p.n);
    while (free != 0) {
      const std::uint32_t low = free & (~free + 1U);
      std::uint32_t column = 0;
      while ((low >> column) != 1U) ++column;
      out.push(place(b, column, p.n));
      free ^= low;
    }
  }
};

using NQueensPipeline = Pipeline<PlaceRow<0>, PlaceRow<1>, PlaceRow<2>, PlaceRow<3>, PlaceRow<4>, PlaceRow<5>,
                                 PlaceRow<6>, PlaceRow<7>, PlaceRow<8>, PlaceRow<9>>;
static_assert(NQueensPipeline::size == stages);

// The boards of the first max(0, n - stages) rows (every legal placement, in lexicographic order)
// and the parameters of the stages. Throws Error::argument for n outside 1 .. max_n.
struct Problem {
  std::uint32_t n = 0;
  std::vector<Board> boards;  // the pipeline's sources
  Params params;
};
Problem make_problem(std::uint32_t n);

Instance<NQueensPipeline> make_instance(const Problem& problem);

// "c0 c1 ... c(n-1)": the column of each row.
std::string format_board(const Board& b, std::uint32_t n);

}  // namespace sextant::pipeline::apps::nqueens
