// Internal to the Matcher (api/matcher.hpp): the devices a Matcher runs on, with their hooks kept
// across batches. The backends make it (api/backends.hpp: backends::make_match_engine; the CPU's
// in cpu/matching/matching_backend_cpu.cpp, the CPU + GPU one in gpu/matching/matching_backend_gpu.cpp),
// so api/ never names a hook.
#pragma once

#include <cstdint>
#include <memory>
#include <memory_resource>
#include <string>

#include "api/matcher.hpp"
#include "scheduler/statistics.hpp"
#include "templates/matching/match_results.hpp"
#include "templates/matching/prepared_events.hpp"
#include "templates/matching/tables.hpp"

namespace sextant::matching::detail {

class MatchEngine {
 public:
  virtual ~MatchEngine() = default;
  // The shards the tables must have (1, or one per GPU when filters are partitioned).
  virtual std::uint32_t shards() const = 0;
  // Whether the tables must log their changes (some device holds a copy).
  virtual bool copies_tables() const = 0;
  // Whether some GPU matches: a GPU matches a piece faster than one thread prepares the next.
  virtual bool matches_on_gpus() const = 0;
  // Where prepared events live (page-locked host memory when a GPU matches).
  virtual std::pmr::memory_resource* event_memory() const = 0;
  // A batch on every device (throughput mode). The tables are not changed by anyone meanwhile;
  // the engine trims their change logs once every device copy applied them.
  virtual void match(MatchTables& tables, const PreparedEvents& events, bool with_filters,
                     MatchResults& out) = 0;
  // A batch on the calling thread (latency mode).
  virtual void match_here(MatchTables& tables, const PreparedEvents& events, bool with_filters,
                          MatchResults& out) = 0;
  virtual std::string describe() const = 0;
  virtual scheduler::Statistics statistics() const = 0;
};

}  // namespace sextant::matching::detail
