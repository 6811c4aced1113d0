// A regular file's bytes mapped read-only, for the text readers: no copy into fresh memory, and the
// pages come from the page cache already filled. A file that another process truncates while it is
// mapped would end this process with SIGBUS on the next access to a page past its new end; a
// handler installed with the first mapping puts a zero page there instead and marks the mapping
// changed, so the reader can throw an error saying so (MappedFile::throw_if_changed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sextant::datagen {

class MappedFile {
 public:
  MappedFile() = default;
  // Maps [offset, offset + bytes) of the open file `fd` (`path` for messages). Returns an empty
  // MappedFile (mapped() false) when the system refuses; the caller then reads the file instead.
  MappedFile(int fd, std::uint64_t offset, std::size_t bytes, const std::string& path);
  ~MappedFile();
  MappedFile(MappedFile&& o) noexcept;
  MappedFile& operator=(MappedFile&& o) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  bool mapped() const noexcept { return base_ != nullptr; }
  std::string_view view() const noexcept { return {base_ + skip_, bytes_}; }
  // Throws Error::io naming the file when it shrank under the mapping (a page past its new end
  // was read as zeros).
  void throw_if_changed() const;

 private:
  void release() noexcept;

  char* base_ = nullptr;   // page-aligned start of the mapping
  std::size_t skip_ = 0;   // bytes before `offset` in the first page
  std::size_t bytes_ = 0;  // bytes from `offset`
  int slot_ = -1;          // the mapping's entry in the SIGBUS handler's table
  std::string path_;
};

}  // namespace sextant::datagen
