#include "cli/model_options.hpp"

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

}  // namespace gcbridge::cli
