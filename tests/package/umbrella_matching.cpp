// <sextant/matching.hpp> compiles on its own and declares the matching family.
#include <sextant/matching.hpp>
#include <type_traits>

static_assert(std::is_class_v<sextant::matching::Matcher>);
static_assert(std::is_class_v<sextant::matching::MatchResults>);
static_assert(std::is_class_v<sextant::matching::MatchTables>);
