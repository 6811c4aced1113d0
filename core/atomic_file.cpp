#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <streambuf>
#include <string_view>

#include "core/error.hpp"

namespace sextant {

namespace detail {

// An unformatted, checked writer onto a file descriptor: a failed write throws (the ostream
// over it rethrows, see AtomicFile's constructor) instead of setting a bit nobody reads.
class FdStreamBuf : public std::streambuf {
 public:
  FdStreamBuf(int fd, const std::string& name) : fd_(fd), name_(name), buffer_(new char[capacity]) {
    setp(buffer_.get(), buffer_.get() + capacity);
  }

  void flush_all() {
    write_all(pbase(), static_cast<std::size_t>(pptr() - pbase()));
    setp(buffer_.get(), buffer_.get() + capacity);
  }

 protected:
  int_type overflow(int_type ch) override {
    flush_all();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }

  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n <= 0) return 0;  // write(p, 0) may pass a null p, which memcpy must not see
    if (n <= epptr() - pptr()) {
      std::memcpy(pptr(), s, static_cast<std::size_t>(n));
      pbump(static_cast<int>(n));
      return n;
    }
    flush_all();
    if (n < static_cast<std::streamsize>(direct_bytes)) {
      std::memcpy(pptr(), s, static_cast<std::size_t>(n));
      pbump(static_cast<int>(n));
    } else {
      write_all(s, static_cast<std::size_t>(n));
    }
    return n;
  }

  int sync() override {
    flush_all();
    return 0;
  }

 private:
  static constexpr std::size_t capacity = std::size_t{1} << 20;
  // A piece at least this large that does not fit goes straight to write(2): copying it into the
  // buffer first would be one more pass over the output on the one thread that writes.
  static constexpr std::size_t direct_bytes = std::size_t{1} << 16;

  void write_all(const char* p, std::size_t n) {
    while (n > 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) throw Error::io(name_, std::string("write failed: ") + std::strerror(w < 0 ? errno : EIO));
      p += w;
      n -= static_cast<std::size_t>(w);
    }
  }

  int fd_;
  const std::string& name_;
  std::unique_ptr<char[]> buffer_;
};

}  // namespace detail

namespace {

// Named temporaries of unfinished outputs, for the signal handler: fixed slots, no allocation.
constexpr int temp_slots = 16;
struct TempSlot {
  std::atomic<bool> used{false};
  char path[PATH_MAX];
};
std::array<TempSlot, temp_slots> temps;

int register_temp(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < temp_slots; ++i) {
    bool expected = false;
    if (temps[i].used.load() || !temps[i].used.compare_exchange_strong(expected, true)) continue;
    std::memcpy(temps[i].path, path.c_str(), path.size() + 1);
    return i;
  }
  return -1;  // more than temp_slots outputs at once: this one is not cleaned up on a signal
}

void unregister_temp(int slot) {
  if (slot >= 0) temps[slot].used.store(false);
}

extern "C" void remove_temps_and_die(int sig) {
  for (auto& t : temps)
    if (t.used.load()) ::unlink(t.path);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

std::string error_text(int err) {
  return std::strerror(err);
}

std::string parent_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The file a path finally names: symbolic links followed, even a dangling last one (the
// file is then created where it points).
std::string follow_links(const std::string& path, const std::string& name) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    char link[PATH_MAX];
    const ssize_t len = ::readlink(p.c_str(), link, sizeof link - 1);
    if (len < 0) throw Error::io(name, "cannot read the symbolic link: " + error_text(errno));
    link[len] = '\0';
    p = link[0] == '/' ? std::string(link) : parent_of(p) + "/" + link;
  }
  throw Error::io(name, "too many levels of symbolic links");
}

int open_socket(const std::string& path, const std::string& name) {
  sockaddr_un addr{};
  if (path.size() >= sizeof addr.sun_path) throw Error::io(name, "socket path too long");
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw Error::io(name, "cannot create a socket: " + error_text(errno));
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    const int err = errno;
    ::close(fd);
    throw Error::io(name, "cannot connect to the socket: " + error_text(err));
  }
  return fd;
}

}  // namespace

void install_output_cleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
      struct sigaction act {};
      act.sa_handler = remove_temps_and_die;
      sigemptyset(&act.sa_mask);
      ::sigaction(sig, &act, nullptr);
    }
  });
}

AtomicFile::AtomicFile(std::string path, bool /*binary: POSIX has no text mode*/) : path_(std::move(path)) {
  if (path_.empty())
    throw Error(ErrorKind::bad_argument,
                "the output path is empty (give a file path, or - for standard output)");
  if (path_ == "-") {
    kind_ = Kind::standard_output;
    std::cout.flush();
    fd_ = STDOUT_FILENO;
    path_ = "<stdout>";
  } else {
    target_ = follow_links(path_, path_);
    struct stat st {};
    if (::stat(target_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
      if (S_ISDIR(st.st_mode)) throw Error::io(path_, "is a directory");
      kind_ = Kind::special;
      fd_ =
          S_ISSOCK(st.st_mode) ? open_socket(target_, path_) : ::open(target_.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd_ < 0) throw Error::io(path_, "cannot open for writing: " + error_text(errno));
    } else {
      if (::stat(target_.c_str(), &st) == 0) mode_ = st.st_mode & 07777;
      open_replacement();
    }
  }
  buf_ = std::make_unique<detail::FdStreamBuf>(fd_, path_);
  out_ = std::make_unique<std::ostream>(buf_.get());
  out_->exceptions(std::ios::badbit);  // a write error propagates as the buffer's Error
}

void AtomicFile::open_replacement() {
  const std::string dir = parent_of(target_);
  // SEXTANT_OUTPUT_NO_TMPFILE=1 takes the named-temporary path, as on a file system without
  // O_TMPFILE (for tests).
  const char* no_tmpfile = std::getenv("SEXTANT_OUTPUT_NO_TMPFILE");
  if (no_tmpfile == nullptr || std::string_view(no_tmpfile) != "1") {
    fd_ = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (fd_ >= 0) return;
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
      throw Error::io(path_, "cannot create the output file: " + error_text(errno));
  }
  // No O_TMPFILE here: a hidden named temporary, removed on failure and on signals.
  // Registered before it exists: a signal between the creation and the registration would
  // leave it behind.
  for (int attempt = 0; fd_ < 0; ++attempt) {
    temp_ =
        dir + "/." + base_of(target_) + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(attempt);
    slot_ = register_temp(temp_);
    fd_ = ::open(temp_.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
    if (fd_ >= 0) break;
    const int err = errno;
    unregister_temp(slot_);
    slot_ = -1;
    if (err != EEXIST || attempt == 100) {
      temp_.clear();
      throw Error::io(path_, "cannot create the output file: " + error_text(err));
    }
  }
}

AtomicFile::~AtomicFile() {
  out_.reset();
  buf_.reset();
  if (kind_ == Kind::standard_output || fd_ < 0) return;
  ::close(fd_);
  if (!committed_ && !temp_.empty()) {
    ::unlink(temp_.c_str());
    unregister_temp(slot_);
  }
}

void AtomicFile::commit() {
  buf_->flush_all();
  if (kind_ == Kind::standard_output) {
    committed_ = true;
    return;
  }
  if (kind_ == Kind::special) {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw Error::io(path_, "write failed: " + error_text(errno));
    committed_ = true;
    return;
  }
  if (mode_ != 0 && ::fchmod(fd_, mode_) != 0)
    throw Error::io(path_, "cannot keep the permissions of the old file: " + error_text(errno));
  if (::fsync(fd_) != 0) throw Error::io(path_, "write failed: " + error_text(errno));
  if (temp_.empty()) {  // unnamed: give it a hidden name next to the target, then rename
    const std::string proc = "/proc/self/fd/" + std::to_string(fd_);
    const std::string dir = parent_of(target_);
    for (int attempt = 0; temp_.empty(); ++attempt) {
      std::string name = dir + "/." + base_of(target_) + ".tmp-" + std::to_string(::getpid()) + "-" +
                         std::to_string(attempt);
      slot_ = register_temp(name);
      if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        temp_ = std::move(name);
        break;
      }
      const int err = errno;
      unregister_temp(slot_);
      slot_ = -1;
      if (err != EEXIST || attempt == 100)
        throw Error::io(path_, "cannot put the output in place: " + error_text(err));
    }
  }
  if (std::rename(temp_.c_str(), target_.c_str()) != 0)
    throw Error::io(path_, "cannot put the output in place: " + error_text(errno));
  committed_ = true;
  unregister_temp(slot_);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) throw Error::io(path_, "write failed: " + error_text(errno));
  const int dir = ::open(parent_of(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {  // best effort: the rename survives a power cut
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace sextant
