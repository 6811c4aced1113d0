// Content-based publish/subscribe matching (paper 002, docs/matching.md): the Matcher front door,
// the data model (values, constraints, filters, events, results), the columns and tables, the hook
// concepts and the template, and the pub/sub workload generator with its text and binary formats.
#pragma once

#include "sextant/api/matcher.hpp"
#include "sextant/datagen/pubsub_binary.hpp"
#include "sextant/datagen/pubsub_generator.hpp"
#include "sextant/datagen/pubsub_text.hpp"
#include "sextant/templates/matching/columns.hpp"
#include "sextant/templates/matching/hooks.hpp"
#include "sextant/templates/matching/match_results.hpp"
#include "sextant/templates/matching/match_template.hpp"
#include "sextant/templates/matching/model.hpp"
#include "sextant/templates/matching/tables.hpp"
#include "sextant/templates/matching/value.hpp"
