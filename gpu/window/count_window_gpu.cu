// The GPU entry points: argument checks, the workspace, the selector's choice, the launch.
#include <cuda_runtime.h>

#include <array>
#include <map>
#include <mutex>
#include <string>

#include "gpu/cuda_check.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/device_query.hpp"
#include "gpu/window/common_kernels.cuh"
#include "gpu/window/count_window_gpu.hpp"
#include "gpu/window/launch.cuh"
#include "templates/window/chunk_geometry.hpp"

namespace sextant::window::gpu {

struct GpuWorkspace::Impl {
  int ordinal = 0;
  std::array<void*, slots> data{};
  std::array<std::size_t, slots> size{};

  ~Impl() {
    int previous = 0;
    if (cudaGetDevice(&previous) != cudaSuccess) return;
    cudaSetDevice(ordinal);
    for (void* p : data)
      if (p != nullptr) cudaFree(p);  // no throw from a destructor
    cudaSetDevice(previous);
  }
};

GpuWorkspace::GpuWorkspace(int ordinal) : impl_(std::make_unique<Impl>()) {
  impl_->ordinal = ordinal;
}
GpuWorkspace::~GpuWorkspace() = default;
GpuWorkspace::GpuWorkspace(GpuWorkspace&&) noexcept = default;
GpuWorkspace& GpuWorkspace::operator=(GpuWorkspace&&) noexcept = default;

int GpuWorkspace::ordinal() const noexcept {
  return impl_->ordinal;
}

std::size_t GpuWorkspace::held_bytes() const noexcept {
  std::size_t total = 0;
  for (std::size_t s : impl_->size) total += s;
  return total;
}

void* GpuWorkspace::reserve(int slot, std::size_t bytes) {
  if (slot < 0 || slot >= slots) throw Error::internal("GpuWorkspace slot out of range");
  if (bytes <= impl_->size[slot] && impl_->data[slot] != nullptr) return impl_->data[slot];
  ::sextant::gpu::ScopedDevice scope(impl_->ordinal);
  if (impl_->data[slot] != nullptr) {
    SEXTANT_CUDA_CHECK(cudaFree(impl_->data[slot]));
    impl_->data[slot] = nullptr;
    impl_->size[slot] = 0;
  }
  const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + (1 << 20) - 1) / (1 << 20) * (1 << 20);
  SEXTANT_CUDA_CHECK(cudaMalloc(&impl_->data[slot], rounded));
  impl_->size[slot] = rounded;
  return impl_->data[slot];
}

namespace {

void check_ordinal(int ordinal) {
  ::sextant::gpu::device_info(ordinal);
}

// The library's own workspace per device, and the lock that serialises its users.
struct DefaultWorkspace {
  std::mutex mutex;
  std::unique_ptr<GpuWorkspace> workspace;
};

DefaultWorkspace& default_workspace(int ordinal) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<DefaultWorkspace>> all;
  std::lock_guard lock(mutex);
  auto& slot = all[ordinal];
  if (!slot) {
    slot = std::make_unique<DefaultWorkspace>();
    slot->workspace = std::make_unique<GpuWorkspace>(ordinal);
  }
  return *slot;
}

void check_device_pointer(const void* p, int ordinal, const char* parameter) {
  if (p == nullptr) return;
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    cudaGetLastError();
    attributes.type = cudaMemoryTypeUnregistered;
  }
  const bool device = attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
  if (!device || (attributes.type == cudaMemoryTypeDevice && attributes.device != ordinal))
    throw Error::argument(parameter, "host or other-device pointer",
                          "device memory of gpu" + std::to_string(ordinal), "not device memory of this GPU");
}

void check_alignment(const void* p, std::size_t bytes, const char* parameter) {
  if (reinterpret_cast<std::uintptr_t>(p) % bytes != 0)
    throw Error::argument(parameter, "misaligned pointer", "aligned to " + std::to_string(bytes) + " bytes",
                          "values must be naturally aligned");
}

void launch(const CountPlan& plan, const CountWindowArgs& args, GpuWorkspace& workspace,
            cudaStream_t stream) {
  const detail::Launch l{plan, args, workspace, stream, device_profile(workspace.ordinal()).multiprocessors};
  switch (plan.algorithm) {
    case CountAlgorithm::gbl:
      detail::launch_gbl(l);
      break;
    case CountAlgorithm::sh:
      detail::launch_sh(l);
      break;
    case CountAlgorithm::coop:
      detail::launch_coop(l);
      break;
    case CountAlgorithm::direct_prefix:
      detail::launch_direct_prefix(l);
      break;
    case CountAlgorithm::reduced_prefix:
      detail::launch_reduced_prefix(l);
      break;
    case CountAlgorithm::block_scan:
      detail::launch_block_scan(l);
      break;
    case CountAlgorithm::automatic:
      throw Error::internal("run_plan given an unresolved 'automatic' plan");
  }
}

DeviceProfile current_profile(int ordinal, const GpuWorkspace& workspace) {
  DeviceProfile profile = device_profile(ordinal);
  std::size_t free_bytes = 0, total_bytes = 0;
  SEXTANT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // The workspace's own buffers can be given back and re-taken; keep a margin for the rest.
  profile.free_memory = (free_bytes + workspace.held_bytes()) / 10 * 9;
  return profile;
}

CountPlan run_device(int ordinal, const CountWindowArgs& args, CountAlgorithm algorithm,
                     GpuWorkspace& workspace, cudaStream_t stream) {
  const CountPlan plan = select_count_window(algorithm, args.problem(), current_profile(ordinal, workspace));
  if (args.problem().windows() == 0) return plan;
  launch(plan, args, workspace, stream);
  SEXTANT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return plan;
}

void check_device_args(int ordinal, const CountWindowArgs& args) {
  check_columns(args.in, args.out, args.spec, args.kind, args.positions);
  check_ordinal(ordinal);
  check_alignment(args.in.data, size_of(args.in.type), "in");
  check_alignment(args.out.data, size_of(args.out.type), "out");
  if (args.problem().windows() == 0) return;
  check_device_pointer(args.in.data, ordinal, "in");
  check_device_pointer(args.out.data, ordinal, "out");
  check_device_pointer(args.positions, ordinal, "positions");
  if (args.positions != nullptr) check_alignment(args.positions, sizeof(std::int64_t), "positions");
}

}  // namespace

CountPlan aggregate_count_device(int ordinal, const CountWindowArgs& args, CountAlgorithm algorithm,
                                 GpuWorkspace* workspace, void* stream) {
  check_device_args(ordinal, args);
  ::sextant::gpu::ScopedDevice scope(ordinal);
  const auto s = static_cast<cudaStream_t>(stream);
  if (workspace != nullptr) return run_device(ordinal, args, algorithm, *workspace, s);
  DefaultWorkspace& own = default_workspace(ordinal);
  std::lock_guard lock(own.mutex);
  return run_device(ordinal, args, algorithm, *own.workspace, s);
}

void run_plan(int ordinal, const CountPlan& plan, const CountWindowArgs& args, GpuWorkspace& workspace,
              void* stream) {
  check_device_args(ordinal, args);
  if (args.problem().windows() == 0) return;
  ::sextant::gpu::ScopedDevice scope(ordinal);
  const auto s = static_cast<cudaStream_t>(stream);
  launch(plan, args, workspace, s);
  SEXTANT_CUDA_CHECK(cudaStreamSynchronize(s));
}

CountPlan aggregate_count_host(int ordinal, const CountWindowArgs& host, CountAlgorithm algorithm,
                               GpuWorkspace* workspace) {
  const ColumnView& in_host = host.in;
  const MutableColumnView& out_host = host.out;
  const CountWindowSpec& spec = host.spec;
  check_columns(in_host, out_host, spec, host.kind, host.positions);
  check_ordinal(ordinal);
  ::sextant::gpu::ScopedDevice scope(ordinal);
  const auto body = [&](GpuWorkspace& ws) {
    const std::uint64_t windows = spec.window_count(in_host.size);
    // Only the values some window reads travel.
    const std::uint64_t used = spec.used_length(in_host.size);
    const std::size_t in_bytes = used * size_of(in_host.type);
    const std::size_t out_bytes = windows * size_of(out_host.type);
    // The positions follow the values in the same slot, 8-byte aligned.
    const std::size_t positions_at = (out_bytes + 7) / 8 * 8;
    const std::size_t positions_bytes = host.positions != nullptr ? windows * sizeof(std::int64_t) : 0;
    void* in_dev = ws.reserve(detail::host_in_slot, in_bytes);
    auto* out_dev = static_cast<char*>(ws.reserve(detail::host_out_slot, positions_at + positions_bytes));
    auto* positions_dev =
        host.positions != nullptr ? reinterpret_cast<std::int64_t*>(out_dev + positions_at) : nullptr;
    if (in_bytes != 0) SEXTANT_CUDA_CHECK(cudaMemcpy(in_dev, in_host.data, in_bytes, cudaMemcpyHostToDevice));
    const CountWindowArgs args{ColumnView(in_host.type, in_dev, used),
                               MutableColumnView(out_host.type, out_dev, windows), spec, host.kind,
                               positions_dev};
    const CountPlan plan = run_device(ordinal, args, algorithm, ws, nullptr);
    if (out_bytes != 0)
      SEXTANT_CUDA_CHECK(cudaMemcpy(out_host.data, out_dev, out_bytes, cudaMemcpyDeviceToHost));
    if (positions_bytes != 0)
      SEXTANT_CUDA_CHECK(cudaMemcpy(host.positions, positions_dev, positions_bytes, cudaMemcpyDeviceToHost));
    return plan;
  };
  if (workspace != nullptr) return body(*workspace);
  DefaultWorkspace& own = default_workspace(ordinal);
  std::lock_guard lock(own.mutex);
  return body(*own.workspace);
}

namespace {

__device__ __forceinline__ std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <class T>
__global__ void fill_random_kernel(T* out, std::uint64_t count, std::uint64_t base) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride) {
    const std::uint64_t r = mix64(base + i * 0xD1B54A32D192ED03ull);
    if constexpr (std::is_same_v<T, std::int32_t>)
      out[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(r >> 32));
    else if constexpr (std::is_same_v<T, std::int64_t>)
      out[i] = static_cast<std::int64_t>(r >> 23) - (std::int64_t{1} << 40);
    else
      out[i] = static_cast<T>(-1000.0 + 2000.0 * (static_cast<double>(r >> 11) * 0x1.0p-53));
  }
}

}  // namespace

std::vector<double> time_plan(int ordinal, const CountPlan& plan, const CountWindowArgs& args,
                              GpuWorkspace& workspace, int warmups, int repeats) {
  check_device_args(ordinal, args);
  std::vector<double> seconds;
  if (args.problem().windows() == 0) return seconds;
  ::sextant::gpu::ScopedDevice scope(ordinal);
  for (int i = 0; i < warmups; ++i) launch(plan, args, workspace, nullptr);
  SEXTANT_CUDA_CHECK(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  SEXTANT_CUDA_CHECK(cudaEventCreate(&start));
  SEXTANT_CUDA_CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < repeats; ++i) {
    SEXTANT_CUDA_CHECK(cudaEventRecord(start));
    launch(plan, args, workspace, nullptr);
    SEXTANT_CUDA_CHECK(cudaEventRecord(stop));
    SEXTANT_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    SEXTANT_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    seconds.push_back(ms * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return seconds;
}

DeviceColumn::DeviceColumn(int ordinal, ValueType type, std::size_t size, std::size_t offset)
    : ordinal_(ordinal), type_(type), size_(size), offset_(offset) {
  check_ordinal(ordinal);
  ::sextant::gpu::ScopedDevice scope(ordinal);
  SEXTANT_CUDA_CHECK(cudaMalloc(&data_, std::max<std::size_t>(1, (size + offset) * size_of(type))));
}

DeviceColumn::~DeviceColumn() {
  if (data_ != nullptr) cudaFree(data_);  // no throw from a destructor
}

ColumnView DeviceColumn::view() const noexcept {
  return ColumnView(type_, static_cast<const char*>(data_) + offset_ * size_of(type_), size_);
}

MutableColumnView DeviceColumn::mutable_view() noexcept {
  return MutableColumnView(type_, static_cast<char*>(data_) + offset_ * size_of(type_), size_);
}

void DeviceColumn::upload(const ColumnView& host) {
  if (host.type != type_ || host.size != size_)
    throw Error::argument("host", std::to_string(host.size) + " " + std::string(to_string(host.type)),
                          std::to_string(size_) + " " + std::string(to_string(type_)),
                          "column shape differs");
  ::sextant::gpu::ScopedDevice scope(ordinal_);
  if (size_ != 0)
    SEXTANT_CUDA_CHECK(
        cudaMemcpy(mutable_view().data, host.data, size_ * size_of(type_), cudaMemcpyHostToDevice));
}

Column DeviceColumn::download() const {
  Column out = make_column(type_, size_);
  ::sextant::gpu::ScopedDevice scope(ordinal_);
  if (size_ != 0)
    SEXTANT_CUDA_CHECK(cudaMemcpy(window::mutable_view(out).data, view().data, size_ * size_of(type_),
                                  cudaMemcpyDeviceToHost));
  return out;
}

Column DeviceColumn::download(std::size_t first, std::size_t count) const {
  if (first > size_ || count > size_ - first)
    throw Error::argument("range", std::to_string(first) + "+" + std::to_string(count),
                          "within " + std::to_string(size_), "outside the column");
  Column out = make_column(type_, count);
  ::sextant::gpu::ScopedDevice scope(ordinal_);
  if (count != 0)
    SEXTANT_CUDA_CHECK(cudaMemcpy(window::mutable_view(out).data,
                                  static_cast<const char*>(view().data) + first * size_of(type_),
                                  count * size_of(type_), cudaMemcpyDeviceToHost));
  return out;
}

void DeviceColumn::fill_random(std::uint64_t seed) {
  ::sextant::gpu::ScopedDevice scope(ordinal_);
  std::uint64_t base = seed + 0x9E3779B97F4A7C15ull;  // splitmix64(seed), as datagen::generate_column
  base = (base ^ (base >> 30)) * 0xBF58476D1CE4E5B9ull;
  base = (base ^ (base >> 27)) * 0x94D049BB133111EBull;
  base ^= base >> 31;
  visit_value_type(type_, [&](auto t) {
    using T = decltype(t);
    if (size_ == 0) return;
    fill_random_kernel<T><<<detail::grid_for(size_, 256 * 16, 65535), 256>>>(
        static_cast<T*>(mutable_view().data), size_, base);
    SEXTANT_CUDA_CHECK_LAUNCH();
  });
  SEXTANT_CUDA_CHECK(cudaDeviceSynchronize());
}

void DeviceColumn::fill_bytes(unsigned char byte) {
  ::sextant::gpu::ScopedDevice scope(ordinal_);
  SEXTANT_CUDA_CHECK(cudaMemset(data_, byte, std::max<std::size_t>(1, (size_ + offset_) * size_of(type_))));
}

}  // namespace sextant::window::gpu
