// A stand-in for libpapi that counters tests load through SEXTANT_PAPI_LIBRARY: every function
// scheduler/counters.cpp resolves, with fixed answers, so that the run-time loading is tested on
// machines without a PMU or without PAPI. Each event counts 4242. SEXTANT_FAKE_PAPI_VERSION (a
// number, e.g. 0x06000000 for 6.0) makes PAPI_library_init answer another version;
// SEXTANT_FAKE_PAPI_COUNTERS=0 plays a machine without hardware counters (no event can be added).
#include <cstdlib>
#include <cstring>

namespace {
thread_local int events = 0;  // in the calling thread's one event set
}

extern "C" {

__attribute__((visibility("default"))) int PAPI_library_init(int version) {
  if (const char* forced = std::getenv("SEXTANT_FAKE_PAPI_VERSION"))
    return static_cast<int>(std::strtol(forced, nullptr, 0));
  return version;
}
__attribute__((visibility("default"))) int PAPI_thread_init(unsigned long (*)()) {
  return 0;
}
__attribute__((visibility("default"))) char* PAPI_strerror(int) {
  static char text[] = "fake PAPI error";
  return text;
}
__attribute__((visibility("default"))) int PAPI_register_thread() {
  return 0;
}
__attribute__((visibility("default"))) int PAPI_unregister_thread() {
  return 0;
}
__attribute__((visibility("default"))) int PAPI_create_eventset(int* set) {
  *set = 7;
  events = 0;
  return 0;
}
__attribute__((visibility("default"))) int PAPI_cleanup_eventset(int) {
  events = 0;
  return 0;
}
__attribute__((visibility("default"))) int PAPI_destroy_eventset(int* set) {
  *set = -1;
  return 0;
}
__attribute__((visibility("default"))) int PAPI_num_cmp_hwctrs(int) {
  const char* forced = std::getenv("SEXTANT_FAKE_PAPI_COUNTERS");
  return forced != nullptr ? static_cast<int>(std::strtol(forced, nullptr, 0)) : 4;
}
__attribute__((visibility("default"))) int PAPI_add_named_event(int, const char* name) {
  if (std::strcmp(name, "FAKE_MISSING") == 0 || PAPI_num_cmp_hwctrs(0) == 0) return -7;  // PAPI_ENOEVNT
  ++events;
  return 0;
}
__attribute__((visibility("default"))) int PAPI_start(int) {
  return 0;
}
__attribute__((visibility("default"))) int PAPI_reset(int) {
  return 0;
}
__attribute__((visibility("default"))) int PAPI_read(int, long long* values) {
  for (int i = 0; i < events; ++i) values[i] = 4242;
  return 0;
}
__attribute__((visibility("default"))) int PAPI_stop(int, long long* values) {
  return PAPI_read(0, values);
}

}  // extern "C"
