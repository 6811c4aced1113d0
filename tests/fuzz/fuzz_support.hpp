// Shared by the fuzz targets: a sextant::Error is the expected outcome of bad input; anything
// else (another exception type, an internal error, a crash, a sanitizer report) is a finding.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace sextant::fuzz {

// Runs f; returns quietly on a sextant::Error of any kind but internal (a broken invariant is a
// bug) and lets every other exception escape, which ends the process (std::terminate).
template <class F>
void expect_only_sextant_errors(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::internal) {
      std::fprintf(stderr, "fuzz: internal error: %s\n", e.what());
      std::abort();
    }
  }
}

// Input bytes consumed from the front: selector bytes first, the rest is the payload.
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : rest_(reinterpret_cast<const char*>(data), size) {}
  // One byte (0 when none is left).
  std::uint8_t take() {
    if (rest_.empty()) return 0;
    const auto b = static_cast<std::uint8_t>(rest_.front());
    rest_.remove_prefix(1);
    return b;
  }
  std::string_view rest() const { return rest_; }

 private:
  std::string_view rest_;
};

// `bytes` behind a path that opens like a file: a sealed memory file (a regular file, size
// known) or, when `as_pipe`, a pipe already filled and closed (size unknown, read to its end).
// The path stays valid while the object lives.
class BytesAsFile {
 public:
  BytesAsFile(std::string_view bytes, bool as_pipe) {
    if (as_pipe && bytes.size() <= 65536) {  // fits into the pipe's buffer without a reader
      int fds[2];
      if (::pipe(fds) != 0) std::abort();
      if (!bytes.empty() && ::write(fds[1], bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()))
        std::abort();
      ::close(fds[1]);
      fd_ = fds[0];
    } else {
      fd_ = ::memfd_create("sextant-fuzz", MFD_CLOEXEC);
      if (fd_ < 0) std::abort();
      if (!bytes.empty() && ::write(fd_, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()))
        std::abort();
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~BytesAsFile() { ::close(fd_); }
  BytesAsFile(const BytesAsFile&) = delete;
  BytesAsFile& operator=(const BytesAsFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace sextant::fuzz
