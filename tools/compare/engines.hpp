#pragma once
/// @file
/// The engines `gcbridge compare` runs one model through, behind one interface, each measured in
/// generalized coordinates:
///
/// - `rigid_body`: Bullet btRigidBody + constraints (bridge/rigid_body_world.hpp); q and v read
///   through the bridge (sparse method, Liu & Jain eq. 62-66). q is read after every step, as the
///   plugin does, so that revolute angles unwrap continuously; its cost counts in the engine's.
/// - `multibody`: Bullet btMultiBody (bridge/multibody_builder.hpp), no damping or clamps.
///   On the ground its links collide with the plane but not with each other (pybullet's
///   default), where the rigid-body engine's links that no joint connects touch each other too.
/// - `euler`: gcbridge's semi-implicit Euler on the ABA (dynamics/integrators.hpp).
/// - `rk4`: gcbridge's Runge-Kutta 4 on the manifold.
/// - `implicit_euler`: gcbridge's implicit Euler (Newton).
///
/// A controller runs in closed loop on each engine's own state: the Bullet engines call it once
/// per step through the plugin (plugin/plugin.hpp), the integrators wherever their scheme
/// evaluates the forces (RK4: four times per step). Bullet's own joint motors
/// (EngineSetup::bullet_motors) drive the Bullet engines without the plugin.
///
/// Energy and momentum: the Bullet rigid-body engine measures them on its bodies (kinetic energy
/// 1/2 m |v|^2 + 1/2 w . I w of every moving body, gravity potential -m g . p, momentum about the
/// world origin), so that the energy in the joints' drift counts too; the other engines from q, v
/// with the model (dynamics/energy.hpp). The rigid-body figures leave out the static root body of
/// a fixed-base model, a constant: compare changes, not absolute values.

#include <Eigen/Core>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gcbridge/dynamics/model.hpp"
#include "gcbridge/plugin/plugin.hpp"

namespace gcbridge::compare {

/// The engines (file comment).
enum class EngineKind {
  RigidBody,
  RigidBodyProjected,
  MultiBody,
  SemiImplicitEuler,
  RungeKutta4,
  ImplicitEuler
};

/// All engines, in the order of the file comment.
const std::vector<EngineKind>& allEngines();
/// "rigid_body", "rigid_body_projected", "multibody", "euler", "rk4", "implicit_euler".
const char* toString(EngineKind kind);
/// One line saying what the engine is ("Bullet btRigidBody + constraints, 10 iterations" style
/// texts are made by the report; this is the fixed part).
const char* describe(EngineKind kind);
/// Whether the engine runs Bullet's rigid bodies (whose joints come apart: joint errors, velocity
/// residual and the solver settings apply).
bool isRigidBody(EngineKind kind);
/// The engine named `name` (toString's names). @throws InvalidArgumentError listing the names.
EngineKind engineFromString(const std::string& name);

/// Settings of the Bullet rigid-body engine's world (bridge/rigid_body_world.hpp).
struct RigidBodySettings {
  int solver_iterations = 10;  ///< constraint solver iterations per step (Bullet's default)
  double erp = 0.2;            ///< error reduction parameter of the joints (Bullet's default)
  double cfm = 0.0;            ///< constraint force mixing of the joints (Bullet's default)
};

/// What an engine measured at one instant.
struct Sample {
  double t = 0.0;       ///< time [s]
  Eigen::VectorXd q;    ///< positions (nq)
  Eigen::VectorXd v;    ///< velocities (nv)
  double energy = 0.0;  ///< kinetic + gravity potential energy [J] (file comment)
  /// Spatial momentum about the world origin in world axes: angular [kg m^2/s], linear [kg m/s].
  Vector6 momentum = Vector6::Zero();
  /// Rigid-body engine only (NaN for the others): the largest joint position error (pivot
  /// separation, or offset off a slider's axis) [m], the largest joint rotation error (hinge axis
  /// misalignment, or any rotation of a slider or weld) [rad], and the largest per-link residual
  /// ||J_k v - V_k|| of the velocities read (m/s and rad/s together).
  double pivot_separation = std::numeric_limits<double>::quiet_NaN();
  double axis_error = std::numeric_limits<double>::quiet_NaN();
  double velocity_residual = std::numeric_limits<double>::quiet_NaN();
  /// Rigid-body engines only (empty for the others): each link where its body is, X_WL, which
  /// the viewer shows instead of the model posed at q.
  std::vector<Transform> link_poses;
};

/// How an engine starts.
struct EngineSetup {
  Eigen::VectorXd q0;  ///< initial positions (nq)
  Eigen::VectorXd v0;  ///< initial velocities (nv)
  /// The controller (a fresh one for this engine: controllers keep state); empty: passive.
  ControlFunction control;
  int rate_hz = 240;  ///< steps per second; the step is 1 / rate_hz [s]
  RigidBodySettings rigid;
  /// Bullet's own joint motors instead of `control` on the Bullet engines: the tracking
  /// reference's positions q_d(t) (nq), and every step the motor of each dof bulletMotorDofs
  /// names (rigid_body: the hinge's or slider's, bridge/joint_motors.hpp; multibody: a
  /// MultiBodyMotors', bridge/multibody_motors.hpp, on the ground every one of them, a ball's
  /// with the position q_d(t)) gets the example apps' velocity (q_d(t) - q) / h, within
  /// torque_limits.
  /// The other engines run `control`. Empty: none.
  std::function<void(double t, Eigen::VectorXd& q_d)> bullet_motors;
  /// The Bullet engines: how `control`'s torques act (the plugin's Actuation), and the
  /// accelerations the controller aims at, for its joint motors (PluginOptions::
  /// motor_accelerations; empty: ABA).
  Actuation actuation = Actuation::Forces;
  std::function<const Eigen::VectorXd&()> motor_accelerations;
  /// Per dof, the largest |tau| (nv; empty: none): `control`'s torques are clamped to it, and it
  /// bounds the effort of Bullet's motors.
  Eigen::VectorXd torque_limits;
  /// Bullet's engines only: collision shapes on (multibody: the links' colliders, no
  /// self-collision) and a static plane, normal against gravity, 1 cm below the model's lowest
  /// collision point at q0 (ScenarioOptions::ground).
  bool ground = false;
};

/// One engine stepping one model from one state.
class Engine {
 public:
  virtual ~Engine() = default;
  /// Advances `steps` steps of 1 / rate_hz.
  /// @throws gcbridge::Error when the engine fails: a NaN state, a Newton solve that does not
  ///   converge, a controller error, or a Bullet world the bridge can no longer read.
  virtual void advance(int steps) = 0;
  /// Measures the current state into `sample` (all fields but t).
  /// @throws gcbridge::Error as advance.
  virtual void measure(Sample& sample) = 0;
};

/// Whether the engine simulates contacts (Bullet's: the rigid-body engines and multibody), so
/// that it can stand a model on the ground.
bool hasContacts(EngineKind kind);

/// Per dof (nv): whether Bullet has a motor for it on its rigid bodies: the dofs of revolute and
/// prismatic joints, but for a universal joint's two (a massless link between two revolute
/// joints: a btUniversalConstraint has no motor). bullet_motors drives these on both Bullet
/// engines, and the reference and the integrators apply the torques of these; on the ground
/// (where neither runs) multibody drives its ball joints and universal joints' revolutes too
/// (bridge/multibody_motors.hpp).
std::vector<bool> bulletMotorDofs(const Model& model);

/// Builds `kind` for `model` (which must outlive the engine) at setup.q0, setup.v0.
/// @throws InvalidArgumentError (or the builders' errors, naming the link or joint) if the engine
///   cannot simulate the model or the setup is bad.
std::unique_ptr<Engine> makeEngine(EngineKind kind, const Model& model, const EngineSetup& setup);

}  // namespace gcbridge::compare
