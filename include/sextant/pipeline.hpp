// Irregular streaming pipelines (docs/pipeline.md): the node concept and the pipeline type list, merge
// plans, queue sizing, instrumentation and the merge model, the front door (run, profile, plan) and
// the four applications it runs (BLAST-like seed and extend, N-Queens, Taxi-like parsing, synthetic
// gains).
#pragma once

#include "sextant/api/pipeline.hpp"
#include "sextant/apps/pipelines/blast.hpp"
#include "sextant/apps/pipelines/nqueens.hpp"
#include "sextant/apps/pipelines/synthetic.hpp"
#include "sextant/apps/pipelines/taxi.hpp"
#include "sextant/templates/pipeline/firing_policy.hpp"
#include "sextant/templates/pipeline/hooks.hpp"
#include "sextant/templates/pipeline/merge_model.hpp"
#include "sextant/templates/pipeline/merge_plan.hpp"
#include "sextant/templates/pipeline/pack.hpp"
#include "sextant/templates/pipeline/pipeline.hpp"
#include "sextant/templates/pipeline/pipeline_policy.hpp"
#include "sextant/templates/pipeline/profile.hpp"
#include "sextant/templates/pipeline/replica_layout.hpp"
#include "sextant/templates/pipeline/run_request.hpp"
#include "sextant/templates/pipeline/run_spec.hpp"
#include "sextant/templates/pipeline/sizing.hpp"
