// The target that builds the tests' precompiled header (tests/CMakeLists.txt); it has no tests.
#include <gtest/gtest.h>
