#pragma once
// The command line every Bullet demo shares: --steps N, --dt H, --csv FILE, -h/--help, and the
// demo's own options taking a value. Usage errors are UsageError (the demos exit with 2).

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gcbridge::demo {

/// A command-line mistake (exit code 2).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// `text` as a finite number > 0. @throws UsageError naming the option.
inline double parsePositive(const std::string& option, const std::string& text) {
  size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !(value > 0.0) || !std::isfinite(value)) {
    throw UsageError(option + ": '" + text + "' is not a positive number");
  }
  return value;
}

/// The shared options.
struct CommonOptions {
  int steps = 0;            ///< substeps per run; 0: the demo's default duration
  std::vector<double> dts;  ///< substeps [s] to run with (--dt replaces the demo's defaults)
  std::string csv;          ///< "" for no CSV file
  bool help = false;
};

/// Parses argv. `extra(option, value)` handles the demo's own options that take a value and
/// returns false for an unknown one; it may throw UsageError.
/// @throws UsageError for an unknown argument, a missing value or a bad number.
inline CommonOptions parseCommonOptions(
    int argc, char** argv, std::vector<double> default_dts,
    const std::function<bool(const std::string&, const std::string&)>& extra = nullptr) {
  CommonOptions options;
  options.dts = std::move(default_dts);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      options.help = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0 || i + 1 == argc) {
      throw UsageError(arg.rfind("--", 0) == 0 ? arg + " needs a value or is unknown"
                                               : "unknown argument '" + arg + "'");
    }
    const std::string value = argv[++i];
    if (arg == "--steps") {
      // Range first: converting a double beyond int's range to int is undefined behaviour.
      const double steps = parsePositive(arg, value);
      if (steps > std::numeric_limits<int>::max()) {
        throw UsageError("--steps: '" + value + "' is more than " +
                         std::to_string(std::numeric_limits<int>::max()) + " substeps");
      }
      if (steps != std::floor(steps)) throw UsageError("--steps needs a whole number");
      options.steps = static_cast<int>(steps);
    } else if (arg == "--dt") {
      options.dts = {parsePositive(arg, value)};
    } else if (arg == "--csv") {
      options.csv = value;
    } else if (!extra || !extra(arg, value)) {
      throw UsageError("unknown argument '" + arg + "'");
    }
  }
  return options;
}

/// `value` as printf's %g does (std::to_string would print 1e-12 as 0.000000).
inline std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

/// The number of substeps of one run with substep `dt` [s]: --steps N if given, otherwise the
/// demo's `duration` [s] divided by dt, rounded.
/// @throws UsageError when that rounds to no substep (dt more than twice the duration) or more
///   than an int holds (a tiny dt).
inline int substepCount(const CommonOptions& options, double dt, double duration) {
  if (options.steps > 0) return options.steps;
  const double steps = std::floor(duration / dt + 0.5);
  if (!(steps >= 1.0)) {
    throw UsageError("--dt " + formatNumber(dt) + " s is too long for the run (" +
                     formatNumber(duration) + " s): no substep would run; give --steps N");
  }
  if (!(steps <= std::numeric_limits<int>::max())) {
    throw UsageError("--dt " + formatNumber(dt) + " s makes " + formatNumber(duration) +
                     " s more than " + std::to_string(std::numeric_limits<int>::max()) +
                     " substeps; give a larger --dt or --steps N");
  }
  return static_cast<int>(steps);
}

/// parseCommonOptions for a demo's main(): prints `help` for --help, or the mistake to stderr
/// ("program: message (see --help)"), including a --dt that gives no substep or too many for
/// the demo's default `duration` [s] (substepCount).
/// @return the exit code when main() should return now (0 after --help, 2 after a mistake), or
///   nothing when the demo should run with `options`.
inline std::optional<int> parseOrExit(int argc, char** argv, const char* program, const char* help,
                                      std::vector<double> default_dts, double duration,
                                      CommonOptions& options) {
  try {
    options = parseCommonOptions(argc, argv, std::move(default_dts));
    for (double dt : options.dts) substepCount(options, dt, duration);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: %s (see --help)\n", program, e.what());
    return 2;
  }
  if (options.help) {
    std::fputs(help, stdout);
    return 0;
  }
  return std::nullopt;
}

/// A CSV file that closes itself (also when the demo fails half way).
using CsvFile = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

/// Opens `path` for writing and writes `header` (with its newline); an empty path gives no file.
/// @throws std::runtime_error if the file cannot be written.
inline CsvFile openCsv(const std::string& path, const std::string& header) {
  if (path.empty()) return CsvFile(nullptr, std::fclose);
  CsvFile file(std::fopen(path.c_str(), "w"), std::fclose);
  if (!file) throw std::runtime_error("cannot write " + path);
  std::fputs(header.c_str(), file.get());
  return file;
}

}  // namespace gcbridge::demo
