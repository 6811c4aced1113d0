#include "core/host_memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <string>

namespace sextant {

namespace detail {

std::optional<std::uint64_t> parse_memory_limit(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::uint64_t bytes = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), bytes);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return bytes;
}

}  // namespace detail

namespace {

// `bytes`, capped by the limit in `file` of the control group `path` ("/a/b") under `root` and of
// each of its ancestors ("/a", the root).
std::uint64_t lowest_limit(const std::filesystem::path& root, std::string path, const char* file,
                           std::uint64_t bytes) {
  while (!path.empty() && path.back() == '/') path.pop_back();
  for (;;) {
    std::ifstream in(root / std::filesystem::path(path).relative_path() / file);
    std::string text;
    if (in && std::getline(in, text))
      if (const auto limit = detail::parse_memory_limit(text)) bytes = std::min(bytes, *limit);
    if (path.empty()) return bytes;
    path.resize(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/'));
  }
}

}  // namespace

std::uint64_t usable_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  std::uint64_t bytes = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
  // /proc/self/cgroup: "0::/path" (v2), "N:memory:/path" (v1, with its other controllers).
  std::ifstream groups("/proc/self/cgroup");
  for (std::string line; std::getline(groups, line);) {
    const std::size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1),
                      path = line.substr(second + 1);
    if (controllers.empty())
      bytes = lowest_limit("/sys/fs/cgroup", path, "memory.max", bytes);
    else if (controllers == "memory" || controllers.find("memory,") == 0 ||
             controllers.find(",memory") != std::string::npos)
      bytes = lowest_limit("/sys/fs/cgroup/memory", path, "memory.limit_in_bytes", bytes);
  }
  return bytes;
}

}  // namespace sextant
