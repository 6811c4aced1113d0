// Writes a file all-or-nothing: into "<path>.tmp-<pid>" first, renamed over `path` by
// commit(). Destroyed without commit(), the temporary is removed and `path` is untouched.
#pragma once

#include <fstream>
#include <string>

namespace sextant {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path, bool binary = false);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ofstream& stream() noexcept { return out_; }
  void commit();  // flushes, checks for write errors, renames; throws Error on failure

 private:
  std::string path_;
  std::string temp_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace sextant
