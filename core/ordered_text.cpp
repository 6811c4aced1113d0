#include "core/ordered_text.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <ostream>
#include <thread>
#include <vector>

#include "core/error.hpp"

namespace sextant {
namespace {

// Workers take blocks in order and format each into a slot of a ring; whoever finishes the
// block the output waits for writes it and every finished block after it. A worker whose block
// would overwrite a slot not yet written helps write instead, so formatting and writing overlap
// and the memory held is one ring of text.
class OrderedWriter {
 public:
  OrderedWriter(std::ostream& out, std::size_t count, std::size_t block, std::size_t slots,
                const std::function<void(std::size_t, std::size_t, std::string&)>& format)
      : out_(out),
        count_(count),
        block_(block),
        blocks_((count + block - 1) / block),
        texts_(slots),
        ready_(slots),
        format_(format) {
    for (auto& r : ready_) r.store(none, std::memory_order_relaxed);
  }

  void work() {
    try {
      for (std::size_t b; (b = next_block_.fetch_add(1)) < blocks_ && !failed_.load();) {
        while (b >= written_.load(std::memory_order_acquire) + texts_.size() && !failed_.load()) {
          if (!write_ready()) std::this_thread::yield();
        }
        if (failed_.load()) break;
        std::string& text = texts_[b % texts_.size()];
        text.clear();
        const std::size_t begin = b * block_;
        format_(begin, std::min(count_, begin + block_), text);
        ready_[b % texts_.size()].store(b, std::memory_order_release);
        write_ready();
      }
    } catch (...) {
      failed_.store(true);
      throw;
    }
  }

  // After every worker: the blocks nobody was left to write.
  void finish() {
    if (failed_.load()) return;
    write_ready();
  }

 private:
  static constexpr std::size_t none = ~std::size_t{0};

  // Writes the finished blocks from the first unwritten one on, unless another thread is at it;
  // true when it wrote something.
  bool write_ready() {
    bool wrote = false;
    while (true) {
      std::unique_lock lock(write_mutex_, std::try_to_lock);
      if (!lock.owns_lock()) return wrote;
      std::size_t b = written_.load(std::memory_order_relaxed);
      for (; b < blocks_ && ready_[b % texts_.size()].load(std::memory_order_acquire) == b; ++b) {
        const std::string& text = texts_[b % texts_.size()];
        out_.write(text.data(), static_cast<std::streamsize>(text.size()));
        if (!out_) failed_.store(true);
        wrote = true;
      }
      written_.store(b, std::memory_order_release);
      lock.unlock();
      // A block finished while the lock was held may have found it taken: look once more.
      if (b >= blocks_ || ready_[b % texts_.size()].load(std::memory_order_acquire) != b) return wrote;
    }
  }

  std::ostream& out_;
  const std::size_t count_;
  const std::size_t block_;
  const std::size_t blocks_;
  std::vector<std::string> texts_;
  std::vector<std::atomic<std::size_t>> ready_;  // per slot: the block its text holds
  const std::function<void(std::size_t, std::size_t, std::string&)>& format_;
  std::atomic<std::size_t> next_block_{0};
  std::atomic<std::size_t> written_{0};  // blocks written, in order
  std::atomic<bool> failed_{false};
  std::mutex write_mutex_;
};

}  // namespace

void write_in_order(std::ostream& out, std::size_t count, std::size_t block, TeamRef team,
                    const std::function<void(std::size_t, std::size_t, std::string&)>& format,
                    const char* what) {
  block = std::max<std::size_t>(block, 1);
  const std::size_t blocks = (count + block - 1) / block;
  const auto workers = std::min<std::size_t>(blocks, static_cast<std::size_t>(std::max(team.workers(), 1)));
  OrderedWriter writer(out, count, block, std::max<std::size_t>(1, 8 * workers), format);
  if (workers <= 1)
    writer.work();  // no hand-over to the workers for one of them
  else
    team.run_tasks(workers, [&](std::size_t, int) { writer.work(); });
  writer.finish();
  if (!out) throw Error(ErrorKind::io, std::string(what) + " failed (disk full?)");
}

}  // namespace sextant
