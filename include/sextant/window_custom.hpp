// User-defined stream aggregates in the ready-made StreamWindow: StreamWindow::with_aggregate<A>
// (api/stream_window_custom.hpp). It brings in the CPU stream backend's templates, which are
// instantiated in the including translation unit; include it only where a custom aggregate runs.
#pragma once

#include "sextant/api/stream_window_custom.hpp"
#include "sextant/window.hpp"
