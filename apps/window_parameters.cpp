#include "apps/window_parameters.hpp"

#include <algorithm>
#include <charconv>

#include "core/error.hpp"
#include "templates/window/stream_spec.hpp"

namespace sextant::cli {

std::vector<std::int64_t> parse_window_parameters(const std::string& option, const std::string& text) {
  using window::WindowSpec;
  const std::string valid =
      "integers in 1 .. " + std::to_string(WindowSpec::max_parameter) + ", comma-separated";
  std::vector<std::int64_t> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data() + pos, text.data() + comma, v);
    if (ec != std::errc{} || end != text.data() + comma || v < 1 || v > WindowSpec::max_parameter)
      throw Error::argument(option, text, valid, "out of range");
    out.push_back(v);
    pos = comma + 1;
  }
  return out;
}

}  // namespace sextant::cli
