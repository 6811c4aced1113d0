# Pipelines (paper 003): the front door, instantiated for the applications of apps/pipelines.
target_sources(sextant_api PRIVATE pipeline.cpp)
target_link_libraries(sextant_api PUBLIC sextant_pipeline_apps)
