#pragma once
/// @file
/// Numbers as text, as every gcbridge program writes them: exact (JSON), rounded (tables) and
/// round-trip (CSV).

#include <string>

namespace gcbridge::format {

/// Shortest text that reads back as the same double ("17.5", "0.1", "1e-06").
std::string exactNumber(double x);

/// `x` with `digits` significant digits, as printf's %g ("0.000123457"); -0 prints as 0.
std::string roundedNumber(double x, int digits = 6);

/// `x` with 17 significant digits (reads back as the same double); "nan" for NaN.
std::string csvNumber(double x);

}  // namespace gcbridge::format
