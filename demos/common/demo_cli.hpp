#pragma once
// The command line every Bullet demo shares: --steps N, --dt H, --csv FILE, -h/--help, and the
// demo's own options, read with gcbridge's one argument reader (tools/cli). Usage errors are
// cli::UsageError (the demos exit with 2). Also what a demo's main shares: its exit code, a
// progress bar on a terminal, its CSV file.

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/arguments.hpp"
#include "common/progress.hpp"
#include "format/numbers.hpp"
#include "format/progress_bar.hpp"

namespace gcbridge::demo {

using cli::UsageError;
using format::roundedNumber;

/// The shipped model `relative` ("kuka_iiwa/model.urdf"): in the models folder installed beside
/// the program (<prefix>/share/gcbridge/models for <prefix>/bin/program), else in the source tree
/// the program was built from.
inline std::string shippedModel(const std::string& relative) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path program = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    const fs::path installed =
        program.parent_path().parent_path() / "share" / "gcbridge" / "models" / relative;
    if (fs::exists(installed, error)) return installed.string();
  }
  return std::string(GCBRIDGE_MODELS_DIR) + "/" + relative;
}

/// The shared options.
struct CommonOptions {
  int steps = 0;            ///< substeps per run; 0: the demo's default duration
  std::vector<double> dts;  ///< substeps [s] to run with (--dt replaces the demo's defaults)
  std::string csv;          ///< "" for no CSV file
  /// --model PATH, for a demo that runs a robot from a URDF (shippedModel(default) otherwise).
  std::string model;
  /// --html FILE, for a demo that records its run for the viewer ("" for none).
  std::string html;
  bool help = false;
};

/// `text` as a whole number of substeps. @throws UsageError naming --steps.
inline int parseSteps(const std::string& text) {
  // Range first: converting a double beyond int's range to int is undefined behaviour.
  const double steps = cli::parsePositive("--steps", text, "");
  if (steps > std::numeric_limits<int>::max()) {
    throw UsageError("--steps: '" + text + "' is more than " +
                     std::to_string(std::numeric_limits<int>::max()) + " substeps");
  }
  if (steps != std::floor(steps)) throw UsageError("--steps needs a whole number");
  return static_cast<int>(steps);
}

/// Parses argv. `extra(args)` reads the demo's own options (args.is(name), args.value()) and
/// returns false for an unknown one; it may throw UsageError. A demo that runs a shipped robot
/// names it in `default_model` ("kuka_iiwa/model.urdf"), and then takes --model PATH; one that
/// records its run for the viewer says so in `records`, and then takes --html FILE.
/// @throws UsageError for an unknown argument, a missing value or a bad number.
inline CommonOptions parseCommonOptions(
    int argc, char** argv, std::vector<double> default_dts,
    const std::function<bool(cli::ArgumentReader&)>& extra = nullptr,
    const char* default_model = nullptr, bool records = false) {
  CommonOptions options;
  options.dts = std::move(default_dts);
  if (default_model != nullptr) options.model = shippedModel(default_model);
  cli::ArgumentReader args(argc, argv, "");
  while (args.next()) {
    if (args.is("-h") || args.is("--help")) {
      args.checkFlag();
      options.help = true;
    } else if (args.is("--steps")) {
      options.steps = parseSteps(args.value());
    } else if (args.is("--dt")) {
      options.dts = {cli::parsePositive("--dt", args.value(), "")};
    } else if (args.is("--csv")) {
      options.csv = args.value();
    } else if (default_model != nullptr && args.is("--model")) {
      options.model = args.value();
    } else if (records && args.is("--html")) {
      options.html = args.value();
    } else if (!extra || !extra(args)) {
      throw args.unknown();
    }
  }
  return options;
}

/// The number of substeps of one run with substep `dt` [s]: --steps N if given, otherwise the
/// demo's `duration` [s] divided by dt, rounded.
/// @throws UsageError when that rounds to no substep (dt more than twice the duration) or more
///   than an int holds (a tiny dt).
inline int substepCount(const CommonOptions& options, double dt, double duration) {
  if (options.steps > 0) return options.steps;
  const double steps = std::floor(duration / dt + 0.5);
  if (!(steps >= 1.0)) {
    throw UsageError("--dt " + roundedNumber(dt) + " s is too long for the run (" +
                     roundedNumber(duration) + " s): no substep would run; give --steps N");
  }
  if (!(steps <= std::numeric_limits<int>::max())) {
    throw UsageError("--dt " + roundedNumber(dt) + " s makes " + roundedNumber(duration) +
                     " s more than " + std::to_string(std::numeric_limits<int>::max()) +
                     " substeps; give a larger --dt or --steps N");
  }
  return static_cast<int>(steps);
}

/// parseCommonOptions for a demo's main() (`default_model` and `records` as there): prints
/// `help` for --help, or the mistake to stderr ("program: message (see --help)"), including a
/// --dt that gives no substep or too many for the demo's default `duration` [s] (substepCount).
/// @return the exit code when main() should return now (0 after --help, 2 after a mistake), or
///   nothing when the demo should run with `options`.
inline std::optional<int> parseOrExit(int argc, char** argv, const char* program, const char* help,
                                      std::vector<double> default_dts, double duration,
                                      CommonOptions& options, const char* default_model = nullptr,
                                      bool records = false) {
  try {
    options =
        parseCommonOptions(argc, argv, std::move(default_dts), nullptr, default_model, records);
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

/// The exit code of a demo whose runs ended: 1 when every run diverged (nothing to show), else 0;
/// a run that diverged beside others that finished is a result (explicit PD at too long a step,
/// say), its row saying "diverged". Either way stderr says how many diverged.
inline int finishedExitCode(const char* program, int diverged_runs, int runs) {
  if (diverged_runs == 0) return 0;
  std::fprintf(stderr,
               "%s: %d of %d run%s diverged (the state became NaN or the plugin stopped): try a "
               "smaller --dt\n",
               program, diverged_runs, runs, runs == 1 ? "" : "s");
  return diverged_runs == runs ? 1 : 0;
}

/// A progress bar on stderr for a demo's runs when stderr is a terminal (nothing otherwise, so
/// that logs and tests see only the table). Call finish() before printing a run's row.
class RunProgress {
 public:
  RunProgress() : terminal_(isatty(STDERR_FILENO) == 1), bar_(std::cerr) {}
  /// The callback for the run labelled `what` (empty when stderr is not a terminal).
  ProgressCallback track(std::string what) {
    if (!terminal_) return {};
    return [this, what = std::move(what)](double fraction) { bar_.update(fraction, what); };
  }
  void finish() { bar_.finish(); }

 private:
  bool terminal_;
  format::ProgressBar bar_;
};

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
