#pragma once
/// @file
/// The arguments of the `gcbridge` commands that load a model (info, dynamics, compare): one
/// model file, a URDF or a Bullet world (.bullet), and the options of gcbridge::loadUrdf or of
/// world inference.

#include <Eigen/Core>
#include <string>
#include <vector>

#include "cli/arguments.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge::cli {

/// What every command that loads a model takes: the file, load options, --json and --help.
struct ModelRequest {
  std::string path;
  gcbridge::ModelOptions model_options;
  /// A .bullet file's root body, by name (--root; empty: found by inference): its model is then
  /// the tree of rigid bodies around it.
  std::string root;
  /// A .bullet file's multibody, by its base's name or its index (--multibody; empty: the first,
  /// when the file holds one and no --root is given).
  std::string multibody;
  /// A .bullet file's chain alone, by the name of its first body, the one a static body holds
  /// (--subtree; empty: the whole tree).
  std::string subtree;
  /// Switch the enabled motors of a .bullet file's rigid-body tree off instead of refusing them
  /// (--motors off; --motors refuse is the default).
  bool motors_off = false;
  bool json = false;
  bool help = false;
};

/// Reads the current argument if it is a model option (--floating-base, --no-merge,
/// --ball VALUE, --scale S; a value also as --option=VALUE). @return whether it was one.
/// @throws UsageError for a bad or missing --ball or --scale.
bool readModelOption(ArgumentReader& args, gcbridge::ModelOptions& options);

/// A list given on the command line as a vector of the model's size `n` (`size_name` "nq" or
/// "nv"). @throws UsageError pointing at `help_command`: "--q has 6 values, the model needs
///   nq = 7".
Eigen::VectorXd sizedList(const std::string& option, const std::vector<double>& values, int n,
                          const char* size_name, const std::string& help_command);

/// The value of --motors: true for "off", false for "refuse". @throws UsageError for another.
bool readMotorsValue(ArgumentReader& args);

/// Whether `path` names a Bullet world file (the extension .bullet, in any case).
bool isBulletFile(const std::string& path);

/// Checks that the request's options fit its file: --root, --subtree, --motors off and
/// --multibody only for a .bullet file, --multibody with none of the others, --root and --subtree
/// not together; --floating-base only for a URDF (a world's base is what the world says);
/// --no-merge on a .bullet file only with --multibody.
/// @throws UsageError naming the option.
void checkModelSourceOptions(const ModelRequest& request, const ArgumentReader& args);

/// Parses the arguments of `command`: one model file, `--`, --help, --json, --root NAME,
/// --subtree NAME, --motors off|refuse, --multibody NAME|INDEX and the
/// model load options; any other option goes to `extra(args)`, which returns false for an
/// unknown one.
/// @throws UsageError for an unknown option, a second file, no file, or options that do not fit
///   the file (checkModelSourceOptions).
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
    } else if (args.is("--root")) {
      request.root = args.value();
    } else if (args.is("--multibody")) {
      request.multibody = args.value();
    } else if (args.is("--subtree")) {
      request.subtree = args.value();
    } else if (args.is("--motors")) {
      request.motors_off = readMotorsValue(args);
    } else if (!readModelOption(args, request.model_options) && !extra(args)) {
      throw args.error(command + ": unknown option '" + args.argument() + "'");
    }
  }
  if (!request.help && request.path.empty()) {
    throw args.error(command + ": no model file given");
  }
  if (!request.help) checkModelSourceOptions(request, args);
}

}  // namespace gcbridge::cli
