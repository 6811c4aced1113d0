# Pipelines (paper 003): the front door, instantiated for the applications of apps/pipelines (whose
# library is defined here, since apps/ is added after api/ and only with SEXTANT_BUILD_APPS).
include(${PROJECT_SOURCE_DIR}/apps/pipelines/pipelines.cmake)
target_sources(sextant_api PRIVATE pipeline.cpp)
target_link_libraries(sextant_api PUBLIC sextant_pipeline_apps)
