#include "datagen/input_file.hpp"

#include <fcntl.h>
#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "core/error.hpp"

namespace sextant::datagen {
namespace {

// A regular file of this size or more is read on every core, in blocks of read_block_bytes, or
// mapped (InputText).
constexpr std::size_t parallel_read_min_bytes = std::size_t{1} << 22;
constexpr std::size_t read_block_bytes = std::size_t{1} << 20;

}  // namespace

InputFile::InputFile(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw Error::io(path, std::string("cannot open for reading: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int e = errno;
    ::close(fd_);
    throw Error::io(path, std::string("cannot read: ") + std::strerror(e));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd_);
    throw Error::io(path, std::string("cannot read: ") + std::strerror(EISDIR));
  }
  if (S_ISREG(st.st_mode)) size_ = static_cast<std::uint64_t>(st.st_size);
}

InputFile::~InputFile() {
  ::close(fd_);
}

std::size_t InputFile::read_some(char* buffer, std::size_t n) {
  while (true) {
    const ssize_t got = ::read(fd_, buffer, n);
    if (got >= 0) return static_cast<std::size_t>(got);
    if (errno != EINTR) throw Error::io(path_, std::string("read failed: ") + std::strerror(errno));
  }
}

std::string_view InputFile::peek(std::size_t n) {
  while (pending_.size() < n) {
    const std::size_t old = pending_.size();
    pending_.resize(n);
    const std::size_t got = read_some(pending_.data() + old, n - old);
    pending_.resize(old + got);
    if (got == 0) break;
  }
  return std::string_view(pending_).substr(0, n);
}

std::size_t InputFile::read(void* buffer, std::size_t n) {
  if (n == 0) return 0;  // `buffer` may be null then (an empty payload)
  auto* out = static_cast<char*>(buffer);
  const std::size_t from_pending = std::min(n, pending_.size());
  std::memcpy(out, pending_.data(), from_pending);
  pending_.erase(0, from_pending);
  std::size_t done = from_pending;
  while (done < n) {
    const std::size_t got = read_some(out + done, n - done);
    if (got == 0) break;
    done += got;
  }
  return done;
}

std::uint64_t InputFile::count_rest(std::uint64_t limit) {
  char buffer[1 << 16];
  std::uint64_t count = 0;
  while (count <= limit) {
    const std::size_t got = read(buffer, sizeof buffer);
    count += got;
    if (got < sizeof buffer) break;
  }
  return count;
}

std::optional<std::uint64_t> InputFile::bytes_left() const {
  if (!size_) return std::nullopt;
  const off_t at = ::lseek(fd_, 0, SEEK_CUR);
  if (at < 0) throw Error::io(path_, std::string("cannot read: ") + std::strerror(errno));
  const auto position = static_cast<std::uint64_t>(at);
  return (*size_ > position ? *size_ - position : 0) + pending_.size();
}

std::size_t InputFile::read_on_every_core(void* buffer, std::size_t n) {
  if (!size_ || n < parallel_read_min_bytes) return read(buffer, n);
  auto* out = static_cast<char*>(buffer);
  const std::size_t from_pending = std::min(n, pending_.size());
  std::memcpy(out, pending_.data(), from_pending);
  pending_.erase(0, from_pending);
  const off_t start = ::lseek(fd_, 0, SEEK_CUR);
  if (start < 0) throw Error::io(path_, std::string("cannot read: ") + std::strerror(errno));
  out += from_pending;
  const std::size_t rest = n - from_pending;
  // Each block is read until it is full or the file ends; `end` is the first byte a read found
  // past the end of the file (the file's end as it is now: it may have shrunk).
  std::atomic<int> error{0};
  std::atomic<std::size_t> end{rest};
  const std::size_t blocks = (rest + read_block_bytes - 1) / read_block_bytes;
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t b = 0; b < static_cast<std::ptrdiff_t>(blocks); ++b) {
    const std::size_t first = static_cast<std::size_t>(b) * read_block_bytes;
    const std::size_t last = std::min(rest, first + read_block_bytes);
    for (std::size_t done = first; done < last && error.load(std::memory_order_relaxed) == 0;) {
      const ssize_t got = ::pread(fd_, out + done, last - done, start + static_cast<off_t>(done));
      if (got > 0) {
        done += static_cast<std::size_t>(got);
      } else if (got == 0) {
        for (std::size_t seen = end.load(); done < seen && !end.compare_exchange_weak(seen, done);) {
        }
        break;
      } else if (errno != EINTR) {
        error.store(errno);
      }
    }
  }
  if (error.load() != 0) throw Error::io(path_, std::string("read failed: ") + std::strerror(error.load()));
  if (::lseek(fd_, start + static_cast<off_t>(end.load()), SEEK_SET) < 0)
    throw Error::io(path_, std::string("cannot read: ") + std::strerror(errno));
  return from_pending + end.load();
}

MappedFile InputFile::map_rest(std::size_t min_bytes) {
  if (!size_) return {};
  // The file as it is now: it may have grown since it was opened.
  struct stat st {};
  const off_t at = ::lseek(fd_, 0, SEEK_CUR);
  if (at < 0 || ::fstat(fd_, &st) != 0) return {};
  const auto position = static_cast<std::uint64_t>(at) - pending_.size();  // peeked bytes are not consumed
  const auto end = static_cast<std::uint64_t>(st.st_size);
  if (end <= position || end - position < min_bytes) return {};
  MappedFile mapped(fd_, position, static_cast<std::size_t>(end - position), path_);
  if (mapped.mapped()) {
    pending_.clear();
    ::lseek(fd_, static_cast<off_t>(end), SEEK_SET);
  }
  return mapped;
}

InputText::InputText(InputFile& file) : mapped_(file.map_rest(parallel_read_min_bytes)) {
  if (mapped_.mapped()) {
    try {
      detail::check_line_lengths(view(), file.path());
    } catch (...) {
      throw_if_changed();
      throw;
    }
    return;
  }
  if (!file.size()) {
    text_ = read_text(file);
    return;
  }
  // A file that grew since it was opened is read to its end.
  const auto expected = static_cast<std::size_t>(*file.bytes_left());
  block_ = std::make_unique_for_overwrite<char[]>(std::max<std::size_t>(expected, 1));
  size_ = file.read_on_every_core(block_.get(), expected);
  char extra[1 << 16];
  for (std::size_t got; size_ == expected && (got = file.read(extra, sizeof extra)) != 0;) {
    if (block_) {
      text_.assign(block_.get(), size_);
      block_.reset();
    }
    text_.append(extra, got);
  }
  detail::check_line_lengths(view(), file.path());
}

namespace detail {

void check_line_lengths(std::string_view text, const std::string& origin) {
  // From each line end, the last line end within the next max_line_bytes + 1 bytes: none there
  // means the line after it is too long.
  std::size_t begin = 0;  // the first byte after a line end
  while (text.size() - begin > max_line_bytes) {
    const auto* last = static_cast<const char*>(::memrchr(text.data() + begin, '\n', max_line_bytes + 1));
    if (last == nullptr) {
      const auto line = static_cast<std::size_t>(std::count(text.data(), text.data() + begin, '\n')) + 1;
      throw_line_too_long(origin, line);
    }
    begin = static_cast<std::size_t>(last - text.data()) + 1;
  }
}

void throw_line_too_long(const std::string& origin, std::size_t line) {
  throw Error::in_file(origin, line, 0,
                       "line longer than " + std::to_string(max_line_bytes) +
                           " bytes (the limit for one line of text input; is this a text file?)");
}

std::string_view skip_utf8_bom(std::string_view text) noexcept {
  constexpr std::string_view bom = "\xEF\xBB\xBF";
  if (text.starts_with(bom)) text.remove_prefix(bom.size());
  return text;
}

}  // namespace detail

// Reads in chunks no longer than max_line_bytes, so a line over the limit spans at least two
// chunks and is caught at the first newline (or chunk end) after the limit, one chunk past it.
std::string read_text(InputFile& file) {
  constexpr std::size_t chunk = std::min<std::size_t>(max_line_bytes, std::size_t{1} << 16);
  std::string text;
  if (const auto size = file.size()) text.reserve(static_cast<std::size_t>(*size) + chunk);
  std::size_t line_length = 0;  // bytes of the current line read so far
  while (true) {
    const std::size_t old = text.size();
    text.resize(old + chunk);
    const std::size_t got = file.read(text.data() + old, chunk);
    text.resize(old + got);
    const char* const first = text.data() + old;
    const auto* newline = static_cast<const char*>(std::memchr(first, '\n', got));
    const std::size_t to_line_end = newline ? static_cast<std::size_t>(newline - first) : got;
    if (line_length + to_line_end > max_line_bytes) {
      const auto line = static_cast<std::size_t>(std::count(std::as_const(text).data(), first, '\n')) + 1;
      detail::throw_line_too_long(file.path(), line);
    }
    if (newline) {
      const auto* last = static_cast<const char*>(::memrchr(first, '\n', got));
      line_length = got - static_cast<std::size_t>(last - first) - 1;
    } else {
      line_length += got;
    }
    if (got < chunk) return text;
  }
}

InputStreambuf::int_type InputStreambuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  std::size_t got = 0;
  try {
    got = file_.read(buffer_, sizeof buffer_);
  } catch (...) {
    error_ = std::current_exception();
    return traits_type::eof();
  }
  if (got == 0) return traits_type::eof();
  setg(buffer_, buffer_, buffer_ + got);
  return traits_type::to_int_type(buffer_[0]);
}

}  // namespace sextant::datagen
