# MDMC's shared read-only structure: the static quad tree.
target_sources(sextant_templates PRIVATE skycube/quad_tree.cpp)
