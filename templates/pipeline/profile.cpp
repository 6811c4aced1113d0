#include "templates/pipeline/profile.hpp"

#include <algorithm>
#include <cstdio>

namespace sextant::pipeline {

namespace {

void add_histogram(std::vector<std::uint64_t>& into, const std::vector<std::uint64_t>& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (std::size_t i = 0; i < from.size(); ++i) into[i] += from[i];
}

}  // namespace

void NodeCounters::add(const NodeCounters& o) {
  inputs += o.inputs;
  outputs += o.outputs;
  vectors += o.vectors;
  full_vectors += o.full_vectors;
  service += o.service;
  overhead += o.overhead;
  add_histogram(full_max_gain, o.full_max_gain);
  add_histogram(any_max_gain, o.any_max_gain);
}

void RunCounters::add(const RunCounters& o) {
  switches += o.switches;
  firings += o.firings;
  chunks += o.chunks;
  if (nodes.size() < o.nodes.size()) nodes.resize(o.nodes.size());
  for (std::size_t i = 0; i < o.nodes.size(); ++i) nodes[i].add(o.nodes[i]);
}

std::vector<double> PipelineProfile::gains() const {
  std::vector<double> out;
  for (const NodeProfile& n : nodes) out.push_back(n.g);
  return out;
}

double histogram_mode(const std::vector<std::uint64_t>& histogram) {
  std::size_t best = 0;
  std::uint64_t best_count = 0;
  for (std::size_t i = 0; i < histogram.size(); ++i)
    if (histogram[i] > 0 && histogram[i] >= best_count) {
      best = i;
      best_count = histogram[i];
    }
  return static_cast<double>(best);
}

PipelineProfile derive_profile(const PipelineShape& shape, const RunCounters& counters, std::uint32_t width,
                               std::string time_unit) {
  PipelineProfile p;
  p.width = width;
  p.time_unit = std::move(time_unit);
  p.switches = counters.switches;
  p.firings = counters.firings;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const NodeCounters c = i < counters.nodes.size() ? counters.nodes[i] : NodeCounters{};
    NodeProfile n;
    n.name = shape.names[i];
    n.gain_limit = shape.gain_limits[i];
    n.inputs = c.inputs;
    n.outputs = c.outputs;
    n.vectors = c.vectors;
    n.g = c.inputs > 0 ? static_cast<double>(c.outputs) / static_cast<double>(c.inputs) : 0.0;
    n.m = histogram_mode(c.full_vectors > 0 ? c.full_max_gain : c.any_max_gain);
    n.t = c.vectors > 0 ? c.service / static_cast<double>(c.vectors) : 0.0;
    n.p = c.vectors > 0 ? c.overhead / static_cast<double>(c.vectors) : 0.0;
    p.nodes.push_back(std::move(n));
  }
  return p;
}

std::string format_profile(const PipelineProfile& p) {
  std::string out;
  char line[512];
  std::snprintf(
      line, sizeof line, "# %s, %u lanes, %llu sources, %llu vectors fired, %llu node switches, %.3f s\n",
      p.device.c_str(), p.width, static_cast<unsigned long long>(p.sources),
      static_cast<unsigned long long>(p.firings), static_cast<unsigned long long>(p.switches), p.seconds);
  out += line;
  std::snprintf(line, sizeof line, "%-4s %-24s %6s %12s %12s %10s %10s %6s %12s %12s\n", "node", "name", "u",
                "inputs", "outputs", "vectors", "g", "m", ("t " + p.time_unit).c_str(),
                ("p " + p.time_unit).c_str());
  out += line;
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    const NodeProfile& n = p.nodes[i];
    std::snprintf(line, sizeof line, "%-4zu %-24s %6u %12llu %12llu %10llu %10.4g %6.0f %12.4g %12.4g\n",
                  i + 1, n.name.c_str(), n.gain_limit, static_cast<unsigned long long>(n.inputs),
                  static_cast<unsigned long long>(n.outputs), static_cast<unsigned long long>(n.vectors), n.g,
                  n.m, n.t, n.p);
    out += line;
  }
  return out;
}

std::string profile_csv(const PipelineProfile& p) {
  std::string out = "node,name,u,inputs,outputs,vectors,g,m,t,p,time_unit\n";
  char line[512];
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    const NodeProfile& n = p.nodes[i];
    std::snprintf(line, sizeof line, "%zu,%s,%u,%llu,%llu,%llu,%.9g,%.9g,%.9g,%.9g,%s\n", i + 1,
                  n.name.c_str(), n.gain_limit, static_cast<unsigned long long>(n.inputs),
                  static_cast<unsigned long long>(n.outputs), static_cast<unsigned long long>(n.vectors), n.g,
                  n.m, n.t, n.p, p.time_unit.c_str());
    out += line;
  }
  return out;
}

}  // namespace sextant::pipeline
