#pragma once
/// @file
/// The arguments of the `gcbridge` commands that load a model (info, dynamics, compare): one
/// model file and the options of gcbridge::loadUrdf.

#include <string>
#include <vector>

#include "cli/arguments.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge::cli {

/// What every command that loads a model takes: the file, load options, --json and --help.
struct ModelRequest {
  std::string path;
  gcbridge::ModelOptions model_options;
  bool json = false;
  bool help = false;
};

/// Reads the current argument if it is a model option (--floating-base, --no-merge,
/// --ball VALUE, --ball=VALUE). @return whether it was one.
/// @throws UsageError for a bad or missing --ball.
bool readModelOption(ArgumentReader& args, gcbridge::ModelOptions& options);

/// Parses the arguments of `command`: one model file, `--`, --help, --json and the model load
/// options; any other option goes to `extra(args)`, which returns false for an unknown one.
/// @throws UsageError for an unknown option, a second file or no file.
template <typename Extra>
void parseModelCommand(const std::vector<std::string>& arguments, const std::string& command,
                       ModelRequest& request, Extra&& extra) {
  ArgumentReader args(arguments, "gcbridge " + command + " --help");
  while (args.next()) {
    if (args.isOperand()) {
      if (!request.path.empty()) {
        throw args.error(command + " takes one model file, got '" + request.path + "' and '" +
                         args.argument() + "'");
      }
      request.path = args.argument();
    } else if (args.is("-h") || args.is("--help")) {
      args.checkFlag();
      request.help = true;
    } else if (args.is("--json")) {
      args.checkFlag();
      request.json = true;
    } else if (!readModelOption(args, request.model_options) && !extra(args)) {
      throw args.error(command + ": unknown option '" + args.argument() + "'");
    }
  }
  if (!request.help && request.path.empty()) {
    throw args.error(command + ": no model file given");
  }
}

}  // namespace gcbridge::cli
