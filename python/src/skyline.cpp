// The skyline family from Python: skyline (api/skyline.hpp), skycube (api/skycube.hpp) and the
// HashCube it returns. The GIL is released around every computation and file access.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <istream>
#include <memory>
#include <sextant/api/skycube.hpp>
#include <sextant/api/skyline.hpp>
#include <sextant/core/atomic_file.hpp>
#include <sextant/core/device.hpp>
#include <sextant/core/error.hpp>
#include <sextant/datagen/input_file.hpp>
#include <sextant/scheduler/statistics.hpp>
#include <sextant/templates/skycube/hash_cube.hpp>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"

namespace sextant::python {

nb::ndarray<nb::numpy, std::int64_t, nb::ndim<1>> ids_to_numpy(const std::vector<PointId>& ids) {
  return to_numpy(std::vector<std::int64_t>(ids.begin(), ids.end()));
}

namespace {

// The points as a Dataset: a view of the array (no copy) when every column is "min" and its rows
// sit in cache lines as well as an owned copy's would; a copy otherwise, with the max columns
// negated. The array must outlive the dataset (the call holds it).
Dataset dataset_of(const HostArray<float, 2>& points, const std::vector<bool>& max_columns) {
  const std::size_t n = points.shape(0);
  const int d = static_cast<int>(points.shape(1));
  const std::span<const float> values(points.data(), n * points.shape(1));
  bool any_max = false;
  for (const bool m : max_columns) any_max = any_max || m;
  if (!any_max && !Dataset::rows_straddle_lines(values.data(), d))
    return Dataset::view(n, d, values, "points");
  std::vector<Preference> prefs;
  for (const bool m : max_columns) prefs.push_back(m ? Preference::max : Preference::min);
  return Dataset(n, d, values, std::move(prefs), "points");
}

DeviceSelection devices_of(const std::string& devices) {
  return devices.empty() ? DeviceSelection{} : parse_devices("devices", devices);
}

nb::dict phases_dict(const PhaseTimes& phases) {
  nb::dict out;
  for (const PhaseTime& p : phases.phases()) out[p.name.c_str()] = p.seconds;
  return out;
}

nb::list devices_list(const scheduler::Statistics& s) {
  nb::list out;
  for (const scheduler::DeviceStats& d : s.devices()) {
    nb::dict row;
    row["device"] = to_string(d.device);
    row["workers"] = d.workers;
    row["tasks"] = d.tasks;
    row["items"] = d.items;
    row["share"] = d.share;
    row["busy_seconds"] = d.busy_seconds;
    row["failures"] = d.failures;
    row["variants"] = scheduler::describe_variants(d.variants);
    out.append(row);
  }
  return out;
}

// A computed or loaded skycube: the HashCube and what the run reported.
struct Skycube {
  skycube::HashCube cube;
  std::string template_name;  // "" when loaded
  std::size_t extended_skyline_size = 0;
  PhaseTimes phases;
  std::shared_ptr<const scheduler::Statistics> statistics;

  nb::dict statistics_dict() const {
    nb::dict out;
    out["n"] = cube.point_count();
    out["d"] = cube.dims();
    out["max_level"] = cube.max_level();
    out["ids_stored"] = cube.stored_ids();
    out["hashcube_bytes"] = cube.bytes();
    if (!template_name.empty()) {
      out["template"] = template_name;
      out["extended_skyline"] = extended_skyline_size;
      out["phases"] = phases_dict(phases);
    }
    if (statistics) {
      out["devices"] = devices_list(*statistics);
      out["report"] = scheduler::report(*statistics);
    }
    return out;
  }
};

Skycube load(const std::string& path) {
  datagen::InputFile file(path);
  datagen::InputStreambuf buffer(file);
  std::istream in(&buffer);
  Skycube out;
  try {
    out.cube = skycube::HashCube::load(in, path);
  } catch (const Error&) {
    buffer.rethrow_error();  // a read error reads as a truncated file to load()
    throw;
  }
  return out;
}

}  // namespace

void bind_skyline(nb::module_& m) {
  m.def(
      "skyline",
      [](HostArray<float, 2> points, Mask subspace, std::vector<bool> max_columns, std::string devices,
         int threads) {
        SkylineResult r;
        {
          nb::gil_scoped_release released;
          SkylineOptions options;
          options.threads = threads;
          options.devices.devices = devices_of(devices);
          r = skyline(dataset_of(points, max_columns), subspace, options);
        }
        return ids_to_numpy(r.ids);
      },
      nb::arg("points"), nb::arg("subspace"), nb::arg("max_columns"), nb::arg("devices"), nb::arg("threads"));

  nb::class_<Skycube>(m, "Skycube")
      .def("skyline",
           [](const Skycube& s, Mask subspace) {
             std::vector<PointId> ids;
             {
               nb::gil_scoped_release released;
               ids = s.cube.skyline(subspace);
             }
             return ids_to_numpy(ids);
           })
      .def("membership",
           [](const Skycube& s, PointId id) {
             if (id >= s.cube.point_count())
               throw Error::argument("point_id", std::to_string(id),
                                     "0.." + std::to_string(s.cube.point_count()) + " (exclusive)",
                                     "no such point");
             return s.cube.membership(id);
           })
      .def("save",
           [](const Skycube& s, const std::string& path) {
             nb::gil_scoped_release released;
             AtomicFile file(path, true);
             s.cube.save(file.stream());
             file.commit();
           })
      .def("statistics", &Skycube::statistics_dict)
      .def_prop_ro("dims", [](const Skycube& s) { return s.cube.dims(); })
      .def_prop_ro("max_level", [](const Skycube& s) { return s.cube.max_level(); })
      .def_prop_ro("size", [](const Skycube& s) { return s.cube.point_count(); });

  m.def(
      "skycube",
      [](HostArray<float, 2> points, std::vector<bool> max_columns, const std::string& kind, int max_level,
         std::string devices, int threads) {
        Skycube out;
        {
          nb::gil_scoped_release released;
          skycube::SkycubeOptions options;
          options.kind = skycube::parse_template("template", kind);
          options.max_level = max_level;
          options.threads = threads;
          skycube::DeviceOptions on;
          on.devices = devices_of(devices);
          skycube::SkycubeResult r = skycube::compute_skycube(dataset_of(points, max_columns), options, on);
          out.cube = std::move(r.cube);
          out.template_name = std::move(r.template_name);
          out.extended_skyline_size = r.extended_skyline_size;
          out.phases = std::move(r.phases);
          out.statistics = std::move(r.statistics);
        }
        return out;
      },
      nb::arg("points"), nb::arg("max_columns"), nb::arg("template"), nb::arg("max_level"),
      nb::arg("devices"), nb::arg("threads"));

  m.def("load_skycube", [](const std::string& path) {
    nb::gil_scoped_release released;
    return load(path);
  });
}

}  // namespace sextant::python
