// The GPU stream-window stages for argmax over the four value types (one file per aggregate, so
// that the instantiations compile in parallel).
#include "gpu/window/stream_gpu_impl.cuh"

SEXTANT_STREAM_GPU_FOR_VALUES(SEXTANT_STREAM_GPU_INSTANTIATE, ::sextant::window::ArgMaxAggregate)
