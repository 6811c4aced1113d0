// The argument parser's list options (cli/arguments.hpp), as the bench drivers use them.
#include "cli/arguments.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sextant::cli {
namespace {

Arguments parsed(std::vector<std::string> argv) {
  Arguments args("test", {{"n", "LIST", "sizes"}, {"d", "LIST", "dimensions"}});
  std::vector<char*> raw;
  for (std::string& a : argv) raw.push_back(a.data());
  args.parse(static_cast<int>(raw.size()), raw.data(), 0);
  return args;
}

TEST(Arguments, ListsSkipEmptyItemsAndFallBack) {
  const Arguments args = parsed({"--n", ",100,,2000,", "--d", "x;y"});
  EXPECT_EQ(args.get_list("n", "7"), (std::vector<std::string>{"100", "2000"}));
  EXPECT_EQ(args.get_list("d", "", ';'), (std::vector<std::string>{"x", "y"}));
  const Arguments none = parsed({});
  EXPECT_EQ(none.get_list("n", "4,8"), (std::vector<std::string>{"4", "8"}));
  EXPECT_TRUE(none.get_list("n", "").empty());
  EXPECT_TRUE(none.get_list("n", ",,").empty());
}

}  // namespace
}  // namespace sextant::cli
