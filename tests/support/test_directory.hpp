// A scratch directory path for the running test: <tmp>/<prefix>-<pid>-<suite>-<test>, one level deep
// (the '/' of parameterised suites and tests, "Signals/Suite" and "Name/1", become '-'), so that a
// fixture's remove_all in TearDown leaves nothing behind.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>

namespace sextant::testing {

inline std::filesystem::path test_directory(std::string_view prefix) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(prefix) + "-" + std::to_string(::getpid()) + "-" + test->test_suite_name() +
                     "-" + test->name();
  std::replace(name.begin(), name.end(), '/', '-');
  return std::filesystem::temp_directory_path() / name;
}

}  // namespace sextant::testing
