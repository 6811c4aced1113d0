// Hardware counters (PAPI) per CPU worker, by event name ("PAPI_TOT_INS,PAPI_L2_TCM"). Counters are
// an observation, never a requirement: without papi.h in the build, where libpapi cannot be loaded
// (it is loaded at run time, never linked: papi_library.hpp), or when PAPI initialises without the
// events (virtual machines, CI, most containers), a CounterSet stays inactive and says why, and the
// run goes on. Everything PAPI-specific is in counters.cpp.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sextant::scheduler {

// Splits "PAPI_TOT_INS,PAPI_L2_TCM"; throws Error naming `parameter` on an empty name. Whether the
// events exist is only known when counters open (and is never an error).
std::vector<std::string> parse_counter_events(const char* parameter, std::string_view text);

struct CounterStatus {
  std::vector<std::string> events;  // requested; empty = counters not requested
  bool available = false;           // every CPU worker counts every event
  std::string reason;               // why not, when requested but unavailable
};

namespace detail {

// Why an event could not be added, telling apart an event this machine does not know from a
// machine that exposes no hardware counters at all (a virtual machine without a virtual PMU, a
// container, kernel.perf_event_paranoid), with what to do. `counters`: the CPU component's
// hardware counters (-1: unknown); `disabled`: PAPI's reason for disabling that component ("" if
// not); `paranoid`: /proc/sys/kernel/perf_event_paranoid (INT_MIN: unreadable); `hypervisor`:
// the CPU flags say a hypervisor runs this machine; `papi_error`: PAPI's text for the failure.
std::string event_failure_message(const std::string& event, bool unknown_event, const std::string& papi_error,
                                  int counters, const std::string& disabled, int paranoid, bool hypervisor);

// One thread's event set; opened, restarted, read and closed on that thread. Never throws.
class CounterSet {
 public:
  CounterSet() = default;
  CounterSet(CounterSet&& other) noexcept;
  CounterSet& operator=(CounterSet&& other) noexcept;
  CounterSet(const CounterSet&) = delete;
  CounterSet& operator=(const CounterSet&) = delete;
  ~CounterSet();

  // Opens and starts the events on the calling thread (call it after pinning the thread).
  static CounterSet open(std::span<const std::string> events) noexcept;

  bool active() const noexcept { return event_set_ >= 0; }
  const std::string& reason() const noexcept { return reason_; }

  void restart() noexcept;                 // zero the counts
  std::vector<long long> read() noexcept;  // counts since restart, one per event; empty if inactive

 private:
  void close() noexcept;

  int event_set_ = -1;
  std::size_t events_ = 0;
  std::string reason_ = "not requested";
};

}  // namespace detail
}  // namespace sextant::scheduler
