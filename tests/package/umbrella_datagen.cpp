// <sextant/datagen.hpp> compiles on its own and declares the readers and generators.
#include <sextant/datagen.hpp>
#include <type_traits>

static_assert(std::is_class_v<sextant::datagen::StreamGeneratorSpec>);
