# The shared part of the lattice-traversal templates (STSC, SDSC). Paths relative to templates/.
target_sources(sextant_templates PRIVATE skycube/lattice_traversal.cpp)
