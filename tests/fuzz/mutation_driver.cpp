// A small deterministic mutation fuzzer that links with any LLVMFuzzerTestOneInput, so the fuzz
// targets build and run with g++ as well (libFuzzer needs clang). Same command line as
// libFuzzer for what it supports:
//
//   fuzz_csv [-runs=N] [-max_total_time=S] [-seed=S] [-max_len=L] CORPUS_DIR_OR_FILE...
//
// Every seed (the files of the corpus folders and the files named) runs once, then -runs mutants
// (default 10000; 0 = seeds only), each made from a seed or an earlier mutant by 1-8 stacked
// mutations: bit flips, byte insert/delete/duplicate/overwrite, interesting values (0, -1,
// INT_MIN/MAX, ...) at any width, ASCII digits/separators, block copies and splices with another
// seed. A fixed seed gives the same inputs on every machine. There is no coverage feedback; the
// point is a quick, reproducible smoke test (libFuzzer builds do the long runs).
//
// A finding (crash, sanitizer report, abort on an unexpected exception) ends the process; the
// input is written first to ./fuzz-crash-<target> (run the binary with that file to reproduce).
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
// Present when the binary is built with a sanitizer: called before it ends the process.
extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

namespace {

using Input = std::vector<std::uint8_t>;

// The input under test, for the crash handlers (async-signal-safe access only).
const Input* current = nullptr;
char crash_path[512] = "fuzz-crash";

void dump_current() {
  static volatile sig_atomic_t dumped = 0;
  if (current == nullptr || dumped) return;
  dumped = 1;
  const int fd = ::creat(crash_path, 0644);
  if (fd < 0) return;
  const auto* p = current->data();
  std::size_t left = current->size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n <= 0) break;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  ::close(fd);
  const char msg[] = "\nmutation_driver: the failing input is in ";
  (void)!::write(2, msg, sizeof msg - 1);
  (void)!::write(2, crash_path, std::strlen(crash_path));
  (void)!::write(2, "\n", 1);
}

void on_signal(int sig) {
  dump_current();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// xoshiro256** seeded through splitmix64: the same stream on every platform.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    for (auto& s : s_) {
      seed += 0x9E3779B97F4A7C15ull;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      s = z ^ (z >> 31);
    }
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, n) (n > 0; the bias is irrelevant here).
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

constexpr std::uint64_t interesting[] = {0,
                                         1,
                                         0x7F,
                                         0x80,
                                         0xFF,
                                         0x7FFF,
                                         0x8000,
                                         0xFFFF,
                                         0x7FFFFFFF,
                                         0x80000000,
                                         0xFFFFFFFF,
                                         0x100000000,
                                         0x7FFFFFFFFFFFFFFF,
                                         0x8000000000000000,
                                         0xFFFFFFFFFFFFFFFF,
                                         16,
                                         32,
                                         64,
                                         1000,
                                         4096,
                                         65536};
constexpr std::string_view tokens[] = {",",
                                       "\n",
                                       "\r\n",
                                       "-",
                                       "+",
                                       ".",
                                       "e",
                                       "E",
                                       "0",
                                       "9",
                                       " ",
                                       "\t",
                                       "nan",
                                       "inf",
                                       "1e39",
                                       "-0",
                                       "\xEF\xBB\xBF",
                                       "9223372036854775807",
                                       "18446744073709551616",
                                       "4294967295",
                                       "key,ts,value,wm",
                                       ":",
                                       "min",
                                       "max",
                                       std::string_view("\0", 1)};

class Mutator {
 public:
  Mutator(Rng& rng, const std::vector<Input>& seeds, std::size_t max_len)
      : rng_(rng), seeds_(seeds), max_len_(max_len) {}

  void mutate(Input& in) {
    const std::size_t rounds = 1 + rng_.below(8);
    for (std::size_t r = 0; r < rounds; ++r) once(in);
    if (in.size() > max_len_) in.resize(max_len_);
  }

 private:
  std::size_t pos(const Input& in, std::size_t extra = 0) { return rng_.below(in.size() + extra); }

  void once(Input& in) {
    switch (rng_.below(in.empty() ? 3 : 10)) {
      case 0: {  // insert random bytes
        const std::size_t at = pos(in, 1);
        const std::size_t n = 1 + rng_.below(4);
        for (std::size_t i = 0; i < n; ++i)
          in.insert(in.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::uint8_t>(rng_.next()));
        break;
      }
      case 1: {  // insert a token
        const std::string_view t = tokens[rng_.below(std::size(tokens))];
        const std::size_t at = pos(in, 1);
        in.insert(in.begin() + static_cast<std::ptrdiff_t>(at), t.begin(), t.end());
        break;
      }
      case 2: {  // splice: the front of this input, the back of a seed
        const Input& other = seeds_[rng_.below(seeds_.size())];
        const std::size_t keep = pos(in, 1);
        const std::size_t from = rng_.below(other.size() + 1);
        in.resize(keep);
        in.insert(in.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
        break;
      }
      case 3:  // flip a bit
        in[pos(in)] ^= static_cast<std::uint8_t>(1u << rng_.below(8));
        break;
      case 4:  // overwrite a byte
        in[pos(in)] = static_cast<std::uint8_t>(rng_.next());
        break;
      case 5: {  // delete a block
        const std::size_t at = pos(in);
        const std::size_t n = 1 + rng_.below(std::min<std::size_t>(in.size() - at, 16));
        in.erase(in.begin() + static_cast<std::ptrdiff_t>(at),
                 in.begin() + static_cast<std::ptrdiff_t>(at + n));
        break;
      }
      case 6: {  // duplicate a block in place
        const std::size_t at = pos(in);
        const std::size_t n = 1 + rng_.below(std::min<std::size_t>(in.size() - at, 64));
        const Input block(in.begin() + static_cast<std::ptrdiff_t>(at),
                          in.begin() + static_cast<std::ptrdiff_t>(at + n));
        in.insert(in.begin() + static_cast<std::ptrdiff_t>(at), block.begin(), block.end());
        break;
      }
      case 7: {  // an interesting value, 1/2/4/8 bytes little endian
        const std::size_t width = std::size_t{1} << rng_.below(4);
        const std::size_t at = pos(in);
        std::uint64_t v = interesting[rng_.below(std::size(interesting))];
        if (rng_.below(2)) v = ~v + 1;  // negated
        for (std::size_t i = 0; i < width && at + i < in.size(); ++i)
          in[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
        break;
      }
      case 8: {  // an ASCII digit or separator
        constexpr std::string_view ascii = "0123456789,.-+eE \n";
        in[pos(in)] = static_cast<std::uint8_t>(ascii[rng_.below(ascii.size())]);
        break;
      }
      default: {  // copy a block over another place
        const std::size_t from = pos(in);
        const std::size_t to = pos(in);
        const std::size_t n = std::min({in.size() - from, in.size() - to, 1 + rng_.below(32)});
        std::memmove(in.data() + to, in.data() + from, n);
        break;
      }
    }
  }

  Rng& rng_;
  const std::vector<Input>& seeds_;
  std::size_t max_len_;
};

Input read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Input(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool flag(std::string_view arg, std::string_view name, std::uint64_t& value) {
  if (!arg.starts_with(name)) return false;
  value = std::strtoull(std::string(arg.substr(name.size())).c_str(), nullptr, 10);
  return true;
}

void run(const Input& in) {
  current = &in;
  (void)LLVMFuzzerTestOneInput(in.data(), in.size());
  current = nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t runs = 10000, seconds = 0, seed = 1, max_len = 4096;
  std::vector<std::filesystem::path> paths;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (flag(arg, "-runs=", runs) || flag(arg, "-max_total_time=", seconds) || flag(arg, "-seed=", seed) ||
        flag(arg, "-max_len=", max_len))
      continue;
    if (arg.starts_with("-")) {
      std::fprintf(stderr, "mutation_driver: ignoring unsupported option %s\n", argv[i]);
      continue;
    }
    paths.emplace_back(arg);
  }
  const std::string target = std::filesystem::path(argv[0]).filename().string();
  std::snprintf(crash_path, sizeof crash_path, "fuzz-crash-%s", target.c_str());
  for (const int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) ::signal(sig, on_signal);
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(dump_current);

  std::vector<Input> seeds;
  for (const auto& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::recursive_directory_iterator(p))
        if (entry.is_regular_file()) files.push_back(entry.path());
      std::sort(files.begin(), files.end());  // directory order is not deterministic
      for (const auto& f : files) seeds.push_back(read_file(f));
    } else if (std::filesystem::exists(p, ec)) {
      seeds.push_back(read_file(p));
    } else {
      std::fprintf(stderr, "mutation_driver: no such file or folder: %s\n", p.string().c_str());
      return 2;
    }
  }
  if (seeds.empty()) seeds.emplace_back();
  for (const Input& s : seeds) run(s);

  Rng rng(seed);
  Mutator mutator(rng, seeds, static_cast<std::size_t>(max_len));
  std::vector<Input> pool = seeds;  // seeds and a ring of recent mutants to mutate further
  const std::size_t pool_limit = seeds.size() + 256;
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t done = 0;
  for (; done < runs; ++done) {
    if (seconds != 0 && (done & 63) == 0 &&
        std::chrono::steady_clock::now() - start > std::chrono::seconds(seconds))
      break;
    Input in = pool[rng.below(pool.size())];
    mutator.mutate(in);
    run(in);
    if (pool.size() < pool_limit)
      pool.push_back(std::move(in));
    else
      pool[seeds.size() + rng.below(pool_limit - seeds.size())] = std::move(in);
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("mutation_driver: %s: %zu seeds, %llu mutants, seed %llu, %.1f s: no finding\n", target.c_str(),
              seeds.size(), static_cast<unsigned long long>(done), static_cast<unsigned long long>(seed),
              elapsed);
  return 0;
}
