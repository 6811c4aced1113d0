// The `sextant` subcommands. Each returns the process exit code; errors are thrown as
// sextant::Error and turned into a message and exit code by main().
#pragma once

namespace sextant::cli {

int generate_command(int argc, char** argv);
int skycube_command(int argc, char** argv);
int query_command(int argc, char** argv);
int info_command(int argc, char** argv);
int window_command(int argc, char** argv);
int generate_column_command(int argc, char** argv);
int generate_stream_command(int argc, char** argv);
int match_command(int argc, char** argv);
int generate_pubsub_command(int argc, char** argv);
int skyline_command(int argc, char** argv);
int pipeline_command(int argc, char** argv);

}  // namespace sextant::cli
