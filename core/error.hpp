// Sextant's one error type: every message names where the problem is (file, line,
// column or parameter) and what would have been valid.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sextant {

enum class ErrorKind {
  bad_input,    // malformed file, NaN, ragged row, ...
  bad_argument, // a parameter outside its valid range
  io,           // cannot open / read / write / rename
  unsupported,  // valid request this build or machine cannot serve (e.g. no GPU)
  resource,     // out of host or device memory
  internal,     // a broken invariant: a bug in Sextant
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message);

  ErrorKind kind() const noexcept { return kind_; }

  // "<file>:<line>:<column>: <what>" (line/column omitted when 0).
  static Error in_file(std::string_view file, std::size_t line, std::size_t column,
                       std::string_view what);
  // "<parameter> = <value>: <what> (valid: <valid>)".
  static Error argument(std::string_view parameter, std::string_view value,
                        std::string_view valid, std::string_view what = "out of range");
  static Error io(std::string_view file, std::string_view what);
  static Error unsupported(std::string_view what);
  static Error internal(std::string_view what);

 private:
  ErrorKind kind_;
};

// Process exit code for an error of this kind (the CLI's contract).
int exit_code(ErrorKind kind) noexcept;

}  // namespace sextant
