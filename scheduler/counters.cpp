#include "scheduler/counters.hpp"

#include <algorithm>
#include <utility>

#include "core/config.hpp"
#include "core/error.hpp"

#if SEXTANT_HAS_PAPI
#include <papi.h>
#include <pthread.h>

#include <mutex>
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

// PAPI's library and thread support are initialised once per process; the result (or why it
// failed) is remembered.
const std::string& papi_init_error() {
  static std::once_flag once;
  static std::string error;
  std::call_once(once, [] {
    const int version = PAPI_library_init(PAPI_VER_CURRENT);
    if (version != PAPI_VER_CURRENT) {
      error = version > 0 ? "PAPI library version mismatch"
                          : std::string("PAPI_library_init: ") + PAPI_strerror(version);
      return;
    }
    if (const int rc = PAPI_thread_init(&thread_id); rc != PAPI_OK)
      error = std::string("PAPI_thread_init: ") + PAPI_strerror(rc);
  });
  return error;
}

}  // namespace

CounterSet CounterSet::open(std::span<const std::string> events) noexcept {
  CounterSet out;
  if (events.empty()) return out;
  try {
    if (const std::string& error = papi_init_error(); !error.empty()) {
      out.reason_ = error;
      return out;
    }
    if (events.size() > max_events) {
      out.reason_ = "more than " + std::to_string(max_events) + " events requested";
      return out;
    }
    PAPI_register_thread();
    int set = PAPI_NULL;
    if (const int rc = PAPI_create_eventset(&set); rc != PAPI_OK) {
      PAPI_unregister_thread();
      out.reason_ = std::string("PAPI_create_eventset: ") + PAPI_strerror(rc);
      return out;
    }
    const auto fail = [&](const std::string& why) {
      PAPI_cleanup_eventset(set);
      PAPI_destroy_eventset(&set);
      PAPI_unregister_thread();
      out.reason_ = why;
      return std::move(out);
    };
    for (const std::string& name : events)
      if (const int rc = PAPI_add_named_event(set, name.c_str()); rc != PAPI_OK)
        return fail(name + ": " + PAPI_strerror(rc));
    if (const int rc = PAPI_start(set); rc != PAPI_OK)
      return fail(std::string("PAPI_start: ") + PAPI_strerror(rc));
    out.event_set_ = set;
    out.events_ = events.size();
    out.reason_.clear();
  } catch (...) {  // std::string allocation; counters must never fail a run
    out.reason_ = "out of memory";
  }
  return out;
}

void CounterSet::restart() noexcept {
  if (active()) PAPI_reset(event_set_);
}

std::vector<long long> CounterSet::read() noexcept {
  if (!active()) return {};
  try {
    std::vector<long long> values(events_, 0);
    if (PAPI_read(event_set_, values.data()) != PAPI_OK) return {};
    return values;
  } catch (...) {
    return {};
  }
}

void CounterSet::close() noexcept {
  if (!active()) return;
  long long discard[max_events] = {};
  PAPI_stop(event_set_, discard);
  PAPI_cleanup_eventset(event_set_);
  PAPI_destroy_eventset(&event_set_);
  event_set_ = -1;
  PAPI_unregister_thread();
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
