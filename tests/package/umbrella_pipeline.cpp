// <sextant/pipeline.hpp> compiles on its own and declares the pipeline family.
#include <sextant/pipeline.hpp>
#include <type_traits>

static_assert(sextant::pipeline::PipelineNode<sextant::pipeline::apps::blast::SeedMatch>);
static_assert(sextant::pipeline::apps::nqueens::NQueensPipeline::size == 10);
static_assert(std::is_class_v<sextant::pipeline::PipelineOptions>);
