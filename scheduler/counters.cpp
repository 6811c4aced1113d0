#include "scheduler/counters.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <string>
#include <type_traits>
#include <utility>

#include "core/config.hpp"
#include "core/error.hpp"

#if SEXTANT_HAS_PAPI
#include <dlfcn.h>
#include <papi.h>  // types and constants only: libpapi is loaded at run time (papi_library.hpp)
#include <pthread.h>

#include <mutex>

#include "scheduler/papi_library.hpp"
#endif

namespace sextant::scheduler {

std::vector<std::string> parse_counter_events(const char* parameter, std::string_view text) {
  std::vector<std::string> events;
  if (text.empty()) return events;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string_view name = text.substr(pos, comma - pos);
    if (name.empty() || name.find_first_of(" \t") != std::string_view::npos)
      throw Error::argument(parameter, text,
                            "comma-separated PAPI event names, e.g. PAPI_TOT_INS,PAPI_L2_TCM",
                            "empty or malformed event name");
    events.emplace_back(name);
    pos = comma + 1;
  }
  return events;
}

namespace detail {

std::string event_failure_message(const std::string& event, bool unknown_event, const std::string& papi_error,
                                  int counters, const std::string& disabled, int paranoid, bool hypervisor) {
  if (counters == 0 || !disabled.empty()) {
    std::string why;
    if (!disabled.empty()) why = "PAPI's CPU component is disabled: " + disabled;
    if (paranoid > 2) {
      why += (why.empty() ? "" : "; ") + std::string("kernel.perf_event_paranoid is ") +
             std::to_string(paranoid) + " (counters need 2 or less, or CAP_PERFMON)";
    } else if (hypervisor) {
      why += (why.empty() ? "" : "; ") +
             std::string(
                 "this is a virtual machine (the CPU flags say 'hypervisor') whose hypervisor passes no "
                 "performance counters through");
    }
    if (why.empty()) why = "PAPI finds no hardware counters";
    return "this machine exposes no hardware counters (" + event + " could not be added: " + why +
           "); run on bare metal or a VM with a virtual PMU, with kernel.perf_event_paranoid <= 2 "
           "(sysctl -w kernel.perf_event_paranoid=2) or CAP_PERFMON; the run goes on without counters";
  }
  if (unknown_event)
    return event + ": unknown event on this machine: " + papi_error +
           " (papi_avail and papi_native_avail list the events it has)";
  return event + ": " + papi_error;
}

CounterSet::CounterSet(CounterSet&& other) noexcept
    : event_set_(std::exchange(other.event_set_, -1)),
      events_(other.events_),
      reason_(std::move(other.reason_)) {}

CounterSet& CounterSet::operator=(CounterSet&& other) noexcept {
  if (this != &other) {
    close();
    event_set_ = std::exchange(other.event_set_, -1);
    events_ = other.events_;
    reason_ = std::move(other.reason_);
  }
  return *this;
}

CounterSet::~CounterSet() {
  close();
}

#if SEXTANT_HAS_PAPI

namespace {

constexpr std::size_t max_events = 32;  // far more than any CPU has counters

unsigned long thread_id() {
  return static_cast<unsigned long>(pthread_self());
}

// The PAPI functions counters use, resolved from the library loaded at run time; their types come
// from this build's papi.h.
struct Papi {
  decltype(&PAPI_library_init) library_init = nullptr;
  decltype(&PAPI_thread_init) thread_init = nullptr;
  decltype(&PAPI_strerror) error_text = nullptr;
  decltype(&PAPI_register_thread) register_thread = nullptr;
  decltype(&PAPI_unregister_thread) unregister_thread = nullptr;
  decltype(&PAPI_create_eventset) create_eventset = nullptr;
  decltype(&PAPI_cleanup_eventset) cleanup_eventset = nullptr;
  decltype(&PAPI_destroy_eventset) destroy_eventset = nullptr;
  decltype(&PAPI_add_named_event) add_named_event = nullptr;
  decltype(&PAPI_start) start = nullptr;
  decltype(&PAPI_reset) reset = nullptr;
  decltype(&PAPI_read) read = nullptr;
  decltype(&PAPI_stop) stop = nullptr;
  // Optional (resolved when present): what the CPU component has, to tell a machine without
  // counters from an unknown event.
  decltype(&PAPI_num_cmp_hwctrs) num_cmp_hwctrs = nullptr;
  decltype(&PAPI_get_component_info) get_component_info = nullptr;

  std::string describe(int rc) const {
    const char* text = error_text(rc);
    return text != nullptr ? text : "PAPI error " + std::to_string(rc);
  }
};

std::string version_text(int version) {
  return std::to_string(PAPI_VERSION_MAJOR(version)) + "." + std::to_string(PAPI_VERSION_MINOR(version));
}

struct PapiState {
  Papi papi;
  std::string error;  // empty: papi is usable
};

// Loads the library, resolves every function and initialises PAPI and its thread support; returns
// why not, or nothing. An unusable library stays loaded (PAPI may have started its own state).
std::string load(Papi& p) {
  const std::vector<std::string> candidates =
      papi_library_candidates(PAPI_VERSION_MAJOR(PAPI_VER_CURRENT), PAPI_VERSION_MINOR(PAPI_VER_CURRENT));
  const LoadedLibrary lib = load_first_library(candidates);
  if (lib.handle == nullptr) {
    const char* forced = std::getenv(papi_library_variable);
    const bool named = forced != nullptr && *forced != '\0';
    return "cannot load PAPI: " + lib.error +
           (named ? "" : std::string(" (set ") + papi_library_variable + " to its path)");
  }
  bool missing = false;
  std::string missing_name;
  const auto resolve = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib.handle, name));
    if (fn == nullptr && !missing) {
      missing = true;
      missing_name = name;
    }
  };
  resolve(p.library_init, "PAPI_library_init");
  resolve(p.thread_init, "PAPI_thread_init");
  resolve(p.error_text, "PAPI_strerror");
  resolve(p.register_thread, "PAPI_register_thread");
  resolve(p.unregister_thread, "PAPI_unregister_thread");
  resolve(p.create_eventset, "PAPI_create_eventset");
  resolve(p.cleanup_eventset, "PAPI_cleanup_eventset");
  resolve(p.destroy_eventset, "PAPI_destroy_eventset");
  resolve(p.add_named_event, "PAPI_add_named_event");
  resolve(p.start, "PAPI_start");
  resolve(p.reset, "PAPI_reset");
  resolve(p.read, "PAPI_read");
  resolve(p.stop, "PAPI_stop");
  if (missing) return lib.name + " is not a usable PAPI library: it has no " + missing_name;
  p.num_cmp_hwctrs = reinterpret_cast<decltype(p.num_cmp_hwctrs)>(::dlsym(lib.handle, "PAPI_num_cmp_hwctrs"));
  p.get_component_info =
      reinterpret_cast<decltype(p.get_component_info)>(::dlsym(lib.handle, "PAPI_get_component_info"));
  // PAPI_VER_CURRENT is this build's papi.h; the library accepts only its own version.
  const int version = p.library_init(PAPI_VER_CURRENT);
  if (version != PAPI_VER_CURRENT) {
    const std::string built = "Sextant was built with papi.h " + version_text(PAPI_VER_CURRENT);
    if (version > 0)
      return "PAPI library version mismatch: " + lib.name + " is " + version_text(version) + ", " + built;
    return "PAPI_library_init (" + lib.name + "): " + p.describe(version) + " (" + built +
           "; a library of another version rejects it)";
  }
  if (const int rc = p.thread_init(&thread_id); rc != PAPI_OK) return "PAPI_thread_init: " + p.describe(rc);
  return {};
}

// Once per process; the result, or why it failed, is remembered.
const PapiState& papi_state() {
  static std::once_flag once;
  static PapiState state;
  std::call_once(once, [] {
    try {
      state.error = load(state.papi);
    } catch (...) {  // std::string allocation
      state.error = "out of memory";
    }
  });
  return state;
}

int perf_event_paranoid() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int value = INT_MIN;
  return in >> value ? value : INT_MIN;
}

bool under_hypervisor() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("flags", 0) == 0) return line.find(" hypervisor") != std::string::npos;
  return false;
}

std::string event_failure(const Papi& papi, const std::string& event, int rc) {
  const int counters = papi.num_cmp_hwctrs != nullptr ? papi.num_cmp_hwctrs(0) : -1;
  std::string disabled;
  if (papi.get_component_info != nullptr)
    if (const PAPI_component_info_t* info = papi.get_component_info(0);
        info != nullptr && info->disabled != 0)
      disabled = info->disabled_reason;
  return event_failure_message(event, rc == PAPI_ENOEVNT, papi.describe(rc), counters, disabled,
                               perf_event_paranoid(), under_hypervisor());
}

// For event sets already open: PAPI loaded.
const Papi& loaded() {
  return papi_state().papi;
}

}  // namespace

CounterSet CounterSet::open(std::span<const std::string> events) noexcept {
  CounterSet out;
  if (events.empty()) return out;
  try {
    const PapiState& state = papi_state();
    if (!state.error.empty()) {
      out.reason_ = state.error;
      return out;
    }
    const Papi& papi = state.papi;
    if (events.size() > max_events) {
      out.reason_ = "more than " + std::to_string(max_events) + " events requested";
      return out;
    }
    papi.register_thread();
    int set = PAPI_NULL;
    if (const int rc = papi.create_eventset(&set); rc != PAPI_OK) {
      papi.unregister_thread();
      out.reason_ = std::string("PAPI_create_eventset: ") + papi.describe(rc);
      return out;
    }
    const auto fail = [&](const std::string& why) {
      papi.cleanup_eventset(set);
      papi.destroy_eventset(&set);
      papi.unregister_thread();
      out.reason_ = why;
      return std::move(out);
    };
    for (const std::string& name : events)
      if (const int rc = papi.add_named_event(set, name.c_str()); rc != PAPI_OK)
        return fail(event_failure(papi, name, rc));
    if (const int rc = papi.start(set); rc != PAPI_OK)
      return fail(std::string("PAPI_start: ") + papi.describe(rc));
    out.event_set_ = set;
    out.events_ = events.size();
    out.reason_.clear();
  } catch (...) {  // std::string allocation; counters must never fail a run
    out.reason_ = "out of memory";
  }
  return out;
}

void CounterSet::restart() noexcept {
  if (active()) loaded().reset(event_set_);
}

std::vector<long long> CounterSet::read() noexcept {
  if (!active()) return {};
  try {
    std::vector<long long> values(events_, 0);
    if (loaded().read(event_set_, values.data()) != PAPI_OK) return {};
    return values;
  } catch (...) {
    return {};
  }
}

void CounterSet::close() noexcept {
  if (!active()) return;
  const Papi& papi = loaded();
  long long discard[max_events] = {};
  papi.stop(event_set_, discard);
  papi.cleanup_eventset(event_set_);
  papi.destroy_eventset(&event_set_);
  event_set_ = -1;
  papi.unregister_thread();
}

#else  // !SEXTANT_HAS_PAPI

CounterSet CounterSet::open(std::span<const std::string> events) noexcept {
  CounterSet out;
  if (!events.empty()) out.reason_ = "this build of Sextant has no PAPI";
  return out;
}

void CounterSet::restart() noexcept {}
std::vector<long long> CounterSet::read() noexcept {
  return {};
}
void CounterSet::close() noexcept {}

#endif

}  // namespace detail
}  // namespace sextant::scheduler
