// Where `sextant window` (stream mode) puts the windows as they fire: straight to the output in
// firing order (`--order fire`), or in canonical order (spec, key, start) through sorted runs
// that spill to temporary files once they outgrow a memory budget and are merged at the end, so
// that memory is bounded by the budget rather than by the number of windows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "api/stream_window.hpp"
#include "apps/window_stream_runs.hpp"
#include "core/stopwatch.hpp"
#include "core/task_team.hpp"

namespace sextant::cli {

enum class ResultOrder : std::uint8_t { key, fire };

// "key|fire"; throws Error naming `parameter`.
ResultOrder parse_result_order(const char* parameter, const std::string& text);

// The CSV rows of `r` (header first when `header`): key,start,end,value (spec first with several
// specs; the value's timestamp last for argmin, argmax, first, last), formatted on the workers of
// `team` (the same bytes for any team).
void write_results(std::ostream& out, const window::StreamResults& r, bool with_spec, bool header = true,
                   TeamRef team = {});

class StreamOutput {
 public:
  // `budget`: bytes of results kept in memory in key order before a sorted run spills to a
  // temporary directory (removed by the destructor, whatever happens). Rows are formatted on the
  // workers of `team`.
  StreamOutput(std::ostream& out, window::ValueType type, bool with_spec, ResultOrder order,
               std::size_t budget, PhaseTimes& phases, TeamRef team = {});
  ~StreamOutput();
  StreamOutput(const StreamOutput&) = delete;
  StreamOutput& operator=(const StreamOutput&) = delete;

  // Polls the operator ("aggregate" time) and writes what fired ("write"), or keeps it in the run
  // ("keep"), sorting ("sort") and spilling ("spill") a run that is full.
  void take(window::StreamWindow& op);
  // Writes what is left ("sort", "write"): in key order, the merge of every run.
  void finish();
  std::uint64_t rows() const noexcept { return rows_; }
  std::size_t spilled_runs() const noexcept { return runs_.size(); }

 private:
  void spill();
  void merge();  // the spilled runs, if any, and the last one, kept in memory

  std::ostream& out_;
  bool with_spec_;
  ResultOrder order_;
  std::size_t run_rows_;  // rows per sorted run
  PhaseTimes& phases_;
  TeamRef team_;
  window::StreamResults pending_;  // fire order: the last poll; key order: the run so far
  window::StreamResults fresh_;    // key order: the last poll
  RowSorter sorter_;               // key order: sorts the runs
  bool header_written_ = false;
  bool times_ = false;  // the spilled rows carry the value's timestamp
  std::uint64_t rows_ = 0;
  std::filesystem::path spill_dir_;
  std::vector<std::filesystem::path> runs_;
};

}  // namespace sextant::cli
