target_sources(sextant_cpu PRIVATE skycube/reference_skycube.cpp skycube/reference_backend.cpp)
