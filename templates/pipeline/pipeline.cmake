# Irregular streaming pipelines (paper 003): merge plans, queue sizing, layouts, instrumentation and
# the merge model. The node concept, the type list and the firing policy are headers.
target_sources(sextant_templates PRIVATE pipeline/merge_plan.cpp pipeline/sizing.cpp pipeline/replica_layout.cpp
                                         pipeline/profile.cpp pipeline/merge_model.cpp pipeline/run_request.cpp)
