// Data in and out: datasets (CSV, Sextant's binary format), the skyline benchmark generators,
// single value columns and out-of-order streams for the window families.
#pragma once

#include "sextant/datagen/binary.hpp"
#include "sextant/datagen/column_file.hpp"
#include "sextant/datagen/csv.hpp"
#include "sextant/datagen/skyline_generator.hpp"
#include "sextant/datagen/stream_csv.hpp"
#include "sextant/datagen/stream_generator.hpp"
