// Page-locked host to device copy bandwidth, the link a GPU stream push crosses.
// nvcc -O2 h2d.cu -o h2d; ./h2d
#include <cstdio>

int main() {
  const size_t bytes = size_t{256} << 20;
  void *host = nullptr, *dev = nullptr;
  cudaMallocHost(&host, bytes);
  cudaMalloc(&dev, bytes);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int rep = 0; rep < 4; ++rep) {
    cudaEventRecord(a, s);
    for (int i = 0; i < 8; ++i) cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s);
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    std::printf("H2D pinned, 8 x 256 MiB: %.1f GB/s\n", 8.0 * bytes / (ms * 1e-3) / 1e9);
  }
  std::printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
