// A small "--name value" parser for the sextant subcommands (apps/) and the bench drivers
// (bench/), library sextant_arguments: every option is declared with its help text, unknown
// options and missing values are errors naming the option.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sextant::cli {

class Arguments {
 public:
  struct Option {
    std::string name;        // without "--"
    std::string value_name;  // empty for a flag
    std::string help;
  };

  Arguments(std::string command, std::vector<Option> options);
  // Parses argv[first..]; throws Error on unknown options or missing values.
  void parse(int argc, char** argv, int first);

  bool has(std::string_view name) const;
  std::optional<std::string> get(std::string_view name) const;
  std::string get_or(std::string_view name, std::string fallback) const;
  // A list option ("a,b,c", empty items skipped), or `fallback` parsed the same way.
  std::vector<std::string> get_list(std::string_view name, std::string fallback, char separator = ',') const;
  std::string require(std::string_view name) const;
  // Integer option within [min, max]; throws Error naming the option and the range.
  long long get_int(std::string_view name, long long fallback, long long min, long long max) const;

  std::string usage() const;

 private:
  const Option* find(std::string_view name) const;
  std::string command_;
  std::vector<Option> options_;
  std::map<std::string, std::string, std::less<>> values_;
};

}  // namespace sextant::cli
