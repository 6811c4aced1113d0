# Count-based window aggregation on the GPU (paper 001): the six algorithms (one translation
# unit each, so they compile in parallel), the selector's calibration and the entry points.
target_sources(sextant_gpu PRIVATE window/count_window_gpu.cu window/calibration.cu window/gbl.cu window/sh.cu
                                   window/coop.cu window/prefix.cu window/block_scan.cu)
