// Finds PAPI's shared library at run time (dlopen), so that nothing links libpapi: the same
// binaries run where PAPI is missing (the GPU machines), and counters then say why. Internal to
// the scheduler (counters.cpp); not installed.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace sextant::scheduler::detail {

// The environment variable that names the one library to load, e.g. /opt/papi/lib/libpapi.so.
inline constexpr const char* papi_library_variable = "SEXTANT_PAPI_LIBRARY";

// Where to look, in order: $SEXTANT_PAPI_LIBRARY alone when set; otherwise libpapi.so (the
// development link), then the sonames of `major`.`minor` (the papi.h of this build), of the other
// minors of `major`, of `major` alone, and of the major before.
std::vector<std::string> papi_library_candidates(int major, int minor);

struct LoadedLibrary {
  void* handle = nullptr;  // dlopen handle, never closed (PAPI keeps threads and state)
  std::string name;        // the candidate that loaded
  std::string error;       // when none did: the first candidate's loader message and the others tried
};

// dlopens the first candidate that loads; never throws on a missing library.
LoadedLibrary load_first_library(std::span<const std::string> candidates);

}  // namespace sextant::scheduler::detail
