#pragma once
// Private to the bridge: the argument checks of JointMotors::drive and MultiBodyMotors::drive.

#include <Eigen/Core>
#include <cmath>
#include <string>
#include <vector>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/dynamics/errors.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace detail {

/// @throws InvalidArgumentError naming `function` unless v_target and max_effort have one entry
///   per dof of `driven`, h is positive and finite, and every driven dof's target is finite and
///   its max effort >= 0.
inline void checkMotorTargets(const char* function, const std::vector<bool>& driven,
                              const Eigen::VectorXd& v_target, const Eigen::VectorXd& max_effort,
                              double h) {
  const Eigen::Index nv = static_cast<Eigen::Index>(driven.size());
  if (v_target.size() != nv || max_effort.size() != nv) {
    throw InvalidArgumentError(std::string(function) +
                               ": v_target and max_effort must have nv = " + std::to_string(nv) +
                               " entries, got " + std::to_string(v_target.size()) + " and " +
                               std::to_string(max_effort.size()));
  }
  if (!(h > 0.0) || !std::isfinite(h)) {
    throw InvalidArgumentError(std::string(function) + ": the substep h must be positive, got " +
                               std::to_string(h));
  }
  for (Eigen::Index i = 0; i < nv; ++i) {
    if (!driven[i] || (std::isfinite(v_target(i)) && max_effort(i) >= 0.0)) continue;
    throw InvalidArgumentError(std::string(function) + ": dof " + std::to_string(i) +
                               " has target " + std::to_string(v_target(i)) + " and max effort " +
                               std::to_string(max_effort(i)) +
                               "; a target must be finite, a max effort >= 0");
  }
}

}  // namespace detail
GCBRIDGE_BULLET_NAMESPACE_END
