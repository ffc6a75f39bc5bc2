#pragma once
/// @file
/// The scenarios of `gcbridge compare`: a model, an initial state, a duration and a torque
/// program, the same for every engine.
///
/// - `passive`: released at rest from scenarioPose (away from the neutral configuration);
///   gravity only.
/// - `zero_gravity`: floating base, gravity 0, the base spinning and drifting, every joint
///   moving; internal joint torques only (sinusoids, none on the free root): momentum must stay
///   constant.
/// - `tracking`: starts on the reference; a joint-space controller, or Bullet's own joint motors as
///   the example apps drive them, tracks sinusoids about the pose. With `ground`, a floating base
///   stands on a static plane in Bullet's engines (ScenarioOptions::ground).
/// - `sweep`: as `passive`, run at many steps: speed against accuracy.
///
/// Every scenario removes the model's joint position limits (and ball joints' swing and twist
/// limits): gcbridge's integrators do not model limits, and a limit reached by one engine and not
/// another says nothing about integration. (One exception the rigid-body engine keeps: a universal
/// joint, two revolute joints through a massless link, is a btUniversalConstraint with Bullet's
/// own limits, rigid_body_world.hpp.) A torque program given as a recorded sequence
/// (readTorqueSequence) replaces the scenario's own, and waypoints (readWaypoints) replace the
/// tracking scenario's sinusoids.

#include <Eigen/Core>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compare/input_files.hpp"
#include "gcbridge/controllers/joint_control_mode.hpp"
#include "gcbridge/controllers/trajectory.hpp"
#include "gcbridge/dynamics/model.hpp"
#include "gcbridge/plugin/plugin.hpp"

namespace gcbridge::compare {

/// The scenarios (file comment).
enum class ScenarioKind { Passive, ZeroGravity, Tracking, Sweep };
/// "passive", "zero_gravity", "tracking", "sweep".
const char* toString(ScenarioKind kind);
/// @throws InvalidArgumentError listing the names.
ScenarioKind scenarioFromString(const std::string& name);

/// What the user chose.
struct ScenarioOptions {
  ScenarioKind kind = ScenarioKind::Passive;
  /// How the URDF becomes a model (the zero-gravity scenario always makes the base floating).
  ModelOptions model_options;
  /// Simulated time [s].
  double duration = 2.0;
  /// Initial state (empty: the scenario's own).
  Eigen::VectorXd q0, v0;
  /// The pose the scenario starts from when q0 is empty, the tracking sinusoids' centre (a
  /// .bullet file's state; empty: scenarioPose).
  Eigen::VectorXd pose;
  /// The tracking scenario's controller (controllers/joint_control_mode.hpp), at a closed-loop
  /// natural frequency of 20 rad/s, PD gains scaled by diag M(q0).
  JointControlMode controller = JointControlMode::ComputedTorque;
  /// Tracking: Bullet's own joint motors instead of `controller` (--controller bullet_motors,
  /// the example apps' law; Scenario::bullet_motors).
  bool bullet_motors = false;
  /// Tracking: how the controller's torques act on Bullet's engines (--actuation).
  Actuation actuation = Actuation::Forces;
  /// A recorded torque sequence file replacing the scenario's torques (empty: none).
  std::string torques_path;
  /// Tracking: a waypoint file (readWaypoints) replacing the sinusoids as the reference (empty:
  /// the sinusoids). The run starts on it unless q0 / v0 are given.
  std::string trajectory_path;
  /// Tracking on the ground (--ground): a static plane under the floating-base model, normal
  /// against gravity, 1 cm below its lowest collision point at q0 (so it drops onto it), its
  /// collision shapes on and its free root unactuated (torque 0). Only Bullet's engines run
  /// (gcbridge's integrators know no contacts), and the tracking reference q_d(t)
  /// takes the RK4 reference's place; every error is over the joints, the free root left out.
  bool ground = false;
  /// Largest |tau| of every actuated dof [N m or N] (--max-torque; infinity: none): the
  /// controllers' torques are clamped to it and Bullet's motors' efforts bounded by it.
  double max_torque = std::numeric_limits<double>::infinity();
};

/// A controller for one engine: its torques, and the accelerations it aims at (empty when its law
/// has none), which Bullet's engines' joint motors take as targets (PluginOptions::
/// motor_accelerations).
struct EngineControl {
  ControlFunction torques;
  std::function<const Eigen::VectorXd&()> accelerations;
};

/// Makes a controller for an engine stepping with h [s] (a fresh one per engine).
using ControlFactory = std::function<EngineControl(double h)>;

/// One scenario, ready to run.
struct Scenario {
  ScenarioKind kind = ScenarioKind::Passive;
  /// The model every engine simulates (limits removed: file comment); shared, so that the
  /// controllers and trajectories pointing at it stay valid when the scenario is moved.
  std::shared_ptr<const Model> model;
  Eigen::VectorXd q0;      ///< initial positions (nq)
  Eigen::VectorXd v0;      ///< initial velocities (nv)
  double duration = 2.0;   ///< simulated time [s]
  ControlFactory control;  ///< empty: passive
  std::string torques;     ///< what drives the model, in words (for the report)
  /// The tracking reference q_d(t) (tracking scenario; empty otherwise).
  std::function<void(double t, Eigen::VectorXd& q_d)> desired;
  /// The same as a trajectory (q_d, v_d, a_d; tracking scenario; null otherwise).
  std::shared_ptr<const Trajectory> trajectory;
  /// ScenarioOptions::ground.
  bool ground = false;
  /// Per dof, the largest |tau| (nv; infinity: none; 0: unactuated); empty: no limits at all.
  Eigen::VectorXd torque_limits;
  /// The dofs every error is measured over (the joints' with ground); empty: all.
  std::vector<int> measured_dofs;
  /// Tracking with Bullet's own joint motors: the Bullet engines drive the motor of each dof
  /// bulletMotorDofs names with the example apps' velocity (q_d(t) - q) / h, within torque_limits
  /// (EngineSetup::bullet_motors); `control` is then the torque such a motor applies, for the
  /// other engines and the reference: the one that reaches that velocity in one step of h, the
  /// other joints left passive.
  bool bullet_motors = false;
  /// How `control`'s torques act on Bullet's engines.
  Actuation actuation = Actuation::Forces;
  /// Tracking: the controller as labels name it ("bullet_motors", "computed_torque_step:motors");
  /// empty otherwise.
  std::string controller;
  /// What the scenario changed about the model, in words (for the report).
  std::vector<std::string> notes;
};

/// The scenario's initial pose: q_neutral (+) delta with delta +-0.6 rad on revolute joints
/// (alternating sign from the root), 0.05 m on prismatic ones, the rotation vector (0.3, -0.2,
/// 0.25) rad on ball joints, 0 on a free root.
Eigen::VectorXd scenarioPose(const Model& model);

/// The passive and sweep scenarios' initial velocity, so that every model moves whatever its
/// shape (a floating base in free fall, or links hanging on their axes, would otherwise hardly
/// move): +-1 rad/s alternating from the root on revolute joints, 0.1 m/s on prismatic ones,
/// (0.5, -0.4, 0.3) rad/s on ball joints; a free root spins at (0.3, -0.2, 0.5) rad/s and drifts
/// at (0.1, 0, 0.2) m/s (in its frame).
Eigen::VectorXd scenarioVelocity(const Model& model);

/// The model of `description` as the scenario simulates it: joint limits removed; for
/// zero_gravity, a floating base and gravity 0; otherwise built with options.model_options.
/// @throws ModelError.
Model scenarioModel(const RobotDescription& description, const ScenarioOptions& options);

/// Loads the URDF at `urdf_path` as the scenario simulates it (scenarioModel).
/// @throws UrdfError / ModelError.
Model loadScenarioModel(const std::string& urdf_path, const ScenarioOptions& options);

/// Builds the scenario for `model` (from loadScenarioModel, or any model: its limits are then
/// ignored by gcbridge's integrators only).
/// @throws InvalidArgumentError for a bad option (q0 or v0 of the wrong size or not finite, a
///   duration <= 0, a bad torque file, a torque file with tracking or pushing a free root in
///   zero gravity), a zero_gravity model with gravity or a fixed base, or a ball joint that is
///   not a quaternion; with ground, another scenario than tracking, a fixed base, no joint besides
///   the free root, no gravity or no collision geometry; a max_torque that is not > 0.
Scenario makeScenario(Model model, const ScenarioOptions& options);

}  // namespace gcbridge::compare
