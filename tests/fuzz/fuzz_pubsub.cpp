// Fuzz target: the pub/sub text and binary formats (datagen/pubsub_text.hpp, pubsub_binary.hpp).
// The first byte picks filters or events, text or binary, memory or a file. A file that parses
// must write back to text that parses to the same filters or events; parsed filters must load into
// the matching tables and match a few fixed events as the brute-force oracle does.
#include <cstdlib>
#include <sstream>
#include <vector>

#include "cpu/matching/match_cpu.hpp"
#include "datagen/pubsub_binary.hpp"
#include "datagen/pubsub_text.hpp"
#include "fuzz_support.hpp"
#include "templates/matching/match_template.hpp"
#include "tests/support/brute_force_matcher.hpp"

namespace {

using namespace sextant;
using namespace sextant::matching;

void check_filters(const FilterSet& filters) {
  std::ostringstream text;
  datagen::write_filters_text(text, filters);
  if (datagen::parse_filters(text.str(), "again").filters() != filters.filters()) std::abort();
  MatchTables tables(2);
  tables.add(filters);
  for (std::uint32_t s = 0; s < 2; ++s) tables.shard(s).check_invariants();
  const std::vector<Filter> model = filters.filters();
  std::vector<Event> events(3);
  for (const Filter& f : model) {  // events built from the filters' own names and values
    for (const Constraint& c : f.constraints) {
      if (c.op == Op::exists) continue;
      events[0].attributes.push_back({c.name, c.value});
      if (c.value.type() == ValueType::int64)
        events[1].attributes.push_back({c.name, Value::integer(c.value.as_int() + 1)});
    }
    if (events[0].attributes.size() > 64) break;
  }
  const EventBatch batch{std::span<const Event>(events)};
  PreparedEvents prepared;
  prepared.prepare(batch, 0, batch.size(), tables);
  MatchScratch scratch;
  MatchResults out;
  MatchCpuOn<cpu::ScalarIsa> hook;
  match_inline(hook, tables, prepared, true, scratch, out);
  for (std::size_t e = 0; e < events.size(); ++e) {
    const testing::OracleMatch want = testing::oracle_match(model, events[e]);
    const auto got = out.filters_of(e);
    if (std::vector<FilterId>(got.begin(), got.end()) != want.filters) std::abort();
  }
}

void check_events(const EventBatch& events) {
  std::ostringstream text;
  datagen::write_events_text(text, events);
  const EventBatch again = datagen::parse_events(text.str(), "again");
  if (again.size() != events.size() || again.ids != events.ids) std::abort();
  for (std::size_t i = 0; i < events.size(); ++i)
    if (!(again.event(i) == events.event(i))) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Bytes bytes(data, size);
  const std::uint8_t mode = bytes.take();
  const std::string_view payload = bytes.rest();
  const bool filters = (mode & 1) == 0;
  if ((mode & 2) == 0) {
    fuzz::expect_only_sextant_errors([&] {
      if (filters)
        check_filters(datagen::parse_filters(payload, "fuzz.txt"));
      else
        check_events(datagen::parse_events(payload, "fuzz.txt"));
    });
  } else {
    const fuzz::BytesAsFile file(payload, (mode & 4) != 0);
    fuzz::expect_only_sextant_errors([&] {
      if (filters)
        check_filters(datagen::read_filters(file.path()));
      else
        check_events(datagen::read_events(file.path()));
    });
  }
  return 0;
}
