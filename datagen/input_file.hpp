// One input, opened once and read front to back: regular files, pipes, FIFOs, character devices
// (/dev/stdin, /dev/zero). A format probe peeks at the first bytes instead of opening the path
// twice, so a FIFO is read exactly once; text is read with a bound on the line length, so an
// endless input without line ends (/dev/zero) stops with an error instead of exhausting memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <streambuf>
#include <string>
#include <string_view>

#include "datagen/mapped_file.hpp"

namespace sextant::datagen {

// The longest line any text reader accepts (dataset CSV, stream CSV), without its line end.
inline constexpr std::size_t max_line_bytes = std::size_t{1} << 20;

class InputFile {
 public:
  // Throws Error::io naming the path and the reason (strerror) when it cannot be opened or is a
  // directory.
  explicit InputFile(const std::string& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& path() const noexcept { return path_; }
  // The size of a regular file; nullopt for pipes, FIFOs and devices.
  std::optional<std::uint64_t> size() const noexcept { return size_; }
  // The bytes of a regular file not yet consumed (peeked ones included), from its size at opening;
  // nullopt for pipes, FIFOs and devices.
  std::optional<std::uint64_t> bytes_left() const;

  // The first bytes not yet consumed (fewer than n only at the end of the input); the next
  // read() returns them again.
  std::string_view peek(std::size_t n);
  // Up to n bytes into `buffer`; fewer only at the end of the input. Throws Error::io.
  std::size_t read(void* buffer, std::size_t n);
  // read() on every core for a regular file from a few MiB on: positional reads of blocks,
  // each into its part of `buffer` (which need not be zeroed: the pages are first touched by the
  // thread that fills them). Anything else is read front to back.
  std::size_t read_on_every_core(void* buffer, std::size_t n);
  // The rest of a regular file of `min_bytes` or more, mapped (MappedFile) and consumed; an
  // empty MappedFile for a smaller file, a pipe, a FIFO or a device, or when mapping fails.
  MappedFile map_rest(std::size_t min_bytes);
  // Bytes left, counted up to `limit` (more than `limit` when it stops early).
  std::uint64_t count_rest(std::uint64_t limit);

 private:
  std::size_t read_some(char* buffer, std::size_t n);  // one read(2), EINTR retried

  std::string path_;
  int fd_ = -1;
  std::optional<std::uint64_t> size_;
  std::string pending_;  // peeked bytes, returned before anything else
};

// The rest of `file` as text. Throws Error (bad_input) naming the file and the line when a line
// is longer than max_line_bytes, without reading further.
std::string read_text(InputFile& file);

// The rest of an input as one block of text, with the line bound of read_text. A regular file of
// a few MiB or more is mapped (MappedFile); a smaller one, or one that cannot be mapped, is read by
// every core into memory that is not zeroed first. Pipes, FIFOs and devices are read once, front
// to back, through read_text.
class InputText {
 public:
  explicit InputText(InputFile& file);
  std::string_view view() const noexcept {
    return mapped_.mapped() ? mapped_.view() : block_ ? std::string_view(block_.get(), size_) : text_;
  }
  // MappedFile::throw_if_changed: call it after the text was read, and before reporting what a
  // reader found wrong in it.
  void throw_if_changed() const { mapped_.throw_if_changed(); }

 private:
  MappedFile mapped_;
  std::unique_ptr<char[]> block_;  // a regular file's bytes, read
  std::size_t size_ = 0;
  std::string text_;  // anything else
};

// parse(text) on the rest of `file` as one InputText. When the file shrank while it was mapped,
// the error says so, rather than what the parse made of the zeros read in its place.
template <class Parse>
auto parse_text(InputFile& file, Parse&& parse) {
  const InputText text(file);
  try {
    auto result = parse(text.view());
    text.throw_if_changed();
    return result;
  } catch (...) {
    text.throw_if_changed();
    throw;
  }
}

namespace detail {
// Throws throw_line_too_long's error when a line of `text` (counted without its '\n') is longer
// than max_line_bytes. Looks at a few bytes per max_line_bytes of text.
void check_line_lengths(std::string_view text, const std::string& origin);
// The error for a line of `origin` longer than max_line_bytes (1-based line).
[[noreturn]] void throw_line_too_long(const std::string& origin, std::size_t line);
// `text` without a leading UTF-8 byte order mark.
std::string_view skip_utf8_bom(std::string_view text) noexcept;
}  // namespace detail

// An InputFile as a std::streambuf, for readers that take a std::istream. A read error ends
// the stream; rethrow_error() then throws it (an Error::io naming the file and the reason).
class InputStreambuf final : public std::streambuf {
 public:
  explicit InputStreambuf(InputFile& file) : file_(file) {}
  void rethrow_error() const {
    if (error_) std::rethrow_exception(error_);
  }

 protected:
  int_type underflow() override;

 private:
  InputFile& file_;
  char buffer_[1 << 16];
  std::exception_ptr error_;
};

}  // namespace sextant::datagen
