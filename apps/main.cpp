// sextant: the command-line front end. `sextant <command> --help` describes each command.
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "apps/commands.hpp"
#include "apps/output.hpp"
#include "core/atomic_file.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/out_of_memory.hpp"

namespace {

constexpr const char* usage =
    "usage: sextant <command> [options]\n"
    "\n"
    "commands:\n"
    "  generate   write a benchmark dataset (independent, correlated, anticorrelated, tie-heavy)\n"
    "  skycube    compute the skycube of a dataset (every subspace skyline)\n"
    "  query      print one subspace's skyline from a saved skycube\n"
    "  window     sliding-window aggregates: time or count windows over an out-of-order keyed\n"
    "             stream, or count windows over a column in memory (--inplace); CPU or GPU\n"
    "  generate-column  write a binary column file of random values (input of 'window --inplace')\n"
    "  generate-stream  write an out-of-order keyed stream as CSV key,ts,value,wm (input of 'window')\n"
    "  match      content-based publish/subscribe matching of events against subscriptions\n"
    "  generate-pubsub  write a pub/sub workload: subscriptions and events (input of 'match')\n"
    "  pipeline   irregular streaming pipelines (run, profile, plan): BLAST-like, N-Queens, Taxi, synthetic\n"
    "  info       what this build contains and which devices it sees\n"
    "  skyline    compute one subspace's skyline (no skycube)\n"
    "\n"
    "'sextant <command> --help' lists a command's options.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (std::strcmp(argv[1], "--version") == 0) {
    std::printf("sextant %s\n", sextant::build::version);
    return 0;
  }
  const std::string_view command = argv[1];
  sextant::install_output_cleanup();
  try {
    if (command == "generate") return sextant::cli::generate_command(argc, argv);
    if (command == "skycube") return sextant::cli::skycube_command(argc, argv);
    if (command == "query") return sextant::cli::query_command(argc, argv);
    if (command == "info") return sextant::cli::info_command(argc, argv);
    if (command == "window") return sextant::cli::window_command(argc, argv);
    if (command == "generate-column") return sextant::cli::generate_column_command(argc, argv);
    if (command == "generate-stream") return sextant::cli::generate_stream_command(argc, argv);
    if (command == "match") return sextant::cli::match_command(argc, argv);
    if (command == "generate-pubsub") return sextant::cli::generate_pubsub_command(argc, argv);
    if (command == "skyline") return sextant::cli::skyline_command(argc, argv);
    if (command == "pipeline") return sextant::cli::pipeline_command(argc, argv);
    std::fprintf(stderr, "sextant: unknown command '%s'\n\n%s", argv[1], usage);
    return 2;
  } catch (const sextant::Error& e) {
    std::fprintf(stderr, "sextant %s: error: %s\n", argv[1], e.what());
    return sextant::exit_code(e.kind());
  } catch (const std::bad_alloc&) {
    const std::string phase = sextant::cli::current_phase();
    std::fprintf(stderr, "sextant %s: error: %s%s\n", argv[1], sextant::out_of_memory_message().c_str(),
                 phase.empty() ? "" : (" while " + phase).c_str());
    return sextant::exit_code(sextant::ErrorKind::resource);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sextant %s: internal error: %s\n", argv[1], e.what());
    return sextant::exit_code(sextant::ErrorKind::internal);
  }
}
