// Text made of independent pieces (the rows of a result, the subspaces of a skycube), formatted on
// the workers of a team and written in order: the same bytes whatever the team. Blocks of pieces
// are formatted a round at a time (a few blocks per worker), so the memory held is one round's text.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>

#include "core/task_team.hpp"

namespace sextant {

// Rows of a result per block: enough text (a few hundred KiB) to outweigh a task's hand-over.
inline constexpr std::size_t text_block_rows = 4096;

// format(begin, end, text) appends pieces [begin, end) to `text`. Pieces [0, count) go out in
// blocks of `block`. Throws Error (io) naming `what` when the stream fails.
void write_in_order(std::ostream& out, std::size_t count, std::size_t block, TeamRef team,
                    const std::function<void(std::size_t, std::size_t, std::string&)>& format,
                    const char* what = "writing the output");

}  // namespace sextant
