// The matching family from Python: Matcher (api/matcher.hpp). Filters come in as lists of
// (filter_id, interface, constraints) with constraints as (name, op, value) tuples, and are
// converted here into the library's Filter and validated by it (FilterSet::add: names, operator
// against type, NaN, an empty filter). Events come in as dicts {name: value or list of values} and
// are written straight into EventBatch's columns, names and values checked on the way. Every
// message names the filter (its id) or the event (its index) and the item. Results go out as flat
// NumPy arrays with offsets (the package splits them per event). The GIL is released around every
// change and every match.
#include <nanobind/stl/string.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <sextant/api/matcher.hpp>
#include <sextant/core/device.hpp>
#include <sextant/core/error.hpp>
#include <sextant/templates/matching/columns.hpp>
#include <sextant/templates/matching/match_results.hpp>
#include <sextant/templates/matching/model.hpp>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bindings.hpp"

namespace sextant::python {

namespace {

namespace m = sextant::matching;

constexpr std::string_view value_types = "int, float, bool, str or bytes";
constexpr std::string_view constraint_forms =
    "a (name, op, value) tuple, or (name, \"exists\") / (name, \"exists\", None)";
constexpr std::string_view op_names = "=, !=, <, <=, >, >=, prefix, suffix, substring, exists";

// A str as UTF-8; nullopt for one UTF-8 cannot encode (lone surrogates).
std::optional<std::string> utf8_of(PyObject* str) {
  Py_ssize_t n = 0;
  const char* s = PyUnicode_AsUTF8AndSize(str, &n);
  if (s == nullptr) {
    PyErr_Clear();
    return std::nullopt;
  }
  return std::string(s, static_cast<std::size_t>(n));
}

// A Python object as messages show it, cut at 60 characters: a str as its text (Error::argument
// quotes it), anything else (or a str with lone surrogates) as its ascii().
std::string repr_of(nb::handle h) {
  std::optional<std::string> s;
  if (PyUnicode_Check(h.ptr())) s = utf8_of(h.ptr());
  if (!s) {
    nb::object r = nb::steal(PyObject_ASCII(h.ptr()));
    if (r.is_valid()) s = utf8_of(r.ptr());
    if (!r.is_valid()) PyErr_Clear();
  }
  if (!s) s = "<an object without a repr>";
  if (s->size() > 60) {  // cut at a character boundary: the message must stay UTF-8
    std::size_t cut = 57;
    while (cut > 0 && (static_cast<unsigned char>((*s)[cut]) & 0xC0) == 0x80) --cut;
    *s = s->substr(0, cut) + "...";
  }
  return *s;
}

std::string type_of(nb::handle h) {
  return Py_TYPE(h.ptr())->tp_name;
}

// NumPy's scalar classes (np.float32(1) is no Python float, np.int64(1) no Python int).
struct NumpyScalars {
  nb::object boolean, integer, floating;
};
const NumpyScalars& numpy_scalars() {
  static const NumpyScalars* s = [] {
    nb::module_ np = nb::module_::import_("numpy");
    return new NumpyScalars{np.attr("bool_"), np.attr("integer"), np.attr("floating")};
  }();
  return *s;
}
bool is_instance(nb::handle h, const nb::object& type) {
  const int r = PyObject_IsInstance(h.ptr(), type.ptr());
  if (r < 0) PyErr_Clear();
  return r == 1;
}

// A Python scalar: None, an int64, a double, a bool or a string (UTF-8 of a str, or the bytes of
// a bytes object: a view into the object, valid while it lives).
struct Scalar {
  enum class Kind : std::uint8_t { none, int64, float64, boolean, string } kind = Kind::none;
  std::int64_t i = 0;
  double d = 0;
  bool b = false;
  std::string_view s;
};

// `where()` names the item in a message; it is called on errors only (the common path builds no
// strings).
template <class Where>
std::int64_t int64_of(nb::handle h, const Where& where) {
  nb::object index = nb::steal(PyNumber_Index(h.ptr()));
  if (!index.is_valid()) {
    PyErr_Clear();
    throw Error::argument(where(), repr_of(h), "an integer", "not an integer");
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (overflow != 0)
    throw Error::argument(where(), repr_of(h), "-2**63 .. 2**63-1", "outside the int64 range");
  return v;
}

template <class Where>
std::uint64_t uint_of(nb::handle h, const Where& where, std::uint64_t max, std::string_view valid) {
  nb::object index = nb::steal(PyNumber_Index(h.ptr()));
  if (!index.is_valid()) {
    PyErr_Clear();
    throw Error::argument(where(), repr_of(h), valid, "not an integer");
  }
  const unsigned long long v = PyLong_AsUnsignedLongLong(index.ptr());
  if (PyErr_Occurred() != nullptr || v > max) {  // negative, or beyond 64 bits, or beyond max
    PyErr_Clear();
    throw Error::argument(where(), repr_of(h), valid, "out of range");
  }
  return v;
}

// Booleans before integers (True is an int); NumPy's scalars after Python's.
template <class Where>
Scalar scalar_of(nb::handle h, const Where& where) {
  PyObject* o = h.ptr();
  Scalar out;
  if (o == Py_None) return out;
  if (PyBool_Check(o)) {
    out.kind = Scalar::Kind::boolean;
    out.b = o == Py_True;
  } else if (PyLong_Check(o)) {
    int overflow = 0;
    out.kind = Scalar::Kind::int64;
    out.i = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow != 0)
      throw Error::argument(where(), repr_of(h), "-2**63 .. 2**63-1", "outside the int64 range");
  } else if (PyFloat_Check(o)) {
    out.kind = Scalar::Kind::float64;
    out.d = PyFloat_AS_DOUBLE(o);
  } else if (PyUnicode_Check(o)) {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(o, &n);
    if (s == nullptr) {
      PyErr_Clear();
      throw Error::argument(where(), repr_of(h), "a str UTF-8 can encode, or bytes",
                            "a str with lone surrogates");
    }
    out.kind = Scalar::Kind::string;
    out.s = std::string_view(s, static_cast<std::size_t>(n));
  } else if (PyBytes_Check(o)) {
    out.kind = Scalar::Kind::string;
    out.s = std::string_view(PyBytes_AS_STRING(o), static_cast<std::size_t>(PyBytes_GET_SIZE(o)));
  } else {
    const NumpyScalars& np = numpy_scalars();
    if (is_instance(h, np.boolean)) {
      out.kind = Scalar::Kind::boolean;
      out.b = PyObject_IsTrue(o) == 1;
    } else if (is_instance(h, np.integer)) {
      out.kind = Scalar::Kind::int64;
      out.i = int64_of(h, where);
    } else if (is_instance(h, np.floating)) {
      out.kind = Scalar::Kind::float64;
      out.d = PyFloat_AsDouble(o);
      if (out.d == -1.0 && PyErr_Occurred() != nullptr) {
        PyErr_Clear();
        throw Error::argument(where(), repr_of(h), value_types, "not convertible to a double");
      }
    } else {
      throw Error::argument(where(), repr_of(h), value_types, "not a value (type " + type_of(h) + ")");
    }
  }
  return out;
}

bool is_sequence(nb::handle h) {
  return PyList_Check(h.ptr()) || PyTuple_Check(h.ptr());
}

// The items of a list or tuple (borrowed: the caller holds the sequence and does not change it).
std::span<PyObject* const> items_of(nb::handle seq) {
  PyObject* o = seq.ptr();
  if (PyList_Check(o)) return {PySequence_Fast_ITEMS(o), static_cast<std::size_t>(PyList_GET_SIZE(o))};
  return {PySequence_Fast_ITEMS(o), static_cast<std::size_t>(PyTuple_GET_SIZE(o))};
}

// A name's UTF-8 (a view into the str object).
template <class Where>
std::string_view name_of(nb::handle h, const Where& where) {
  if (!PyUnicode_Check(h.ptr()))
    throw Error::argument(where(), repr_of(h), "a str", "not a str (type " + type_of(h) + ")");
  Py_ssize_t n = 0;
  const char* s = PyUnicode_AsUTF8AndSize(h.ptr(), &n);
  if (s == nullptr) {
    PyErr_Clear();
    throw Error::argument(where(), repr_of(h), "[A-Za-z_][A-Za-z0-9_.]*", "a str with lone surrogates");
  }
  return std::string_view(s, static_cast<std::size_t>(n));
}

template <class Where>
void read_constraint(nb::handle h, const Where& where, m::Constraint& c) {
  if (!is_sequence(h)) throw Error::argument(where(), repr_of(h), constraint_forms, "not a tuple");
  const std::span<PyObject* const> parts = items_of(h);
  if (parts.size() != 2 && parts.size() != 3)
    throw Error::argument(where(), repr_of(h), constraint_forms, std::to_string(parts.size()) + " items");
  c.name = name_of(parts[0], [&] { return where() + " name"; });
  const auto op_where = [&] { return where() + " op"; };
  const std::string_view op_text = name_of(parts[1], op_where);  // a str, like a name
  const std::optional<m::Op> op = m::parse_op(op_text);
  if (!op) throw Error::argument(op_where(), op_text, op_names, "an unknown operator");
  c.op = *op;
  const auto value_where = [&] { return where() + " value"; };
  const Scalar v = parts.size() == 3 ? scalar_of(parts[2], value_where) : Scalar{};
  if (c.op == m::Op::exists) {
    if (v.kind != Scalar::Kind::none)
      throw Error::argument(value_where(), repr_of(parts[2]), "None", "exists takes no value");
    c.value = m::Value();
    return;
  }
  switch (v.kind) {
    case Scalar::Kind::none:
      throw Error::argument(value_where(), parts.size() == 3 ? "None" : "(missing)", value_types,
                            "operator " + std::string(m::to_string(c.op)) + " needs a value");
    case Scalar::Kind::int64:
      c.value = m::Value::integer(v.i);
      break;
    case Scalar::Kind::float64:
      c.value = m::Value::real(v.d);  // NaN and infinities: set.add names them
      break;
    case Scalar::Kind::boolean:
      c.value = m::Value::boolean(v.b);
      break;
    case Scalar::Kind::string:
      c.value = m::Value::text(std::string(v.s));
      break;
  }
}

// Filters from a list of (filter_id, interface, constraints): converted and validated, all or
// nothing (the caller adds the set as one change).
m::FilterSet filters_of(nb::handle list) {
  m::FilterSet set;
  std::unordered_map<m::FilterId, std::size_t> seen;
  m::Filter f;
  const std::span<PyObject* const> items = items_of(list);
  seen.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    nb::handle item(items[i]);
    const auto at = [i] { return "filters[" + std::to_string(i) + "]"; };
    if (!is_sequence(item) || items_of(item).size() != 3)
      throw Error::argument(at(), repr_of(item), "a (filter_id, interface, constraints) tuple",
                            "not a filter");
    const std::span<PyObject* const> parts = items_of(item);
    f.id = uint_of(
        parts[0], [&] { return at() + " filter_id"; }, UINT64_MAX, "0 .. 2**64-1");
    f.interface = static_cast<m::InterfaceId>(uint_of(
        parts[1], [&] { return at() + " interface"; }, UINT32_MAX, "0 .. 2**32-1"));
    const auto where = [&f] { return "filter " + std::to_string(f.id); };
    if (const auto [it, fresh] = seen.emplace(f.id, i); !fresh)
      throw Error::argument(where(), "filters[" + std::to_string(it->second) + "] and " + at(),
                            "distinct ids in one add", "a duplicate filter id");
    nb::handle constraints(parts[2]);
    if (!is_sequence(constraints))
      throw Error::argument(where() + " constraints", repr_of(constraints),
                            "a list of (name, op, value) tuples",
                            "not a list (type " + type_of(constraints) + ")");
    const std::span<PyObject* const> cs = items_of(constraints);
    if (!cs.empty() && PyUnicode_Check(cs[0]))
      throw Error::argument(where() + " constraints", repr_of(constraints),
                            "a list of (name, op, value) tuples",
                            "one constraint, not a list of them (write [(name, op, value)])");
    f.constraints.resize(cs.size());
    for (std::size_t k = 0; k < cs.size(); ++k)
      read_constraint(
          cs[k], [&] { return where() + " constraint " + std::to_string(k); }, f.constraints[k]);
    set.add(f);  // validates: an empty filter, a bad name, an operator against its value's type, NaN
  }
  return set;
}

// One event from a dict {name: value or list/tuple of values} (a list: the name repeats), appended
// to the batch's columns with id `index`. `label`: what a non-dict is called ("events[3]").
template <class Label>
void add_event(m::EventBatch& batch, nb::handle h, std::size_t index, const Label& label) {
  if (!PyDict_Check(h.ptr()))
    throw Error::argument(label(), repr_of(h), "a dict {name: value}",
                          "not a dict (type " + type_of(h) + ")");
  const auto where = [index] { return "event " + std::to_string(index); };
  PyObject* key = nullptr;
  PyObject* entry = nullptr;
  Py_ssize_t pos = 0;
  while (PyDict_Next(h.ptr(), &pos, &key, &entry)) {
    const std::string_view name = name_of(key, [&] { return where() + " attribute name"; });
    const std::uint32_t known = batch.names.size();
    const std::uint32_t id = batch.names.intern(name);
    if (id == known)  // a new name: check it once
      if (std::string p = m::name_problem(name); !p.empty())
        throw Error::argument(where() + " attribute name", repr_of(key), "[A-Za-z_][A-Za-z0-9_.]*", p);
    const auto put = [&](nb::handle v, const auto& vwhere) {
      const Scalar x = scalar_of(v, vwhere);
      switch (x.kind) {
        case Scalar::Kind::none:
          throw Error::argument(vwhere(), "None", std::string(value_types) + ", or a list of them",
                                "None is not a value (leave the attribute out)");
        case Scalar::Kind::int64:
          batch.add_attribute(id, m::ValueType::int64, {static_cast<std::uint64_t>(x.i), 0});
          break;
        case Scalar::Kind::float64:
          if (!std::isfinite(x.d))
            throw Error::argument(vwhere(), repr_of(v), "a finite number",
                                  std::isnan(x.d) ? "NaN is not a value" : "infinities are not values");
          batch.add_attribute(id, m::ValueType::float64, {std::bit_cast<std::uint64_t>(x.d), 0});
          break;
        case Scalar::Kind::boolean:
          batch.add_attribute(id, m::ValueType::boolean, {x.b ? 1u : 0u, 0});
          break;
        case Scalar::Kind::string:
          batch.add_attribute(id, m::ValueType::string, {batch.strings.size(), x.s.size()});
          batch.strings.append(x.s);
          break;
      }
    };
    const auto at = [&] { return where() + " attribute " + repr_of(key); };
    if (is_sequence(entry)) {
      const std::span<PyObject* const> values = items_of(entry);
      for (std::size_t j = 0; j < values.size(); ++j)
        put(values[j], [&] { return at() + "[" + std::to_string(j) + "]"; });
    } else {
      put(entry, at);
    }
  }
  batch.end_event(index);
}

nb::object results_of(m::MatchResults&& r) {
  std::vector<std::int64_t> offsets(r.interface_offsets.begin(), r.interface_offsets.end());
  std::vector<std::int64_t> interfaces(r.interfaces.begin(), r.interfaces.end());
  nb::object filter_offsets = nb::none();
  nb::object filters = nb::none();
  if (r.has_filters) {
    filter_offsets =
        nb::cast(to_numpy(std::vector<std::int64_t>(r.filter_offsets.begin(), r.filter_offsets.end())));
    filters = nb::cast(to_numpy(std::move(r.filters)));
  }
  return nb::make_tuple(to_numpy(std::move(offsets)), to_numpy(std::move(interfaces)), filter_offsets,
                        filters);
}

m::Placement placement_of(const std::string& text) {
  if (text == "replicate") return m::Placement::replicate;
  if (text == "partition") return m::Placement::partition;
  throw Error::argument("placement", text, "replicate or partition", "unknown placement");
}

m::MatcherOptions matcher_options(const std::string& devices, int threads, const std::string& placement) {
  m::MatcherOptions o;
  o.devices = parse_devices("devices", devices);
  o.threads = threads;
  o.placement = placement_of(placement);
  return o;
}

class PyMatcher {
 public:
  explicit PyMatcher(const m::MatcherOptions& options) : matcher_(options) {}

  void add(nb::handle filters) {
    m::FilterSet set = filters_of(filters);
    nb::gil_scoped_release released;
    matcher_.add(set);
  }

  void remove(HostArray<std::uint64_t, 1> ids) {
    const std::span<const m::FilterId> span(ids.data(), ids.shape(0));
    nb::gil_scoped_release released;
    matcher_.remove(span);
  }

  std::size_t size() const { return matcher_.size(); }
  bool contains(m::FilterId id) const { return matcher_.contains(id); }

  nb::object match(nb::handle events, bool with_filters) {
    m::EventBatch batch;
    const std::span<PyObject* const> items = items_of(events);
    for (std::size_t i = 0; i < items.size(); ++i)
      add_event(batch, items[i], i, [i] { return "events[" + std::to_string(i) + "]"; });
    m::MatchResults r;
    {
      nb::gil_scoped_release released;
      r = matcher_.match(batch, with_filters);
    }
    return results_of(std::move(r));
  }

  nb::object match_one(nb::handle event, bool with_filters) {
    m::EventBatch batch;
    add_event(batch, event, 0, [] { return std::string("event"); });
    m::MatchResults r;
    r.has_filters = with_filters;
    {
      nb::gil_scoped_release released;
      matcher_.match_one(batch, 0, with_filters, r);
    }
    return results_of(std::move(r));
  }

  std::string describe() const { return matcher_.describe(); }
  // These two apply pending changes and so wait for a running match: without the GIL.
  std::size_t constraints() const {
    nb::gil_scoped_release released;
    return matcher_.constraints();
  }
  std::size_t table_bytes() const {
    nb::gil_scoped_release released;
    return matcher_.table_bytes();
  }

 private:
  m::Matcher matcher_;
};

}  // namespace

void bind_matching(nb::module_& mod) {
  nb::class_<PyMatcher>(mod, "Matcher")
      .def(
          "__init__",
          [](PyMatcher* self, const std::string& devices, int threads, const std::string& placement) {
            const m::MatcherOptions options = matcher_options(devices, threads, placement);
            nb::gil_scoped_release released;  // finding the machine (and starting CUDA) may take a while
            new (self) PyMatcher(options);
          },
          nb::arg("devices"), nb::arg("threads"), nb::arg("placement"))
      .def("add", &PyMatcher::add, nb::arg("filters"))
      .def("remove", &PyMatcher::remove, nb::arg("ids"))
      .def("size", &PyMatcher::size)
      .def("contains", &PyMatcher::contains, nb::arg("filter_id"))
      .def("match", &PyMatcher::match, nb::arg("events"), nb::arg("with_filters"))
      .def("match_one", &PyMatcher::match_one, nb::arg("event"), nb::arg("with_filters"))
      .def("describe", &PyMatcher::describe)
      .def("constraints", &PyMatcher::constraints)
      .def("table_bytes", &PyMatcher::table_bytes);
}

}  // namespace sextant::python
