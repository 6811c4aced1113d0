// What every subcommand does with its results: write them to a file all or nothing, or to
// stdout for "-", and summarise its phases on stderr.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

#include "core/stopwatch.hpp"
#include "cpu/omp_team.hpp"

namespace sextant::cli {

// Calls write(stream) on `path` ("-": stdout) under the output-file contract of
// core/atomic_file.hpp: nothing is left behind when it throws. Throws Error::io when the write fails.
void write_output(const std::string& path, const std::function<void(std::ostream&)>& write,
                  bool binary = false);

// The workers that format a text output: `threads` of them, 0 meaning every core.
cpu::OmpTeam output_team(int threads);

// What the command is doing, for the out-of-memory message ("while computing the skycube");
// write_output enters "writing the output" itself. `what` must outlive the command.
void enter_phase(const char* what) noexcept;
const char* current_phase() noexcept;  // "" before the first phase

// "load 0.120 s, aggregate 1.003 s, write 0.010 s"
std::string format_phases(const PhaseTimes& phases);

}  // namespace sextant::cli
