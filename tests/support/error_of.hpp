// error_of(f, kind): runs f, expects it to throw sextant::Error of `kind`, and returns the
// message (empty, with a test failure, when nothing or something else was thrown).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"

namespace sextant::testing {

template <class F>
std::string error_of(F&& f, ErrorKind kind) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(kind)) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected an Error";
  return {};
}

}  // namespace sextant::testing
