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

bool isBulletFile(const std::string& path) {
  const std::string extension = ".bullet";
  if (path.size() <= extension.size()) return false;
  return std::equal(
      extension.begin(), extension.end(), path.end() - extension.size(),
      [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
}

void checkModelSourceOptions(const ModelRequest& request, const ArgumentReader& args) {
  if (isBulletFile(request.path)) {
    for (const auto& [name, given] :
         {std::pair{"--floating-base", request.model_options.floating_base},
          std::pair{"--no-merge", !request.model_options.merge_fixed_joints}}) {
      if (given) {
        throw args.error(std::string(name) + " is for URDF files: '" + request.path +
                         "' is a Bullet world, whose base is floating when its root body has no "
                         "constraint to a static body, and whose fixed joints stay");
      }
    }
  } else if (!request.root.empty()) {
    throw args.error("--root picks the root body of a Bullet world (.bullet); '" + request.path +
                     "' is not one");
  }
}

}  // namespace gcbridge::cli
