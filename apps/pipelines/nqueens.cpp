#include "apps/pipelines/nqueens.hpp"

#include "core/error.hpp"

namespace sextant::pipeline::apps::nqueens {

namespace {

void expand(const Board& b, std::uint32_t rows, std::uint32_t n, std::vector<Board>& out) {
  if (b.row == rows) {
    out.push_back(b);
    return;
  }
  for (std::uint32_t c = 0; c < n; ++c)
    if ((free_columns(b, n) >> c) & 1U) expand(place(b, c, n), rows, n, out);
}

}  // namespace

Problem make_problem(std::uint32_t n) {
  if (n < 1 || n > max_n) throw Error::argument("--n", std::to_string(n), "1 .. " + std::to_string(max_n));
  Problem p;
  p.n = n;
  p.params.n = n;
  p.params.first_row = n > stages ? n - stages : 0;
  expand(Board{}, p.params.first_row, n, p.boards);
  return p;
}

Instance<NQueensPipeline> make_instance(const Problem& problem) {
  Instance<NQueensPipeline> in;
  for_each_node<NQueensPipeline>([&]<std::size_t I>() { in.params.template get<I>() = problem.params; });
  in.sources = {problem.boards.data(), problem.boards.size()};
  return in;
}

std::string format_board(const Board& b, std::uint32_t n) {
  std::string out;
  for (std::uint32_t r = 0; r < n; ++r) {
    if (r > 0) out += ' ';
    out += std::to_string(column_of(b, r));
  }
  return out;
}

}  // namespace sextant::pipeline::apps::nqueens
