# The pipeline applications (paper 003): node definitions (headers, compiled by each backend), input
# generators, loaders and result formats. Shared by the command line, the tests and the benchmarks.
sextant_library(sextant_pipeline_apps
  SOURCES pipelines/synthetic.cpp pipelines/nqueens.cpp pipelines/blast.cpp pipelines/taxi.cpp
  DEPENDS sextant_templates)
