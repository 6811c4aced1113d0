// Sextant's output-file contract (docs/output-files.md), for every command and writer:
//
// * "-" is standard output.
// * A regular file (or a path that does not exist yet) is replaced all or nothing: the bytes go
//   to an unnamed temporary file in the target's directory (O_TMPFILE; a named, hidden
//   temporary where the file system has none), which commit() syncs, links and renames over
//   the target. Nothing is left behind when the process dies, even by SIGKILL (a named
//   temporary is removed on SIGINT/SIGTERM/SIGHUP once install_output_cleanup() ran). An
//   existing file keeps its permission bits.
// * A symbolic link is followed: its final target is replaced, the link stays.
// * A character or block device, a FIFO or a UNIX socket is written directly (/dev/null stays
//   /dev/null); what was written before a failure cannot be taken back there.
// * Every write, fsync and close is checked; a failure throws Error::io naming the output
//   ("out.csv: write failed: No space left on device"), from whichever writer was running.
#pragma once

#include <memory>
#include <ostream>
#include <string>

namespace sextant {

namespace detail {
class FdStreamBuf;
}

class AtomicFile {
 public:
  explicit AtomicFile(std::string path, bool binary = false);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Throws Error::io, naming the output, when a write fails.
  std::ostream& stream() noexcept { return *out_; }
  // Flushes, syncs and, for a regular file, puts it in place; throws Error::io on failure.
  void commit();

 private:
  enum class Kind { standard_output, special, replace };
  void open_replacement();

  std::string path_;    // as the user named it (messages)
  std::string target_;  // the file actually replaced (symbolic links followed)
  Kind kind_ = Kind::replace;
  int fd_ = -1;
  std::string temp_;   // the named temporary, when the file system has no O_TMPFILE
  unsigned mode_ = 0;  // permission bits to keep, or 0 for a new file
  int slot_ = -1;      // the temporary's slot for the signal handler
  std::unique_ptr<detail::FdStreamBuf> buf_;
  std::unique_ptr<std::ostream> out_;
  bool committed_ = false;
};

// Installs SIGINT/SIGTERM/SIGHUP handlers (where the disposition is the default) that remove
// the named temporaries of unfinished outputs and then die of the signal as before. For
// programs; a library user may call it too. Idempotent.
void install_output_cleanup();

}  // namespace sextant
