# Count-based window aggregation (paper 001): spec, traits, hooks and the selector's cost model.
target_sources(sextant_templates PRIVATE window/count_window.cpp window/count_window_planner.cpp)
