# The pipeline applications (paper 003): node definitions (headers, compiled by each backend), input
# generators, loaders and result formats. Shared by the front door (api/pipeline.cmake includes this
# file, so the library exists without SEXTANT_BUILD_APPS: the Python package's own build has no apps),
# the command line, the tests and the benchmarks.
sextant_library(sextant_pipeline_apps
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/synthetic.cpp ${CMAKE_CURRENT_LIST_DIR}/nqueens.cpp
          ${CMAKE_CURRENT_LIST_DIR}/blast.cpp ${CMAKE_CURRENT_LIST_DIR}/taxi.cpp
  DEPENDS sextant_templates)
