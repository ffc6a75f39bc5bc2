#include "format/numbers.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace gcbridge::format {

std::string exactNumber(double x) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), x);
  return std::string(buffer, result.ptr);
}

std::string roundedNumber(double x, int digits) {
  char buffer[32];
  // Adding 0.0 turns -0 into 0.
  std::snprintf(buffer, sizeof(buffer), "%.*g", digits, x + 0.0);
  return buffer;
}

std::string csvNumber(double x) {
  if (std::isnan(x)) return "nan";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", x);
  return buffer;
}

}  // namespace gcbridge::format
