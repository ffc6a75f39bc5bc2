#pragma once
/// @file
/// `gcbridge compare`: the command line of the comparison (comparison.hpp) and its output
/// (output.hpp).

#include <iosfwd>
#include <string>
#include <vector>

namespace gcbridge::compare {

/// The text of `gcbridge compare --help`.
extern const char* const kCompareHelp;

/// Runs `gcbridge compare` with the arguments after "compare": the summary table goes to `out`,
/// a progress bar to `err` when `progress_default` (stderr is a terminal) or --progress says so.
/// @return the exit code: 0 when the comparison ran (engines that failed are part of the result).
/// @throws cli::UsageError for a command-line mistake; gcbridge::Error (UrdfError, ModelError,
///   InvalidArgumentError) for a model or input the library rejects; std::runtime_error for a
///   file that cannot be written.
int runCompareCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                      bool progress_default);

}  // namespace gcbridge::compare
