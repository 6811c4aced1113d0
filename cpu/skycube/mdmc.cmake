# MDMC's CPU specialisation: the hook (with per-ISA kernel instantiations) and the public entry.
target_sources(sextant_cpu PRIVATE skycube/mdmc_cpu.cpp skycube/mdmc_cpu_scalar.cpp skycube/mdmc_cpu_avx2.cpp
                                   skycube/mdmc_skycube_cpu.cpp)
sextant_avx2_sources(skycube/mdmc_cpu_avx2.cpp)
# Transitional: the public entry needs the CPU extended skyline hook, which another fragment adds.
get_target_property(_sextant_cpu_sources sextant_cpu SOURCES)
if("skycube/extended_skyline_cpu.cpp" IN_LIST _sextant_cpu_sources)
  set_source_files_properties(skycube/mdmc_skycube_cpu.cpp PROPERTIES COMPILE_DEFINITIONS SEXTANT_MDMC_HAS_EXTENDED_SKYLINE)
endif()
