#include "core/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"

namespace sextant {

AtomicFile::AtomicFile(std::string path, bool binary)
    : path_(std::move(path)), temp_(path_ + ".tmp-" + std::to_string(::getpid())) {
  out_.open(temp_, binary ? std::ios::out | std::ios::binary | std::ios::trunc : std::ios::out | std::ios::trunc);
  if (!out_) throw Error::io(path_, std::string("cannot create output file: ") + std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (!committed_) {
    out_.close();
    std::remove(temp_.c_str());
  }
}

void AtomicFile::commit() {
  out_.flush();
  const bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok || out_.fail()) throw Error::io(path_, "write failed (disk full?)");
  if (std::rename(temp_.c_str(), path_.c_str()) != 0)
    throw Error::io(path_, std::string("cannot rename temporary output into place: ") + std::strerror(errno));
  committed_ = true;
}

}  // namespace sextant
