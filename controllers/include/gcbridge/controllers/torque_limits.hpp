#pragma once
/// @file
/// Torque saturation |tau_i| <= tau_max_i per dof, with a report of which dofs saturated.

#include <Eigen/Core>
#include <vector>

#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

/// Symmetric per-dof torque limits. apply() clamps a torque vector in place and records which dofs
/// were clamped; it allocates nothing.
class TorqueLimits {
 public:
  /// From the model's effort limits: every dof of joint k gets |tau| <= joints[k].limits.effort
  /// [N m or N] (component-wise for ball and free joints). Joints without a limit (infinite effort,
  /// the default of a URDF joint without <limit>, free joints) are not limited.
  explicit TorqueLimits(const Model& model);
  /// Given limits. @param max_abs_tau per dof (size nv), each > 0 or +infinity [N m or N].
  /// @throws InvalidArgumentError on a wrong size, NaN or a non-positive entry.
  TorqueLimits(const Model& model, const Eigen::VectorXd& max_abs_tau);

  /// Clamps tau_i to [-max_i, max_i] in place and records which dofs saturated (|tau_i| > max_i
  /// before clamping). @param[in,out] tau (size nv). @return the number of saturated dofs.
  /// @throws InvalidArgumentError if tau has the wrong size (tau and the report unchanged).
  int apply(Eigen::Ref<Eigen::VectorXd> tau);

  /// The limits (size nv).
  const Eigen::VectorXd& maxAbsTorque() const { return max_abs_tau_; }
  /// Which dofs saturated at the last apply() (size nv).
  const std::vector<bool>& saturated() const { return saturated_; }
  /// How many dofs saturated at the last apply().
  int numSaturated() const { return num_saturated_; }

 private:
  Eigen::VectorXd max_abs_tau_;
  std::vector<bool> saturated_;
  int num_saturated_ = 0;
};

}  // namespace gcbridge
