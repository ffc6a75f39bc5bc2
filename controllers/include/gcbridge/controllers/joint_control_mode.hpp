#pragma once
/// @file
/// The joint-space tracking controllers by name (as pybullet users pick a control mode), all
/// tuned to one closed-loop bandwidth so that they can be compared:
/// - `computed_torque`: ComputedTorque (computed_torque.hpp), K = w^2, D = 2 w [1/s^2, 1/s];
/// - `pd_gravity`: JointPD with gravity compensation, Kp = w^2 M_ii, Kd = 2 w M_ii;
/// - `stable_pd`: StablePD (stable_pd.hpp), Kp = w^2 M_ii, Kd = 2 w M_ii;
/// - `computed_torque_step`: ComputedTorque aimed at the end of the simulator's step h
///   (aimAtStepEnd): no bandwidth, the reference reached in one semi-implicit Euler step.
/// M_ii is the diagonal of M(q) at a configuration the caller chooses (the inertia each dof sees
/// there), so that every mode aims at the natural frequency w, critically damped.

#include <Eigen/Core>
#include <memory>
#include <string>

#include "gcbridge/controllers/controller.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

/// The modes of the file comment.
enum class JointControlMode { ComputedTorque, PDGravity, StablePD, ComputedTorqueStepEnd };

/// "computed_torque", "pd_gravity", "stable_pd", "computed_torque_step".
const char* toString(JointControlMode mode);

/// The mode named `name` (toString's names). @throws InvalidArgumentError listing the names.
JointControlMode jointControlModeFromString(const std::string& name);

/// A controller of `mode` tuned as the file comment says.
/// @param omega closed-loop natural frequency w [rad/s] (> 0)
/// @param q_gains configuration whose M(q) diagonal scales the PD gains (nq)
/// @param time_step the simulation step h [s] (> 0; StablePD predicts with it,
/// computed_torque_step aims at its end, the others ignore it)
/// @throws InvalidArgumentError naming the argument.
std::unique_ptr<JointController> makeJointController(const Model& model, JointControlMode mode,
                                                     double omega, const Eigen::VectorXd& q_gains,
                                                     double time_step);

}  // namespace gcbridge
