#include "scheduler/papi_library.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace sextant::scheduler::detail {

std::vector<std::string> papi_library_candidates(int major, int minor) {
  if (const char* forced = std::getenv(papi_library_variable); forced != nullptr && *forced != '\0')
    return {forced};
  const std::string base = "libpapi.so";
  std::vector<std::string> names = {base};
  const auto add = [&](const std::string& name) {
    for (const std::string& n : names)
      if (n == name) return;
    names.push_back(name);
  };
  // Distributions name the soname major.minor (libpapi.so.7.0, libpapi.so.6.0) or major alone.
  add(base + "." + std::to_string(major) + "." + std::to_string(minor));
  add(base + "." + std::to_string(major));
  for (int m = 9; m >= 0; --m) add(base + "." + std::to_string(major) + "." + std::to_string(m));
  if (major > 0) {
    add(base + "." + std::to_string(major - 1));
    for (int m = 9; m >= 0; --m) add(base + "." + std::to_string(major - 1) + "." + std::to_string(m));
  }
  return names;
}

LoadedLibrary load_first_library(std::span<const std::string> candidates) {
  LoadedLibrary out;
  std::string first_error;
  for (const std::string& name : candidates) {
    if (void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL); handle != nullptr) {
      out.handle = handle;
      out.name = name;
      return out;
    }
    const char* message = ::dlerror();
    if (first_error.empty()) first_error = message != nullptr ? message : name + ": cannot be loaded";
  }
  if (candidates.empty()) {
    out.error = "no library to load";
    return out;
  }
  out.error = first_error;
  // The others by name, a few at most: the list is long where no PAPI is installed.
  constexpr std::size_t named = 3;
  if (candidates.size() > 1) {
    out.error += "; also tried ";
    for (std::size_t i = 1; i < candidates.size() && i <= named; ++i)
      out.error += (i == 1 ? "" : ", ") + candidates[i];
    if (candidates.size() > named + 1)
      out.error += " and " + std::to_string(candidates.size() - named - 1) + " other names";
  }
  return out;
}

}  // namespace sextant::scheduler::detail
