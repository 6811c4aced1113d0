#include "datagen/pubsub_generator.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "core/number_format.hpp"
#include "datagen/portable_math.hpp"

namespace sextant::datagen {

using matching::Op;
using matching::RawValue;
using matching::ValueType;

OpMix PubSubSpec::default_numeric_ops() noexcept {
  OpMix m{};
  m[static_cast<int>(Op::eq)] = m[static_cast<int>(Op::ne)] = m[static_cast<int>(Op::lt)] =
      m[static_cast<int>(Op::gt)] = 25;
  return m;
}

OpMix PubSubSpec::default_string_ops() noexcept {
  OpMix m{};
  m[static_cast<int>(Op::eq)] = m[static_cast<int>(Op::ne)] = m[static_cast<int>(Op::prefix)] =
      m[static_cast<int>(Op::suffix)] = 25;
  return m;
}

OpMix parse_op_mix(const char* parameter, std::string_view text, ValueType type) {
  OpMix mix{};
  const std::string valid = std::string("op:weight,... with ops of a ") +
                            std::string(matching::to_string(type)) + " (" +
                            std::string(matching::ops_for(type)) + ") and weights > 0, e.g. =:25,!=:25";
  std::string_view rest = text;
  double total = 0;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const std::size_t colon = item.rfind(':');
    if (colon == std::string_view::npos)
      throw Error::argument(parameter, text, valid, "'" + std::string(item) + "' has no weight");
    const auto op = matching::parse_op(item.substr(0, colon));
    if (!op || !matching::op_accepts(*op, type))
      throw Error::argument(parameter, text, valid,
                            "'" + std::string(item.substr(0, colon)) + "' is not an operator of a " +
                                std::string(matching::to_string(type)));
    double w = 0;
    const std::string_view ws = item.substr(colon + 1);
    const auto [p, ec] = std::from_chars(ws.data(), ws.data() + ws.size(), w);
    if (ec != std::errc{} || p != ws.data() + ws.size() || !std::isfinite(w) || w < 0)
      throw Error::argument(parameter, text, valid, "'" + std::string(ws) + "' is not a weight");
    mix[static_cast<int>(*op)] += w;
    total += w;
  }
  if (!(total > 0)) throw Error::argument(parameter, text, valid, "no positive weight");
  return mix;
}

std::string to_string(const OpMix& mix) {
  std::string out;
  for (int i = 0; i < matching::op_count; ++i) {
    if (mix[i] <= 0) continue;
    if (!out.empty()) out += ',';
    out += matching::to_string(static_cast<Op>(i));
    out += ':';
    append_number(out, mix[i]);
  }
  return out;
}

void PubSubSpec::set_total_constraints(std::uint64_t constraints) {
  const double per_filter = (min_constraints + max_constraints) / 2.0;
  const double mean =
      static_cast<double>(constraints) / (std::max<std::uint32_t>(interfaces, 1) * per_filter);
  min_filters = static_cast<std::uint64_t>(std::max(1.0, std::round(mean * 0.9)));
  max_filters = static_cast<std::uint64_t>(std::max(1.0, std::round(mean * 1.1)));
}

bool PubSubSpec::string_name(std::uint32_t i) const noexcept {
  const double s = 1.0 - numeric_share;
  return std::floor((i + 1) * s) > std::floor(i * s);
}

namespace {

void check(bool ok, const char* parameter, const std::string& value, const std::string& valid) {
  if (!ok) throw Error::argument(parameter, value, valid);
}

std::string range(std::uint64_t lo, std::uint64_t hi) {
  return std::to_string(lo) + "-" + std::to_string(hi);
}

bool mix_for(const OpMix& mix, ValueType type) {
  double total = 0;
  for (int i = 0; i < matching::op_count; ++i) {
    if (mix[i] < 0 || !std::isfinite(mix[i])) return false;
    if (mix[i] > 0 && !matching::op_accepts(static_cast<Op>(i), type)) return false;
    total += mix[i];
  }
  return total > 0;
}

}  // namespace

void PubSubSpec::validate() const {
  constexpr std::uint64_t max_total = std::uint64_t{1} << 32;
  check(events <= (std::uint64_t{1} << 36), "events", std::to_string(events), "0 .. 2^36");
  check(names >= 1 && names <= (1u << 24), "names", std::to_string(names), "1 .. 16777216");
  check(min_attributes <= max_attributes && max_attributes <= names, "attributes",
        range(min_attributes, max_attributes),
        "min <= max <= names (" + std::to_string(names) + "): an event's names are distinct");
  check(min_constraints >= 1 && min_constraints <= max_constraints && max_constraints <= names, "constraints",
        range(min_constraints, max_constraints),
        "1 <= min <= max <= names (" + std::to_string(names) + "): a filter's names are distinct");
  check(interfaces >= 1 && interfaces <= (1u << 20), "interfaces", std::to_string(interfaces),
        "1 .. 1048576");
  check(min_filters <= max_filters && max_filters <= max_total, "filters", range(min_filters, max_filters),
        "min <= max <= 2^32 per interface");
  check(
      static_cast<double>(max_filters) * interfaces * max_constraints <= static_cast<double>(max_total) * 16,
      "filters", range(min_filters, max_filters), "at most 2^36 constraints in all");
  check(std::isfinite(zipf) && zipf >= 0 && zipf <= 10, "zipf", format_number(zipf),
        "0 (uniform names) .. 10");
  check(std::isfinite(numeric_share) && numeric_share >= 0 && numeric_share <= 1, "numeric share",
        format_number(numeric_share), "0 .. 1");
  check(values >= 1 && values <= (1u << 30), "values", std::to_string(values), "1 .. 2^30");
  check(mix_for(numeric_ops, ValueType::int64), "ops", to_string(numeric_ops),
        "weights of =, !=, <, <=, >, >=");
  check(mix_for(string_ops, ValueType::string), "string ops", to_string(string_ops),
        "weights of =, !=, prefix, suffix, substring");
}

std::string PubSubSpec::describe() const {
  std::string out =
      "interfaces=" + std::to_string(interfaces) + " filters=" + range(min_filters, max_filters) +
      " constraints=" + range(min_constraints, max_constraints) +
      " attributes=" + range(min_attributes, max_attributes) + " names=" + std::to_string(names);
  out += zipf > 0 ? " zipf=" + format_number(zipf) : std::string(" uniform");
  out += " values=" + std::to_string(values) + " numeric=" + format_number(numeric_share * 100) + "%";
  out += " ops=" + to_string(numeric_ops);
  if (numeric_share < 1) out += " string-ops=" + to_string(string_ops);
  out += " events=" + std::to_string(events) + " seed=" + std::to_string(seed);
  return out;
}

namespace {

// Random draws of one filter or event: splitmix64 at (stream, index).
class Draws {
 public:
  Draws(std::uint64_t seed, std::uint64_t item)
      : seed_(detail::mix64(seed ^ detail::mix64(item + 0x51ED27A5ull))) {}
  std::uint64_t next() noexcept { return detail::splitmix64_at(seed_, i_++); }
  std::uint64_t below(std::uint64_t n) noexcept { return detail::below(next(), n); }
  double unit() noexcept { return detail::unit_interval(next()); }

 private:
  std::uint64_t seed_;
  std::uint64_t i_ = 0;
};

class Generator {
 public:
  explicit Generator(const PubSubSpec& spec) : spec_(spec) {
    spec.validate();
    if (spec.zipf > 0) {
      cdf_.resize(spec.names);
      double total = 0;
      for (std::uint32_t r = 0; r < spec.names; ++r) {
        total += detail::portable_exp(-spec.zipf * detail::portable_log(static_cast<double>(r) + 1));
        cdf_[r] = total;
      }
    }
    for (const OpMix* mix : {&spec.numeric_ops, &spec.string_ops}) {
      std::vector<double>& c = mix == &spec.numeric_ops ? numeric_cdf_ : string_cdf_;
      double total = 0;
      for (int i = 0; i < matching::op_count; ++i) c.push_back(total += (*mix)[i]);
    }
    letters_ = 1;
    for (std::uint64_t span = 26; span < spec.values; span *= 26) ++letters_;
  }

  std::uint32_t name(Draws& d) const {
    if (cdf_.empty()) return static_cast<std::uint32_t>(d.below(spec_.names));
    const double u = d.unit() * cdf_.back();
    const auto r = std::upper_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin();
    return static_cast<std::uint32_t>(
        std::min<std::ptrdiff_t>(r, static_cast<std::ptrdiff_t>(spec_.names) - 1));
  }
  // `count` distinct names (with a steep Zipf, rare names may take long to draw: after 64 tries
  // per name the most frequent unused ranks complete the set).
  void names(Draws& d, std::uint32_t count, std::vector<std::uint32_t>& out) const {
    out.clear();
    for (std::uint64_t tries = 0; out.size() < count && tries < 64ull * count; ++tries) {
      const std::uint32_t n = name(d);
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
    for (std::uint32_t n = 0; out.size() < count; ++n)
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  Op op(Draws& d, bool string) const {
    const std::vector<double>& c = string ? string_cdf_ : numeric_cdf_;
    const double u = d.unit() * c.back();
    const auto i = std::upper_bound(c.begin(), c.end(), u) - c.begin();
    return static_cast<Op>(std::min<std::ptrdiff_t>(i, matching::op_count - 1));
  }
  std::string word(std::uint64_t k) const {
    std::string w(letters_ + 1, 's');
    for (std::uint32_t i = letters_; i >= 1; --i, k /= 26) w[i] = static_cast<char>('a' + k % 26);
    return w;
  }
  std::uint32_t count(Draws& d, std::uint32_t lo, std::uint32_t hi) const {
    return lo + static_cast<std::uint32_t>(d.below(std::uint64_t{hi} - lo + 1));
  }

  const PubSubSpec& spec_;
  std::vector<double> cdf_, numeric_cdf_, string_cdf_;
  std::uint32_t letters_ = 1;
};

std::vector<std::uint32_t> intern_names(const PubSubSpec& spec, matching::NameDictionary& names) {
  std::vector<std::uint32_t> out(spec.names);
  for (std::uint32_t i = 0; i < spec.names; ++i) out[i] = names.intern("n" + std::to_string(i));
  return out;
}

}  // namespace

matching::FilterSet generate_filters(const PubSubSpec& spec) {
  const Generator g(spec);
  matching::FilterSet out;
  const std::vector<std::uint32_t> ids = intern_names(spec, out.names);
  std::vector<std::uint32_t> chosen;
  std::uint64_t filter = 0;
  for (std::uint32_t iface = 0; iface < spec.interfaces; ++iface) {
    Draws per_interface(spec.seed ^ 0xF11735ull, iface);
    const std::uint64_t filters =
        spec.min_filters + per_interface.below(spec.max_filters - spec.min_filters + 1);
    for (std::uint64_t k = 0; k < filters; ++k, ++filter) {
      Draws d(spec.seed, filter);
      g.names(d, g.count(d, spec.min_constraints, spec.max_constraints), chosen);
      for (const std::uint32_t n : chosen) {
        const bool string = spec.string_name(n);
        const Op op = g.op(d, string);
        const std::uint64_t v = d.below(spec.values);
        if (!string) {
          out.add_constraint(ids[n], op, ValueType::int64, {v, 0});
          continue;
        }
        const std::string w = g.word(v);
        std::string_view part = w;
        if (op == Op::prefix || op == Op::suffix || op == Op::substring) {
          const std::uint64_t len = 1 + d.below(w.size());
          const std::uint64_t at = op == Op::prefix   ? 0
                                   : op == Op::suffix ? w.size() - len
                                                      : d.below(w.size() - len + 1);
          part = part.substr(at, len);
        }
        out.add_constraint(ids[n], op, ValueType::string, {out.strings.size(), part.size()});
        out.strings += part;
      }
      out.end_filter(filter, iface);
    }
  }
  return out;
}

matching::EventBatch generate_events(const PubSubSpec& spec) {
  const Generator g(spec);
  matching::EventBatch out;
  const std::vector<std::uint32_t> ids = intern_names(spec, out.names);
  std::vector<std::uint32_t> chosen;
  for (std::uint64_t e = 0; e < spec.events; ++e) {
    Draws d(spec.seed ^ 0xE7E27ull, e);
    g.names(d, g.count(d, spec.min_attributes, spec.max_attributes), chosen);
    for (const std::uint32_t n : chosen) {
      const std::uint64_t v = d.below(spec.values);
      if (!spec.string_name(n)) {
        out.add_attribute(ids[n], ValueType::int64, {v, 0});
        continue;
      }
      const std::string w = g.word(v);
      out.add_attribute(ids[n], ValueType::string, {out.strings.size(), w.size()});
      out.strings += w;
    }
    out.end_event(e);
  }
  return out;
}

}  // namespace sextant::datagen
