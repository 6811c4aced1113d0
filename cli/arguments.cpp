#include "cli/arguments.hpp"

#include <algorithm>
#include <charconv>

#include "core/error.hpp"

namespace sextant::cli {

Arguments::Arguments(std::string command, std::vector<Option> options)
    : command_(std::move(command)), options_(std::move(options)) {}

const Arguments::Option* Arguments::find(std::string_view name) const {
  for (const auto& o : options_)
    if (o.name == name) return &o;
  return nullptr;
}

void Arguments::parse(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (!arg.starts_with("--"))
      throw Error::argument(command_, arg,
                            "options of the form --name [value]; see 'sextant " + command_ + " --help'",
                            "unexpected argument");
    std::string_view name = arg.substr(2);
    std::optional<std::string_view> inline_value;
    if (const auto eq = name.find('='); eq != std::string_view::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const Option* opt = find(name);
    if (opt == nullptr)
      throw Error::argument(command_, arg, "see 'sextant " + command_ + " --help'", "unknown option");
    if (values_.contains(name))
      throw Error::argument(std::string("--") + std::string(name), arg, "once", "given twice");
    if (opt->value_name.empty()) {
      if (inline_value)
        throw Error::argument(std::string("--") + std::string(name), arg, "no value", "is a flag");
      values_.emplace(std::string(name), "");
    } else if (inline_value) {
      values_.emplace(std::string(name), std::string(*inline_value));
    } else {
      if (i + 1 >= argc)
        throw Error::argument(std::string("--") + std::string(name), "", opt->value_name, "missing value");
      values_.emplace(std::string(name), argv[++i]);
    }
  }
}

bool Arguments::has(std::string_view name) const {
  return values_.find(name) != values_.end();
}

std::optional<std::string> Arguments::get(std::string_view name) const {
  if (auto it = values_.find(name); it != values_.end()) return it->second;
  return std::nullopt;
}

std::string Arguments::get_or(std::string_view name, std::string fallback) const {
  auto v = get(name);
  return v ? *v : std::move(fallback);
}

std::string Arguments::require(std::string_view name) const {
  auto v = get(name);
  if (!v) {
    const Option* opt = find(name);
    throw Error::argument(std::string("--") + std::string(name), "", opt ? opt->value_name : "a value",
                          "is required by 'sextant " + command_ + "'");
  }
  return *v;
}

long long Arguments::get_int(std::string_view name, long long fallback, long long min, long long max) const {
  const auto v = get(name);
  if (!v) return fallback;
  long long out = 0;
  const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc{} || end != v->data() + v->size() || out < min || out > max)
    throw Error::argument(std::string("--") + std::string(name), *v,
                          "an integer in " + std::to_string(min) + ".." + std::to_string(max),
                          "out of range");
  return out;
}

std::string Arguments::usage() const {
  std::string out = "usage: sextant " + command_ + " [options]\n";
  for (const auto& o : options_) {
    std::string left = "  --" + o.name + (o.value_name.empty() ? "" : " " + o.value_name);
    if (left.size() < 34) left.resize(34, ' ');
    out += left + " " + o.help + "\n";
  }
  return out;
}

std::vector<std::string> Arguments::get_list(std::string_view name, std::string fallback,
                                             char separator) const {
  const std::string text = get_or(name, std::move(fallback));
  std::vector<std::string> out;
  for (std::size_t begin = 0; begin <= text.size();) {
    const std::size_t end = std::min(text.find(separator, begin), text.size());
    if (end > begin) out.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

}  // namespace sextant::cli
