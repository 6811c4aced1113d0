#include "core/error.hpp"

namespace sextant {

Error::Error(ErrorKind kind, std::string message)
    : std::runtime_error(std::move(message)), kind_(kind) {}

Error Error::in_file(std::string_view file, std::size_t line, std::size_t column,
                     std::string_view what) {
  std::string msg(file);
  if (line != 0) msg.append(":").append(std::to_string(line));
  if (line != 0 && column != 0) msg.append(":").append(std::to_string(column));
  msg += ": ";
  msg += what;
  return Error(ErrorKind::bad_input, std::move(msg));
}

Error Error::argument(std::string_view parameter, std::string_view value, std::string_view valid,
                      std::string_view what) {
  std::string msg(parameter);
  msg += " = '";
  msg += value;
  msg += "': ";
  msg += what;
  msg += " (valid: ";
  msg += valid;
  msg += ")";
  return Error(ErrorKind::bad_argument, std::move(msg));
}

Error Error::io(std::string_view file, std::string_view what) {
  return Error(ErrorKind::io, std::string(file) + ": " + std::string(what));
}

Error Error::unsupported(std::string_view what) { return Error(ErrorKind::unsupported, std::string(what)); }

Error Error::internal(std::string_view what) {
  return Error(ErrorKind::internal, "internal error (please report): " + std::string(what));
}

int exit_code(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::bad_input: return 2;
    case ErrorKind::bad_argument: return 2;
    case ErrorKind::io: return 3;
    case ErrorKind::unsupported: return 4;
    case ErrorKind::resource: return 5;
    case ErrorKind::internal: return 70;
  }
  return 1;
}

}  // namespace sextant
