// The window families from Python: StreamWindow (api/stream_window.hpp) and count windows over a
// column (api/window_count.hpp). Columns come in as C-contiguous NumPy arrays (the package
// converts them first) and results go out as NumPy arrays that own the C++ vectors (no copy).
// The GIL is released around every computation.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <sextant/api/stream_window.hpp>
#include <sextant/api/window_count.hpp>
#include <sextant/core/device.hpp>
#include <sextant/core/error.hpp>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "bindings.hpp"

namespace sextant::python {

namespace {

using window::StreamWindowOptions;

StreamWindowOptions stream_options(
    const std::vector<std::tuple<std::string, std::int64_t, std::int64_t>>& specs, std::int64_t lateness) {
  StreamWindowOptions o;
  for (const auto& [type, length, slide] : specs)
    o.specs.push_back({window::parse_window_type("specs: type", type), length, slide});
  o.lateness = lateness;
  return o;
}

DeviceId device_of(const std::string& text) {
  const DeviceSelection s = parse_devices("device", text);
  if (s.all || s.devices.size() != 1)
    throw Error::argument("device", text, "one device: cpu or gpuN", "a window operator runs on one device");
  return s.devices.front();
}

// A column's NumPy array, owning the vector.
nb::object column_to_numpy(window::Column&& column) {
  return std::visit([](auto&& v) { return nb::cast(to_numpy(std::move(v))); }, std::move(column));
}

// A NumPy 1-D array of any of the four value types as a ColumnView (the caller holds the array).
window::ColumnView column_view(nb::ndarray<nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cpu> a) {
  const nb::dlpack::dtype t = a.dtype();
  window::ValueType type;
  if (t == nb::dtype<std::int32_t>())
    type = window::ValueType::int32;
  else if (t == nb::dtype<std::int64_t>())
    type = window::ValueType::int64;
  else if (t == nb::dtype<float>())
    type = window::ValueType::float32;
  else if (t == nb::dtype<double>())
    type = window::ValueType::float64;
  else
    throw Error::argument("values",
                          "dtype code " + std::to_string(t.code) + ", " + std::to_string(t.bits) + " bits",
                          "int32, int64, float32 or float64");
  return window::ColumnView(type, a.data(), a.shape(0));
}

class PyStreamWindow {
 public:
  PyStreamWindow(const std::string& value_type, const std::string& aggregate,
                 const StreamWindowOptions& options, const std::string& device, int threads)
      : op_(window::parse_value_type("dtype", value_type),
            window::parse_stream_aggregate("aggregate", aggregate), options,
            window::StreamDeviceOptions{device_of(device), threads, 0}) {}

  void push(HostArray<std::uint32_t, 1> keys, HostArray<std::int64_t, 1> timestamps,
            nb::ndarray<nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cpu> values,
            std::optional<HostArray<std::int64_t, 1>> watermarks) {
    window::ErasedStreamBatch batch;
    batch.keys = {keys.data(), keys.shape(0)};
    batch.timestamps = {timestamps.data(), timestamps.shape(0)};
    batch.values = column_view(values);
    if (watermarks) batch.watermarks = {watermarks->data(), watermarks->shape(0)};
    nb::gil_scoped_release released;
    op_.push(batch);
  }

  void advance_watermark(std::int64_t wm) {
    nb::gil_scoped_release released;
    op_.advance_watermark(wm);
  }

  void finish() {
    nb::gil_scoped_release released;
    op_.finish();
  }

  nb::dict poll() {
    window::StreamResults r;
    {
      nb::gil_scoped_release released;
      op_.poll(r);
    }
    nb::dict out;
    out["spec"] = to_numpy(std::move(r.specs));
    out["key"] = to_numpy(std::move(r.keys));
    out["start"] = to_numpy(std::move(r.starts));
    out["end"] = to_numpy(std::move(r.ends));
    out["value"] = column_to_numpy(std::move(r.values));
    if (!r.times.empty() || positional()) out["time"] = to_numpy(std::move(r.times));
    return out;
  }

  nb::dict counters() const {
    const window::StreamCounters c = op_.counters();
    nb::dict out;
    out["tuples_in"] = c.tuples_in;
    out["late_dropped"] = c.late_dropped;
    out["watermarks_ignored"] = c.watermarks_ignored;
    out["windows_emitted"] = c.windows_emitted;
    out["batches"] = c.batches;
    return out;
  }

  std::optional<std::int64_t> watermark() const {
    const std::int64_t wm = op_.watermark();
    return wm == window::no_watermark ? std::nullopt : std::optional<std::int64_t>(wm);
  }
  std::string describe() const { return op_.describe(); }
  std::string value_type() const { return std::string(window::to_string(op_.value_type())); }
  std::string result_type() const { return std::string(window::to_string(op_.result_type())); }

 private:
  bool positional() const {
    using K = window::StreamAggregateKind;
    const K k = op_.aggregate();
    return k == K::argmin || k == K::argmax || k == K::first || k == K::last;
  }

  window::StreamWindow op_;
};

}  // namespace

void bind_window(nb::module_& m) {
  m.def(
      "check_stream_options",
      [](const std::vector<std::tuple<std::string, std::int64_t, std::int64_t>>& specs, std::int64_t lateness,
         const std::string& aggregate, const std::string& device) {
        window::make_geometry(stream_options(specs, lateness));
        window::parse_stream_aggregate("aggregate", aggregate);
        device_of(device);
      },
      "Internal: throws the constructor's error for invalid specs, lateness, aggregate or device.");

  nb::class_<PyStreamWindow>(m, "StreamWindow")
      .def(
          "__init__",
          [](PyStreamWindow* self, const std::string& value_type, const std::string& aggregate,
             const std::vector<std::tuple<std::string, std::int64_t, std::int64_t>>& specs,
             std::int64_t lateness, const std::string& device, int threads) {
            new (self)
                PyStreamWindow(value_type, aggregate, stream_options(specs, lateness), device, threads);
          },
          nb::arg("value_type"), nb::arg("aggregate"), nb::arg("specs"), nb::arg("lateness"),
          nb::arg("device"), nb::arg("threads"))
      .def("push", &PyStreamWindow::push, nb::arg("keys"), nb::arg("timestamps"), nb::arg("values"),
           nb::arg("watermarks").none())
      .def("advance_watermark", &PyStreamWindow::advance_watermark)
      .def("finish", &PyStreamWindow::finish)
      .def("poll", &PyStreamWindow::poll)
      .def("counters", &PyStreamWindow::counters)
      .def("watermark", &PyStreamWindow::watermark)
      .def("describe", &PyStreamWindow::describe)
      .def_prop_ro("value_type", &PyStreamWindow::value_type)
      .def_prop_ro("result_type", &PyStreamWindow::result_type);

  m.def(
      "count_windows",
      [](nb::ndarray<nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cpu> values, std::uint64_t length,
         std::uint64_t slide, const std::string& aggregate, const std::string& device,
         const std::string& algorithm, int threads) {
        window::CountWindowResult r;
        const window::ColumnView in = column_view(values);
        {
          nb::gil_scoped_release released;
          window::CountWindowOptions options;
          options.algorithm = window::parse_count_algorithm("algorithm", algorithm);
          options.threads = threads;
          r = window::aggregate_count(in, window::CountWindowSpec{length, slide},
                                      window::parse_aggregate("aggregate", aggregate), device_of(device),
                                      options);
        }
        return std::make_tuple(column_to_numpy(std::move(r.values)), to_numpy(std::move(r.positions)),
                               r.algorithm);
      },
      nb::arg("values"), nb::arg("length"), nb::arg("slide"), nb::arg("aggregate"), nb::arg("device"),
      nb::arg("algorithm"), nb::arg("threads"));
}

}  // namespace sextant::python
