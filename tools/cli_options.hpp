#pragma once
/// @file
/// Command-line parsing shared by the `gcbridge` commands (tools/gcbridge.cpp and
/// tools/compare/compare_command.cpp): usage errors, number lists and the model options.

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gcbridge/dynamics/model.hpp"

namespace gcbridge::cli {

/// A command-line mistake: reported with a pointer to the help and exit code 2.
class UsageError : public std::runtime_error {
 public:
  UsageError(const std::string& message, std::string help_command)
      : std::runtime_error(message), help_command_(std::move(help_command)) {}
  const std::string& helpCommand() const { return help_command_; }

 private:
  std::string help_command_;
};

/// The value of --ball. @throws UsageError (pointing to `help_command`) for an unknown name.
gcbridge::BallParametrization parseBall(const std::string& name, const std::string& help_command);

/// Reads args[i] if it is one of the model options shared by info, dynamics and compare
/// (--floating-base,
/// --no-merge, --ball VALUE, --ball=VALUE), advancing i past a separate value.
/// @return whether args[i] was a model option. @throws UsageError for a bad or missing --ball.
bool parseModelOption(const std::vector<std::string>& args, size_t& i,
                      gcbridge::ModelOptions& options, const std::string& help_command);

/// "0.1,-2, 3e-3" as numbers; an empty or blank text is the empty list (for nq or nv = 0).
/// @throws UsageError (pointing to `help_command`) naming `option` and the entry for an empty
///   entry, a non-number, or a number that is NaN, infinite or out of the range of double.
std::vector<double> parseNumberList(const std::string& option, const std::string& text,
                                    const std::string& help_command);

/// What every command that loads a model takes: the file, load options, --json and --help.
struct ModelRequest {
  std::string path;
  gcbridge::ModelOptions model_options;
  bool json = false;
  bool help = false;
};

/// Parses the arguments of `command`: one model file, `--`, --help, --json and the model load
/// options; any other option goes to `extra(args, i)`, which returns false for an unknown one.
/// @throws UsageError for an unknown option, a second file or no file.
template <typename Extra>
void parseModelCommand(const std::vector<std::string>& args, const std::string& command,
                       ModelRequest& request, Extra&& extra) {
  const std::string help = "gcbridge " + command + " --help";
  bool options_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const bool is_option = !options_done && arg.size() > 1 && arg[0] == '-';
    if (!is_option) {
      if (!request.path.empty()) {
        throw UsageError(
            command + " takes one model file, got '" + request.path + "' and '" + arg + "'", help);
      }
      request.path = arg;
    } else if (arg == "--") {
      options_done = true;
    } else if (arg == "-h" || arg == "--help") {
      request.help = true;
    } else if (arg == "--json") {
      request.json = true;
    } else if (!parseModelOption(args, i, request.model_options, help.c_str()) && !extra(args, i)) {
      throw UsageError(command + ": unknown option '" + arg + "'", help);
    }
  }
  if (!request.help && request.path.empty()) {
    throw UsageError(command + ": no model file given", help);
  }
}

}  // namespace gcbridge::cli
