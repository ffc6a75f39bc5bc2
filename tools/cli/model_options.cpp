#include "cli/model_options.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

namespace gcbridge::cli {

bool readModelOption(ArgumentReader& args, gcbridge::ModelOptions& options) {
  if (args.is("--floating-base")) {
    args.checkFlag();
    options.floating_base = true;
  } else if (args.is("--no-merge")) {
    args.checkFlag();
    options.merge_fixed_joints = false;
  } else if (args.is("--ball")) {
    const std::string name = args.value();
    const std::optional<BallParametrization> ball = ballParametrizationFromString(name);
    if (!ball) {
      throw args.error("--ball: unknown parametrization '" + name +
                       "' (choose quaternion, expmap or euler)");
    }
    options.ball = *ball;
  } else if (args.is("--scale")) {
    options.scale = parsePositive("--scale", args.value(), args.helpCommand());
  } else {
    return false;
  }
  return true;
}

Eigen::VectorXd sizedList(const std::string& option, const std::vector<double>& values, int n,
                          const char* size_name, const std::string& help_command) {
  if (static_cast<int>(values.size()) != n) {
    throw UsageError(option + " has " + std::to_string(values.size()) +
                         (values.size() == 1 ? " value" : " values") + ", the model needs " +
                         size_name + " = " + std::to_string(n),
                     help_command);
  }
  return Eigen::Map<const Eigen::VectorXd>(values.data(), n);
}

bool readMotorsValue(ArgumentReader& args) {
  const std::string value = args.value();
  if (value != "off" && value != "refuse") {
    throw args.error("--motors: unknown value '" + value +
                     "' (off: switch a .bullet file's joint motors off; refuse: the default)");
  }
  return value == "off";
}

bool isBulletFile(const std::string& path) {
  const std::string extension = ".bullet";
  if (path.size() <= extension.size()) return false;
  return std::equal(
      extension.begin(), extension.end(), path.end() - extension.size(),
      [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
}

void checkModelSourceOptions(const ModelRequest& request, const ArgumentReader& args) {
  if (isBulletFile(request.path)) {
    if (request.model_options.floating_base) {
      throw args.error("--floating-base is for URDF files: '" + request.path +
                       "' is a Bullet world, whose base is floating when its root body has no "
                       "constraint to a static body (a multibody's when it is not fixed)");
    }
    if (request.model_options.scale != 1.0) {
      throw args.error("--scale is for URDF files: '" + request.path +
                       "' is a Bullet world, whose bodies have the sizes the world gives them");
    }
    if (!request.model_options.merge_fixed_joints && request.multibody.empty()) {
      throw args.error(
          "--no-merge on a Bullet world is for a multibody's fixed links: give "
          "--multibody NAME|INDEX (a tree of rigid bodies keeps its fixed joints)");
    }
    const char* rigid = !request.root.empty()      ? "--root"
                        : !request.subtree.empty() ? "--subtree"
                        : request.motors_off       ? "--motors off"
                                                   : nullptr;
    if (rigid != nullptr && !request.multibody.empty()) {
      throw args.error(std::string(rigid) +
                       " and --multibody pick different models of a Bullet world: the tree of "
                       "rigid bodies (--root, --subtree, --motors off), or a btMultiBody (whose "
                       "motors gcbridge reports, not refuses); give one");
    }
    if (!request.root.empty() && !request.subtree.empty()) {
      throw args.error("--root and --subtree both pick where the tree starts; give one");
    }
  } else {
    for (const auto& [name, given] : {std::pair{"--root", !request.root.empty()},
                                      std::pair{"--subtree", !request.subtree.empty()},
                                      std::pair{"--motors off", request.motors_off},
                                      std::pair{"--multibody", !request.multibody.empty()}}) {
      if (given) {
        throw args.error(std::string(name) + " picks a model in a Bullet world (.bullet); '" +
                         request.path + "' is not one");
      }
    }
  }
}

}  // namespace gcbridge::cli
