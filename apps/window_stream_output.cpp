#include "apps/window_stream_output.hpp"

#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <ostream>
#include <queue>
#include <tuple>
#include <variant>

#include "core/error.hpp"
#include "core/number_format.hpp"
#include "core/ordered_text.hpp"

namespace sextant::cli {

namespace {

// One window in a spilled run: the value's bytes as they are (its type is the operator's).
struct SpillRow {
  std::uint32_t spec, key;
  std::int64_t start, end, time;
  std::uint64_t bits;
};

// Rows in memory: what a row of StreamResults, its share of the sort's permutation and the CSV
// buffer take, rounded up.
constexpr std::size_t bytes_per_row = 96;
constexpr std::size_t rows_per_block = 8192;  // read from each run at a time while merging

// A run being merged: the next rows of one spilled file.
class RunReader {
 public:
  explicit RunReader(const std::filesystem::path& path) : in_(path, std::ios::binary), path_(path) {
    if (!in_) throw Error::io(path.string(), "cannot reopen this sorted run");
    refill();
  }
  bool done() const noexcept { return at_ == rows_.size(); }
  const SpillRow& row() const noexcept { return rows_[at_]; }
  void next() {
    if (++at_ == rows_.size()) refill();
  }

 private:
  void refill() {
    rows_.resize(rows_per_block);
    in_.read(reinterpret_cast<char*>(rows_.data()),
             static_cast<std::streamsize>(rows_.size() * sizeof(SpillRow)));
    const auto got = static_cast<std::size_t>(in_.gcount());
    if (got % sizeof(SpillRow) != 0 || (!in_ && !in_.eof()))
      throw Error::io(path_.string(), "cannot read this sorted run back");
    rows_.resize(got / sizeof(SpillRow));
    at_ = 0;
  }
  std::ifstream in_;
  std::filesystem::path path_;
  std::vector<SpillRow> rows_;
  std::size_t at_ = 0;
};

}  // namespace

ResultOrder parse_result_order(const char* parameter, const std::string& text) {
  if (text == "key") return ResultOrder::key;
  if (text == "fire") return ResultOrder::fire;
  throw Error::argument(parameter, text, "key or fire", "unknown result order");
}

void write_results(std::ostream& out, const window::StreamResults& r, bool with_spec, bool header,
                   TeamRef team) {
  const bool times = !r.times.empty();  // argmin, argmax, first, last: the value's timestamp
  if (header) {
    out << (with_spec ? "spec,key,start,end,value" : "key,start,end,value");
    out << (times ? ",timestamp\n" : "\n");
  }
  // Rows go to a stack buffer a few dozen at a time, then to the block's text in one append; the
  // value column's type is visited once per block, not per row.
  constexpr std::size_t rows_per_chunk = 64;
  constexpr std::size_t row_chars = 6 * (number_chars + 1);  // six numbers and their separators
  const auto format = [&](std::size_t begin, std::size_t end, std::string& buf) {
    std::visit(
        [&](const auto& values) {
          char chunk[rows_per_chunk * row_chars];
          for (std::size_t i = begin; i < end;) {
            char* p = chunk;
            for (const std::size_t stop = std::min(end, i + rows_per_chunk); i < stop; ++i) {
              if (with_spec) {
                p = write_number(p, r.specs[i]);
                *p++ = ',';
              }
              p = write_number(p, r.keys[i]);
              *p++ = ',';
              p = write_number(p, r.starts[i]);
              *p++ = ',';
              p = write_number(p, r.ends[i]);
              *p++ = ',';
              p = write_number(p, values[i]);
              if (times) {
                *p++ = ',';
                p = write_number(p, r.times[i]);
              }
              *p++ = '\n';
            }
            buf.append(chunk, p);
          }
        },
        r.values);
  };
  write_in_order(out, r.size(), text_block_rows, team, format, "writing the window results");
}

StreamOutput::StreamOutput(std::ostream& out, window::ValueType type, bool with_spec, ResultOrder order,
                           std::size_t budget, PhaseTimes& phases, TeamRef team)
    : out_(out),
      with_spec_(with_spec),
      order_(order),
      run_rows_(std::max<std::size_t>(1, budget / bytes_per_row)),
      phases_(phases),
      team_(team) {
  pending_.values = window::make_column(type, 0);
}

StreamOutput::~StreamOutput() {
  if (spill_dir_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(spill_dir_, ignored);
}

void StreamOutput::take(window::StreamWindow& op) {
  Stopwatch sw;
  const std::size_t polled = op.poll(pending_);
  phases_.add("aggregate", sw.seconds());
  if (polled == 0) return;
  sw.restart();
  rows_ += polled;
  if (order_ == ResultOrder::fire) {
    write_results(out_, pending_, with_spec_, !header_written_, team_);
    header_written_ = true;
    pending_.clear();
  } else if (pending_.size() >= run_rows_) {
    spill();
  }
  phases_.add("write", sw.seconds());
}

void StreamOutput::spill() {
  if (spill_dir_.empty()) {
    std::error_code error;
    const std::filesystem::path base = std::filesystem::temp_directory_path(error);
    const char* tmpdir = std::getenv("TMPDIR");
    if (error)
      throw Error::io(tmpdir != nullptr ? tmpdir : "the temporary directory",
                      "cannot hold the sorted runs (" + error.message() +
                          "): set TMPDIR to an existing directory, or raise --results-budget");
    std::string pattern = (base / "sextant-window-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr)
      throw Error::io(base.string(),
                      "cannot create a directory for the sorted runs here: set TMPDIR to a "
                      "writable directory, or raise --results-budget");
    spill_dir_ = pattern;
  }
  pending_.sort(team_.workers());
  const auto path = spill_dir_ / ("run-" + std::to_string(runs_.size()));
  std::ofstream file(path, std::ios::binary);
  std::vector<SpillRow> rows(std::min(pending_.size(), rows_per_block));
  const bool times = !pending_.times.empty();
  std::visit(
      [&](const auto& values) {
        for (std::size_t first = 0; first < pending_.size(); first += rows.size()) {
          const std::size_t n = std::min(rows.size(), pending_.size() - first);
          for (std::size_t j = 0; j < n; ++j) {
            const std::size_t i = first + j;
            SpillRow& r = rows[j];
            r = {pending_.specs[i],
                 pending_.keys[i],
                 pending_.starts[i],
                 pending_.ends[i],
                 times ? pending_.times[i] : 0,
                 0};
            std::memcpy(&r.bits, &values[i], sizeof values[i]);
          }
          file.write(reinterpret_cast<const char*>(rows.data()),
                     static_cast<std::streamsize>(n * sizeof(SpillRow)));
        }
      },
      pending_.values);
  file.close();
  if (!file) throw Error::io(path.string(), "cannot write this sorted run (disk full? set TMPDIR)");
  runs_.push_back(path);
  times_ = times;
  pending_.clear();
}

void StreamOutput::finish() {
  Stopwatch sw;
  if (order_ == ResultOrder::fire) {
    if (!header_written_) write_results(out_, pending_, with_spec_, true, team_);
  } else if (runs_.empty()) {
    pending_.sort(team_.workers());
    write_results(out_, pending_, with_spec_, true, team_);
  } else {
    if (pending_.size() > 0) spill();
    merge();
  }
  pending_.clear();
  phases_.add("write", sw.seconds());
}

void StreamOutput::merge() {
  std::vector<RunReader> readers;
  readers.reserve(runs_.size());
  for (const auto& path : runs_) readers.emplace_back(path);
  using Head = std::tuple<std::uint32_t, std::uint32_t, std::int64_t, std::size_t>;  // spec, key, start, run
  const auto head = [&](std::size_t run) {
    const SpillRow& r = readers[run].row();
    return Head{r.spec, r.key, r.start, run};
  };
  std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads;
  for (std::size_t r = 0; r < readers.size(); ++r)
    if (!readers[r].done()) heads.push(head(r));
  window::StreamResults chunk;
  chunk.values = window::make_column(window::type_of(pending_.values), 0);
  // Rows written at a time: enough blocks of text for every worker, within the budget.
  const std::size_t flush_rows = std::min(
      run_rows_,
      std::max<std::size_t>(rows_per_block, 8 * text_block_rows * static_cast<std::size_t>(team_.workers())));
  bool header = true;
  const auto flush = [&] {
    write_results(out_, chunk, with_spec_, header, team_);
    header = false;
    chunk.clear();
  };
  std::visit(
      [&](auto& values) {
        using T = typename std::decay_t<decltype(values)>::value_type;
        while (!heads.empty()) {
          const std::size_t run = std::get<3>(heads.top());
          RunReader& reader = readers[run];
          heads.pop();
          // The run's rows go out while they stay ahead of every other run's next row (runs
          // spilled one after another hold a key's windows in long stretches).
          do {
            const SpillRow& r = reader.row();
            chunk.specs.push_back(r.spec);
            chunk.keys.push_back(r.key);
            chunk.starts.push_back(r.start);
            chunk.ends.push_back(r.end);
            if (times_) chunk.times.push_back(r.time);
            T v;
            std::memcpy(&v, &r.bits, sizeof v);
            values.push_back(v);
            reader.next();
            if (chunk.size() >= flush_rows) flush();
          } while (!reader.done() && (heads.empty() || head(run) < heads.top()));
          if (!reader.done()) heads.push(head(run));
        }
      },
      chunk.values);
  flush();
}

}  // namespace sextant::cli
