#include "datagen/mapped_file.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <mutex>
#include <utility>

#include "core/error.hpp"

namespace sextant::datagen {
namespace {

// The live mappings, read by the SIGBUS handler: lock-free slots, claimed by storing `end` last.
struct Slot {
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};  // 0: free
  std::atomic<bool> changed{false};
};
constexpr int slot_count = 64;
std::array<Slot, slot_count> slots;
std::mutex claim_mutex;  // serialises claims (the handler only reads)
struct sigaction previous_action {};
std::uintptr_t page_bytes = 4096;  // set before the handler is installed (sysconf is not signal-safe)

void on_sigbus(int signal, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (Slot& slot : slots) {
    const std::uintptr_t end = slot.end.load(std::memory_order_acquire);
    if (end == 0 || address < slot.begin.load(std::memory_order_relaxed) || address >= end) continue;
    // A page of ours past the file's new end: zeros instead, the mapping marked changed.
    void* at = reinterpret_cast<void*>(address & ~(page_bytes - 1));
    if (::mmap(at, page_bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
      break;
    slot.changed.store(true, std::memory_order_relaxed);
    return;
  }
  // Not ours: what would have happened without this handler.
  if (previous_action.sa_flags & SA_SIGINFO) {
    previous_action.sa_sigaction(signal, info, context);
  } else if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN) {
    previous_action.sa_handler(signal);
  } else {
    ::signal(SIGBUS, SIG_DFL);  // the fault repeats on return and ends the process as before
  }
}

void install_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    page_bytes = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    struct sigaction action {};
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &previous_action);
  });
}

int claim_slot(std::uintptr_t begin, std::uintptr_t end) {
  install_handler();
  const std::lock_guard lock(claim_mutex);
  for (int i = 0; i < slot_count; ++i) {
    Slot& slot = slots[static_cast<std::size_t>(i)];
    if (slot.end.load(std::memory_order_relaxed) != 0) continue;
    slot.changed.store(false, std::memory_order_relaxed);
    slot.begin.store(begin, std::memory_order_relaxed);
    slot.end.store(end, std::memory_order_release);
    return i;
  }
  return -1;
}

}  // namespace

MappedFile::MappedFile(int fd, std::uint64_t offset, std::size_t bytes, const std::string& path)
    : path_(path) {
  if (bytes == 0) return;
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t first = offset / page * page;
  const std::size_t length = static_cast<std::size_t>(offset - first) + bytes;
  void* p = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, static_cast<off_t>(first));
  if (p == MAP_FAILED) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  slot_ = claim_slot(begin, begin + length);
  if (slot_ < 0) {  // more live mappings than slots: unguarded, so not used
    ::munmap(p, length);
    return;
  }
  base_ = static_cast<char*>(p);
  skip_ = static_cast<std::size_t>(offset - first);
  bytes_ = bytes;
}

MappedFile::~MappedFile() {
  release();
}

MappedFile::MappedFile(MappedFile&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)),
      skip_(o.skip_),
      bytes_(std::exchange(o.bytes_, 0)),
      slot_(std::exchange(o.slot_, -1)),
      path_(std::move(o.path_)) {}

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this != &o) {
    release();
    base_ = std::exchange(o.base_, nullptr);
    skip_ = o.skip_;
    bytes_ = std::exchange(o.bytes_, 0);
    slot_ = std::exchange(o.slot_, -1);
    path_ = std::move(o.path_);
  }
  return *this;
}

void MappedFile::throw_if_changed() const {
  if (slot_ >= 0 && slots[static_cast<std::size_t>(slot_)].changed.load(std::memory_order_relaxed))
    throw Error::io(path_,
                    "the file shrank while it was being read (another process truncated or rewrote it)");
}

void MappedFile::release() noexcept {
  if (base_ == nullptr) return;
  ::munmap(base_, skip_ + bytes_);
  Slot& slot = slots[static_cast<std::size_t>(slot_)];
  slot.end.store(0, std::memory_order_release);
  base_ = nullptr;
  slot_ = -1;
}

}  // namespace sextant::datagen
