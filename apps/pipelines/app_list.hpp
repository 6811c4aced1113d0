// The pipeline applications (apps/pipelines) that the backends and the front door instantiate, and
// the name each one's rates are remembered under by the scheduler. Listed once:
// SEXTANT_FOR_EACH_PIPELINE_APP(X) calls X(PipelineType) per application.
#pragma once

#include <string_view>

#include "apps/pipelines/blast.hpp"
#include "apps/pipelines/nqueens.hpp"
#include "apps/pipelines/synthetic.hpp"
#include "apps/pipelines/taxi.hpp"

namespace sextant::pipeline {

template <class P>
inline constexpr std::string_view pipeline_app_name = "pipeline";
template <>
inline constexpr std::string_view pipeline_app_name<apps::blast::BlastPipeline> = "pipeline blast";
template <>
inline constexpr std::string_view pipeline_app_name<apps::nqueens::NQueensPipeline> = "pipeline nqueens";
template <>
inline constexpr std::string_view pipeline_app_name<apps::taxi::TaxiPipeline> = "pipeline taxi";
template <>
inline constexpr std::string_view pipeline_app_name<apps::synthetic::SyntheticPipeline> =
    "pipeline synthetic";

}  // namespace sextant::pipeline

#define SEXTANT_FOR_EACH_PIPELINE_APP(X)                 \
  X(::sextant::pipeline::apps::blast::BlastPipeline)     \
  X(::sextant::pipeline::apps::nqueens::NQueensPipeline) \
  X(::sextant::pipeline::apps::taxi::TaxiPipeline)       \
  X(::sextant::pipeline::apps::synthetic::SyntheticPipeline)
