#include "apps/window_stream_output.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <ostream>
#include <queue>
#include <span>
#include <tuple>
#include <variant>

#include "core/error.hpp"
#include "core/number_format.hpp"
#include "core/ordered_text.hpp"

namespace sextant::cli {

namespace {

// Bytes of memory per window of a run: its row in the run's columns (32 or 40) and in the sorted
// rows (40), rounded up.
constexpr std::size_t bytes_per_row = 96;
constexpr std::size_t rows_per_block = 8192;  // the fewest windows the merge plans at a time

// One CSV line: spec (with several specs), key, start, end, value, and the value's timestamp (for
// argmin, argmax, first, last).
template <class T>
char* write_row(char* p, bool with_spec, bool times, std::uint32_t spec, window::StreamKey key,
                std::int64_t start, std::int64_t end, T value, std::int64_t time) {
  if (with_spec) {
    p = write_number(p, spec);
    *p++ = ',';
  }
  p = write_number(p, key);
  *p++ = ',';
  p = write_number(p, start);
  *p++ = ',';
  p = write_number(p, end);
  *p++ = ',';
  p = write_number(p, value);
  if (times) {
    *p++ = ',';
    p = write_number(p, time);
  }
  *p++ = '\n';
  return p;
}

// Lines go to a stack buffer a few dozen at a time, then to the block's text in one append.
constexpr std::size_t rows_per_chunk = 64;
constexpr std::size_t row_chars = 6 * (number_chars + 1);  // six numbers and their separators

// The byte-for-byte header of write_results.
const char* header_line(bool with_spec, bool times) {
  if (with_spec) return times ? "spec,key,start,end,value,timestamp\n" : "spec,key,start,end,value\n";
  return times ? "key,start,end,value,timestamp\n" : "key,start,end,value\n";
}

// f(to, from) for every column of two results of one value type.
template <class F>
void for_each_column(window::StreamResults& to, const window::StreamResults& from, const F& f) {
  f(to.specs, from.specs);
  f(to.keys, from.keys);
  f(to.starts, from.starts);
  f(to.ends, from.ends);
  f(to.times, from.times);
  std::visit([&](auto& v) { f(v, std::get<std::decay_t<decltype(v)>>(from.values)); }, to.values);
}

// A sorted run's rows: a spilled file mapped back, or the last run, kept in memory.
using RunRows = std::span<const SpillRow>;

// A spilled run mapped read-only (its pages come from the page cache, which the system may
// reclaim: they are not part of the budget). The file is this process's own, in its private
// temporary directory.
class MappedRun {
 public:
  explicit MappedRun(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error::io(path.string(), "cannot reopen this sorted run");
    struct stat info {};
    if (::fstat(fd, &info) == 0 && info.st_size > 0 && info.st_size % sizeof(SpillRow) == 0) {
      bytes_ = static_cast<std::size_t>(info.st_size);
      base_ = ::mmap(nullptr, bytes_, PROT_READ, MAP_PRIVATE, fd, 0);
    }
    ::close(fd);
    if (base_ == MAP_FAILED || base_ == nullptr)
      throw Error::io(path.string(), "cannot map this sorted run back");
    ::madvise(base_, bytes_, MADV_SEQUENTIAL);
  }
  ~MappedRun() {
    if (base_ != nullptr && base_ != MAP_FAILED) ::munmap(base_, bytes_);
  }
  MappedRun(const MappedRun&) = delete;
  MappedRun& operator=(const MappedRun&) = delete;
  RunRows rows() const noexcept { return {static_cast<const SpillRow*>(base_), bytes_ / sizeof(SpillRow)}; }

 private:
  void* base_ = nullptr;
  std::size_t bytes_ = 0;
};

// A sorted run as the merge reads it: a spilled run's rows, mapped back, or the last run's.
struct SortedRun {
  RunRows rows;

  std::size_t size() const noexcept { return rows.size(); }
  // (spec, key, start) of row i, and the run's index `run` to break ties.
  std::tuple<std::uint32_t, std::uint32_t, std::int64_t, std::size_t> head(std::size_t i,
                                                                           std::size_t run) const {
    return {rows[i].spec, rows[i].key, rows[i].start, run};
  }
  // Appends rows [begin, end) as CSV lines, a few dozen at a time through a stack buffer.
  template <class T>
  void write(std::size_t begin, std::size_t end, bool with_spec, bool times, std::string& buf) const {
    char chunk[rows_per_chunk * row_chars];
    for (std::size_t i = begin; i < end;) {
      char* p = chunk;
      for (const std::size_t stop = std::min(end, i + rows_per_chunk); i < stop; ++i) {
        const SpillRow& r = rows[i];
        T value;
        std::memcpy(&value, &r.bits, sizeof value);
        p = write_row(p, with_spec, times, r.spec, r.key, r.start, r.end, value, r.time);
      }
      buf.append(chunk, p);
    }
  }
};

// Writes the rows of sorted runs in canonical order. The merge takes a run's rows for as long as
// they stay ahead of every other run's next row (runs spilled one after another hold a key's
// windows in long stretches, which a galloping search finds without visiting each row), and
// plans up to `chunk_rows` rows at a time as stretches of the runs; the workers of `team` then
// format the chunk.
template <class T>
void merge_runs(std::ostream& out, const std::vector<SortedRun>& runs, bool with_spec, bool times,
                std::size_t chunk_rows, TeamRef team) {
  using Head = std::tuple<std::uint32_t, std::uint32_t, std::int64_t, std::size_t>;  // spec, key, start, run
  std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads;
  std::vector<std::size_t> next(runs.size(), 0);  // each run's first row not planned yet
  for (std::size_t run = 0; run < runs.size(); ++run)
    if (runs[run].size() > 0) heads.push(runs[run].head(0, run));
  struct Stretch {
    const SortedRun* run;
    std::size_t row;    // the run's row that comes first
    std::size_t first;  // its place in the chunk; the stretch ends where the next one begins
  };
  std::vector<Stretch> plan;
  std::size_t planned = 0;  // rows in the chunk
  const auto format = [&](std::size_t begin, std::size_t end, std::string& buf) {
    auto at = std::upper_bound(plan.begin(), plan.end(), begin,
                               [](std::size_t row, const Stretch& s) { return row < s.first; }) -
              1;
    for (std::size_t i = begin; i < end; ++at) {
      const std::size_t stop = at + 1 == plan.end() ? end : std::min(end, (at + 1)->first);
      at->run->template write<T>(at->row + (i - at->first), at->row + (stop - at->first), with_spec, times,
                                 buf);
      i = stop;
    }
  };
  const auto flush = [&] {
    write_in_order(out, planned, text_block_rows, team, format, "writing the window results");
    plan.clear();
    planned = 0;
  };
  while (!heads.empty()) {
    const std::size_t r = std::get<3>(heads.top());
    heads.pop();
    const SortedRun& run = runs[r];
    const std::size_t from = next[r], size = run.size();
    std::size_t to = size;
    if (!heads.empty()) {
      const Head bound = heads.top();
      const auto ahead = [&](std::size_t i) { return run.head(i, r) < bound; };
      // Windows of doubling width past `from` while their last row is ahead, then a binary search
      // in the first window that is not.
      std::size_t lo = from + 1, width = 1;
      while (lo < size && ahead(std::min(size, lo + width) - 1)) {
        lo = std::min(size, lo + width);
        width *= 2;
      }
      for (std::size_t hi = std::min(size, lo + width); lo < hi;) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (ahead(mid))
          lo = mid + 1;
        else
          hi = mid;
      }
      to = lo;
    }
    to = std::min(to, from + (chunk_rows - planned));
    plan.push_back({&run, from, planned});
    planned += to - from;
    next[r] = to;
    if (to < size) heads.push(run.head(to, r));
    if (planned == chunk_rows) flush();
  }
  flush();
}

}  // namespace

ResultOrder parse_result_order(const char* parameter, const std::string& text) {
  if (text == "key") return ResultOrder::key;
  if (text == "fire") return ResultOrder::fire;
  throw Error::argument(parameter, text, "key or fire", "unknown result order");
}

void write_results(std::ostream& out, const window::StreamResults& r, bool with_spec, bool header,
                   TeamRef team) {
  const bool times = !r.times.empty();
  if (header) out << header_line(with_spec, times);
  // The value column's type is visited once per block, not per row.
  const auto format = [&](std::size_t begin, std::size_t end, std::string& buf) {
    std::visit(
        [&](const auto& values) {
          char chunk[rows_per_chunk * row_chars];
          for (std::size_t i = begin; i < end;) {
            char* p = chunk;
            for (const std::size_t stop = std::min(end, i + rows_per_chunk); i < stop; ++i)
              p = write_row(p, with_spec, times, r.specs[i], r.keys[i], r.starts[i], r.ends[i], values[i],
                            times ? r.times[i] : 0);
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
  fresh_.values = window::make_column(type, 0);
}

StreamOutput::~StreamOutput() {
  if (spill_dir_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(spill_dir_, ignored);
}

void StreamOutput::take(window::StreamWindow& op) {
  Stopwatch sw;
  // Into empty columns: they swap with the operator's, no copy.
  const std::size_t polled = op.poll(order_ == ResultOrder::fire ? pending_ : fresh_);
  phases_.add("aggregate", sw.seconds());
  if (polled == 0) return;
  sw.restart();
  rows_ += polled;
  if (order_ == ResultOrder::fire) {
    write_results(out_, pending_, with_spec_, !header_written_, team_);
    header_written_ = true;
    pending_.clear();
    phases_.add("write", sw.seconds());
    return;
  }
  // A run fills columns reserved once for the budget, spilling before it would outgrow them: no
  // regrowth, no fresh pages after the first run.
  if (pending_.size() > 0 && pending_.size() + fresh_.size() > run_rows_) {
    spill();
    sw.restart();
  }
  const std::size_t old = pending_.size(), rows = fresh_.size();
  for_each_column(pending_, fresh_, [&](auto& to, const auto& from) {
    if (from.empty()) return;  // no timestamps
    if (old == 0) to.reserve(std::max(run_rows_, rows));
    to.resize(old + rows);
  });
  // Copied on the workers, which also take the first touches of the reserved pages.
  const std::size_t parts = std::clamp<std::size_t>(rows >> 15, 1, static_cast<std::size_t>(team_.workers()));
  team_.run_tasks(parts, [&](std::size_t p, int) {
    const std::size_t begin = rows * p / parts, end = rows * (p + 1) / parts;
    for_each_column(pending_, fresh_, [&](auto& to, const auto& from) {
      if (!from.empty()) std::copy(from.begin() + begin, from.begin() + end, to.begin() + old + begin);
    });
  });
  fresh_.clear();
  phases_.add("keep", sw.seconds());
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
  Stopwatch sw;
  sort_rows(pending_, sorter_, team_);
  phases_.add("sort", sw.seconds());
  sw.restart();
  const auto path = spill_dir_ / ("run-" + std::to_string(runs_.size()));
  std::ofstream file(path, std::ios::binary);
  if (!file) throw Error::io(path.string(), "cannot create this sorted run (set TMPDIR)");
  const auto& rows = sorter_.rows;
  file.write(reinterpret_cast<const char*>(rows.data()),
             static_cast<std::streamsize>(rows.size() * sizeof(SpillRow)));
  const bool times = !pending_.times.empty();
  file.close();
  if (!file) throw Error::io(path.string(), "cannot write this sorted run (disk full? set TMPDIR)");
  runs_.push_back(path);
  times_ = times;
  pending_.clear();
  phases_.add("spill", sw.seconds());
}

void StreamOutput::finish() {
  if (order_ == ResultOrder::key) return merge();
  Stopwatch sw;
  if (!header_written_) write_results(out_, pending_, with_spec_, true, team_);
  pending_.clear();
  phases_.add("write", sw.seconds());
}

void StreamOutput::merge() {
  // The last run stays in memory (with no spilled runs, it is the whole output).
  Stopwatch sw;
  sort_rows(pending_, sorter_, team_);
  times_ = times_ || !pending_.times.empty();
  const window::ValueType type = window::type_of(pending_.values);
  pending_ = {};  // its memory back
  phases_.add("sort", sw.seconds());
  sw.restart();
  std::vector<std::unique_ptr<MappedRun>> files;
  std::vector<SortedRun> runs;
  for (const auto& path : runs_) {
    files.push_back(std::make_unique<MappedRun>(path));
    runs.push_back({files.back()->rows()});
  }
  if (!sorter_.rows.empty()) runs.push_back({sorter_.rows});
  out_ << header_line(with_spec_, times_);
  // Rows planned at a time: enough blocks of text for every worker, within the budget.
  const std::size_t chunk_rows = std::min(
      run_rows_,
      std::max<std::size_t>(rows_per_block, 8 * text_block_rows * static_cast<std::size_t>(team_.workers())));
  window::visit_value_type(
      type, [&](auto v) { merge_runs<decltype(v)>(out_, runs, with_spec_, times_, chunk_rows, team_); });
  pending_.values = window::make_column(type, 0);
  phases_.add("write", sw.seconds());
}

}  // namespace sextant::cli
