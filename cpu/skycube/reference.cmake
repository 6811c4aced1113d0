target_sources(sextant_cpu PRIVATE skycube/reference_skycube.cpp)
