// The window families: count windows over a column (aggregate_count, docs/window_count.md) and
// sliding windows over out-of-order keyed streams (StreamWindow, docs/window_stream.md), with their
// specs, aggregates, batch types, hook concepts and the stream operator template.
#pragma once

#include "sextant/api/stream_window.hpp"
#include "sextant/api/window_count.hpp"
#include "sextant/templates/window/count_window.hpp"
#include "sextant/templates/window/count_window_hooks.hpp"
#include "sextant/templates/window/stream_aggregates.hpp"
#include "sextant/templates/window/stream_batch.hpp"
#include "sextant/templates/window/stream_hooks.hpp"
#include "sextant/templates/window/stream_operator.hpp"
#include "sextant/templates/window/stream_spec.hpp"
