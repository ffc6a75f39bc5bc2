#include "gcbridge/controllers/joint_control_mode.hpp"

#include <cmath>
#include <optional>

#include "gcbridge/controllers/computed_torque.hpp"
#include "gcbridge/controllers/joint_pd.hpp"
#include "gcbridge/controllers/stable_pd.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/detail/enum_names.hpp"
#include "gcbridge/dynamics/errors.hpp"

namespace gcbridge {

namespace {

constexpr auto kModeNames = detail::enumNames<JointControlMode>(
    {{JointControlMode::ComputedTorque, "computed_torque"},
     {JointControlMode::PDGravity, "pd_gravity"},
     {JointControlMode::StablePD, "stable_pd"},
     {JointControlMode::ComputedTorqueStepEnd, "computed_torque_step"}});

}  // namespace

const char* toString(JointControlMode mode) { return kModeNames.name(mode, "?"); }

JointControlMode jointControlModeFromString(const std::string& name) {
  if (const std::optional<JointControlMode> mode = kModeNames.find(name)) return *mode;
  throw InvalidArgumentError("unknown joint control mode '" + name + "' (choose from " +
                             kModeNames.list() + ")");
}

std::unique_ptr<JointController> makeJointController(const Model& model, JointControlMode mode,
                                                     double omega, const Eigen::VectorXd& q_gains,
                                                     double time_step) {
  if (!(omega > 0.0) || !std::isfinite(omega)) {
    throw InvalidArgumentError("makeJointController: omega must be a finite number > 0 rad/s");
  }
  validateConfiguration(model, q_gains);
  const Eigen::VectorXd K = Eigen::VectorXd::Constant(model.nv, omega * omega);
  const Eigen::VectorXd D = Eigen::VectorXd::Constant(model.nv, 2.0 * omega);
  // The inertia each dof sees at q_gains scales the PD gains.
  Data data(model);
  crba(model, data, q_gains);
  const Eigen::VectorXd inertia = data.M.diagonal();
  switch (mode) {
    case JointControlMode::ComputedTorque:
      return std::make_unique<ComputedTorque>(model, K, D);
    case JointControlMode::PDGravity:
      return std::make_unique<JointPD>(model, K.cwiseProduct(inertia), D.cwiseProduct(inertia),
                                       /*gravity_compensation=*/true);
    case JointControlMode::StablePD:
      return std::make_unique<StablePD>(model, K.cwiseProduct(inertia), D.cwiseProduct(inertia),
                                        time_step);
    case JointControlMode::ComputedTorqueStepEnd: {
      if (!(time_step > 0.0)) {
        throw InvalidArgumentError(
            "makeJointController: computed_torque_step needs the step > 0 s");
      }
      auto controller = std::make_unique<ComputedTorque>(model, K, D);
      controller->aimAtStepEnd(time_step);
      return controller;
    }
  }
  throw InvalidArgumentError("makeJointController: unknown mode");
}

}  // namespace gcbridge
