# Sliding windows over out-of-order streams (paper 000): specs, geometry and aggregate names.
target_sources(sextant_templates PRIVATE window/stream_spec.cpp)
