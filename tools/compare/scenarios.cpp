#include "compare/scenarios.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "compare/engines.hpp"
#include "gcbridge/controllers/trajectory.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/detail/enum_names.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/rnea.hpp"
#include "gcbridge/dynamics/urdf.hpp"

namespace gcbridge::compare {
namespace {

constexpr auto kScenarioNames =
    detail::enumNames<ScenarioKind>({{ScenarioKind::Passive, "passive"},
                                     {ScenarioKind::ZeroGravity, "zero_gravity"},
                                     {ScenarioKind::Tracking, "tracking"},
                                     {ScenarioKind::Sweep, "sweep"}});

/// Closed-loop natural frequency of the tracking controllers [rad/s].
constexpr double kTrackingOmega = 20.0;
/// Amplitude of the tracking reference's sinusoids [rad or m].
constexpr double kTrackingAmplitude = 0.3;

/// Per dof: the tracking sinusoids' angular frequency 2 pi (0.5 + 0.1 (i mod 7)) [rad/s] and
/// phase 0.7 i [rad]; amplitude 0 on a free root (the controller holds it).
void trackingSinusoids(const Model& model, Eigen::VectorXd& amplitude, Eigen::VectorXd& frequency,
                       Eigen::VectorXd& phase) {
  amplitude = Eigen::VectorXd::Constant(model.nv, kTrackingAmplitude);
  frequency.resize(model.nv);
  phase.resize(model.nv);
  for (int i = 0; i < model.nv; ++i) {
    frequency(i) = 2.0 * M_PI * (0.5 + 0.1 * (i % 7));
    phase(i) = 0.7 * i;
  }
  for (const Joint& joint : model.joints) {
    if (joint.type == JointType::Free) amplitude.segment(joint.idx_v, joint.nv).setZero();
  }
}

/// The tracking scenario's controller on its trajectory, for an engine stepping with h; its PD
/// gains are scaled by diag M(q_gains). The controller points at the model: the scenario keeps
/// the model alive while its engines run.
EngineControl trackingController(const Model& model, JointControlMode mode,
                                 std::shared_ptr<const Trajectory> trajectory,
                                 const Eigen::VectorXd& q_gains, double h) {
  std::shared_ptr<JointController> controller =
      makeJointController(model, mode, kTrackingOmega, q_gains, h);
  controller->setTrajectory(std::move(trajectory));
  EngineControl control;
  control.torques = [controller](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                 Eigen::VectorXd& tau) { tau = controller->compute(t, q, v); };
  if (controller->targetAcceleration() != nullptr) {
    control.accelerations = [controller]() -> const Eigen::VectorXd& {
      return *controller->targetAcceleration();
    };
  }
  return control;
}

/// The zero-gravity scenario's internal torques: tau_i = 0.5 M_ii(q0) sin(w_i t + phi_i) on every
/// dof but a free root's (w_i, phi_i as the tracking sinusoids): about 0.5 rad/s^2 per joint.
ControlFactory internalTorques(const Model& model, const Eigen::VectorXd& q0) {
  Data data(model);
  crba(model, data, q0);
  Eigen::VectorXd amplitude, frequency, phase;
  trackingSinusoids(model, amplitude, frequency, phase);
  amplitude = 0.5 / kTrackingAmplitude * amplitude.cwiseProduct(data.M.diagonal());
  return [amplitude, frequency, phase](double) {
    return EngineControl{
        [amplitude, frequency, phase](double t, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                      Eigen::VectorXd& tau) {
          tau = amplitude.array() * (frequency.array() * t + phase.array()).sin();
        },
        {}};
  };
}

/// The description of the URDF with every position, swing and twist limit removed.
RobotDescription withoutLimits(RobotDescription description) {
  const double inf = std::numeric_limits<double>::infinity();
  for (JointDescription& joint : description.joints) {
    joint.limits.lower = -inf;
    joint.limits.upper = inf;
    joint.swing1 = joint.swing2 = joint.twist = inf;
  }
  return description;
}

/// `x` sized and finite, or InvalidArgumentError naming `what`.
void checkVector(const Eigen::VectorXd& x, int size, const std::string& what) {
  if (x.size() != size) {
    throw InvalidArgumentError(what + " has " + std::to_string(x.size()) +
                               " values, the model needs " + std::to_string(size));
  }
  if (!x.allFinite()) throw InvalidArgumentError(what + " holds a NaN or infinite value");
}

}  // namespace

const char* toString(ScenarioKind kind) { return kScenarioNames.name(kind, "?"); }

ScenarioKind scenarioFromString(const std::string& name) {
  if (const std::optional<ScenarioKind> kind = kScenarioNames.find(name)) return *kind;
  throw InvalidArgumentError("unknown scenario '" + name + "' (choose from " +
                             kScenarioNames.list() + ")");
}

namespace {

/// A value per velocity coordinate of every joint but a free root (left 0): `length` on
/// translations, +-`angle` alternating from the root on one-coordinate rotations, `angles[i % 3]`
/// on the rotations of a joint with several.
Eigen::VectorXd perJointValues(const Model& model, double length, double angle,
                               const double (&angles)[3]) {
  Eigen::VectorXd values = Eigen::VectorXd::Zero(model.nv);
  double sign = 1.0;
  for (const Joint& joint : model.joints) {
    if (joint.type == JointType::Free) continue;
    const std::vector<JointCoordinate> coordinates = jointVelocityCoordinates(joint);
    for (int i = 0; i < joint.nv; ++i) {
      double& value = values(joint.idx_v + i);
      if (std::string(coordinates[i].unit) != "rad/s") {
        value = length;
      } else if (joint.nv == 1) {
        value = angle * sign;
        sign = -sign;
      } else {
        value = angles[i % 3];
      }
    }
  }
  return values;
}

}  // namespace

Eigen::VectorXd scenarioPose(const Model& model) {
  // 1-dof angles 0.6 rad with alternating signs, the angles of a joint with several 0.3, -0.2,
  // 0.25 rad, lengths 0.05 m; a free root stays.
  const Eigen::VectorXd delta = perJointValues(model, 0.05, 0.6, {0.3, -0.2, 0.25});
  return integrate(model, neutralConfiguration(model), delta, 1.0);
}

Eigen::VectorXd scenarioVelocity(const Model& model) {
  // 1-dof angles +-1 rad/s alternating, other angular rates (0.5, -0.4, 0.3) rad/s, lengths
  // 0.1 m/s; a free root spins (0.3, -0.2, 0.5) rad/s and drifts (0.1, 0, 0.2) m/s.
  Eigen::VectorXd v = perJointValues(model, 0.1, 1.0, {0.5, -0.4, 0.3});
  for (const Joint& joint : model.joints) {
    if (joint.type == JointType::Free) v.segment<6>(joint.idx_v) << 0.3, -0.2, 0.5, 0.1, 0.0, 0.2;
  }
  return v;
}

Model scenarioModel(const RobotDescription& description, const ScenarioOptions& options) {
  ModelOptions model_options = options.model_options;
  if (options.kind == ScenarioKind::ZeroGravity) {
    model_options.floating_base = true;
    model_options.gravity_W = Vector3::Zero();
  }
  return buildModel(withoutLimits(description), model_options);
}

Model loadScenarioModel(const std::string& urdf_path, const ScenarioOptions& options) {
  return scenarioModel(parseUrdfFile(urdf_path), options);
}

namespace {

/// @throws InvalidArgumentError for a duration, model or joint the scenario cannot run.
void checkScenarioModel(const Model& m, const ScenarioOptions& options) {
  if (!(options.duration > 0.0) || !std::isfinite(options.duration)) {
    throw InvalidArgumentError("the duration must be a finite number of seconds > 0");
  }
  if (options.kind == ScenarioKind::ZeroGravity && (!m.floating_base || !m.gravity_W.isZero())) {
    throw InvalidArgumentError(
        "the zero_gravity scenario needs a floating-base model without gravity");
  }
  for (const Joint& joint : m.joints) {
    if (hasRotationChart(joint)) {
      throw InvalidArgumentError("ball joint '" + joint.name +
                                 "': compare needs quaternion ball joints (the rigid-body and "
                                 "btMultiBody engines read orientations, not Euler or exp-map "
                                 "charts); load the model without --ball");
    }
  }
}

/// The initial state: the user's, or the scenario's (passive and sweep: scenarioVelocity; in zero
/// gravity the base spins and drifts and every joint moves at 0.2 rad/s or m/s).
/// @throws InvalidArgumentError for a bad one.
void setInitialState(Scenario& scenario, const ScenarioOptions& options) {
  const Model& m = *scenario.model;
  scenario.q0 = options.q0.size() > 0     ? options.q0
                : options.pose.size() > 0 ? options.pose
                                          : scenarioPose(m);
  scenario.v0 = options.v0.size() > 0 ? options.v0 : scenarioVelocity(m);
  if (options.kind == ScenarioKind::ZeroGravity && options.v0.size() == 0) {
    scenario.v0.setConstant(0.2);
    for (const Joint& joint : m.joints) {
      if (joint.type != JointType::Free) continue;
      scenario.v0.segment<6>(joint.idx_v) << 0.3, -0.2, 0.5, 0.1, 0.0, 0.2;
    }
  }
  checkVector(scenario.q0, m.nq, "q0");
  checkVector(scenario.v0, m.nv, "v0");
  validateConfiguration(m, scenario.q0);
}

/// The torque a velocity motor on every dof bulletMotorDofs drives applies in a step
/// of h with the example apps' target (q_d(t) - q) / h: the joints it drives reach that velocity
/// in the step (a_m = ((q_d (-) q) / h - v) / h), the others are passive (tau = 0), so
/// M [a_m; a_p] + b = [tau_m; 0] gives a_p, then tau_m.
ControlFunction motorTorques(const Model& model, std::shared_ptr<const Trajectory> trajectory,
                             double h) {
  std::vector<int> driven, passive;
  const std::vector<bool> motor = bulletMotorDofs(model);
  for (int i = 0; i < model.nv; ++i) (motor[i] ? driven : passive).push_back(i);
  auto data = std::make_shared<Data>(model);
  auto reference = std::make_shared<JointReference>(model);
  return [&model, trajectory, h, driven, passive, data, reference](
             double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& tau) {
    trajectory->evaluate(t, *reference);
    const Eigen::VectorXd a_target = (difference(model, q, reference->q) / h - v) / h;
    const Eigen::MatrixXd& M = crba(model, *data, q);
    const Eigen::VectorXd b = rnea(model, *data, q, v, Eigen::VectorXd::Zero(model.nv));
    Eigen::VectorXd a = Eigen::VectorXd::Zero(model.nv);
    for (int i : driven) a(i) = a_target(i);
    if (!passive.empty()) {
      const Eigen::VectorXd rest = -(b + M * a)(passive);
      const Eigen::MatrixXd M_passive = M(passive, passive);
      const Eigen::VectorXd a_passive = M_passive.ldlt().solve(rest);
      a(passive) = a_passive;
    }
    tau = M * a + b;
    tau(passive).setZero();
  };
}

/// Tracking by Bullet's own joint motors (Scenario::bullet_motors).
void setBulletMotors(Scenario& scenario, std::shared_ptr<const Trajectory> trajectory,
                     const std::string& reference) {
  const Model& m = *scenario.model;
  scenario.bullet_motors = true;
  scenario.control = [model = scenario.model, trajectory](double h) {
    return EngineControl{motorTorques(*model, trajectory, h), {}};
  };
  scenario.torques =
      "Bullet's joint motors as the example apps drive them, velocity (q_d(t) - q) / h, "
      "tracking " +
      reference;
  std::string passive;
  const std::vector<bool> motor = bulletMotorDofs(m);
  for (const Joint& joint : m.joints) {
    if (joint.nv == 0 || motor[joint.idx_v]) continue;
    const bool universal = joint.type == JointType::Revolute;
    passive += (passive.empty() ? "" : ", ") + ("'" + joint.name + "' (") +
               (universal ? "universal" : toString(joint.type)) + ")";
  }
  if (!passive.empty()) {
    scenario.notes.push_back("bullet_motors: joints without a motor left passive: " + passive +
                             (scenario.ground ? " on rigid_body (multibody drives its ball "
                                                "joints and universal joints' revolutes: "
                                                "btMultiBodySphericalJointMotor, "
                                                "btMultiBodyJointMotor)"
                                              : ""));
  }
  scenario.notes.push_back(
      "bullet_motors: gcbridge's integrators and the reference apply the torque such a motor "
      "applies (its velocity reached in one step)");
}

/// The tracking scenario's reference: the waypoints of ScenarioOptions::trajectory_path, or
/// sinusoids about q0; `what` says which in words.
std::shared_ptr<const Trajectory> trackingReference(const Scenario& scenario,
                                                    const ScenarioOptions& options,
                                                    std::string& what) {
  const Model& m = *scenario.model;
  if (!options.trajectory_path.empty()) {
    const WaypointReference file = readWaypoints(options.trajectory_path, m);
    std::ostringstream text;
    text << options.trajectory_path << " (" << file.waypoints
         << (file.waypoints == 1 ? " pose held" : " waypoints, a natural cubic spline to t = ");
    if (file.waypoints > 1) text << file.end << " s, then held";
    text << ")";
    what = text.str();
    return file.trajectory;
  }
  Eigen::VectorXd amplitude, frequency, phase;
  trackingSinusoids(m, amplitude, frequency, phase);
  what = "0.3 rad sinusoids at 0.5-1.1 Hz about the pose";
  return std::make_shared<const Sinusoid>(m, scenario.q0, amplitude, frequency, phase);
}

/// The tracking scenario: the controller on its reference (trackingReference), starting on it
/// (unless the user gave the initial state).
void setTracking(Scenario& scenario, const ScenarioOptions& options) {
  const Model& m = *scenario.model;
  std::string reference_text;
  const std::shared_ptr<const Trajectory> trajectory =
      trackingReference(scenario, options, reference_text);
  JointReference start(m);
  trajectory->evaluate(0.0, start);
  if (options.q0.size() == 0) scenario.q0 = start.q;
  if (options.v0.size() == 0) scenario.v0 = start.v;
  const Eigen::VectorXd q_gains = scenario.q0;
  const JointControlMode which = options.controller;
  auto reference = std::make_shared<JointReference>(m);
  scenario.trajectory = trajectory;
  scenario.desired = [model = scenario.model, trajectory, reference](double t,
                                                                     Eigen::VectorXd& q_d) {
    trajectory->evaluate(t, *reference);
    q_d = reference->q;
  };
  scenario.actuation = options.actuation;
  if (options.bullet_motors) {
    scenario.controller = "bullet_motors";
    setBulletMotors(scenario, trajectory, reference_text);
    return;
  }
  scenario.controller =
      std::string(toString(which)) + (options.actuation == Actuation::JointMotors ? ":motors" : "");
  scenario.control = [model = scenario.model, which, trajectory, q_gains](double h) {
    return trackingController(*model, which, trajectory, q_gains, h);
  };
  scenario.torques = std::string(toString(which)) + " (w = 20 rad/s) tracking " + reference_text;
  if (options.actuation == Actuation::JointMotors) {
    scenario.notes.push_back(
        "Bullet's engines: the controller's accelerations through Bullet's joint motors "
        "(Actuation::JointMotors)");
  }
}

/// The scenario's own torque program.
void setScenarioTorques(Scenario& scenario, const ScenarioOptions& options) {
  switch (options.kind) {
    case ScenarioKind::Passive:
    case ScenarioKind::Sweep:
      scenario.torques = "none (passive)";
      break;
    case ScenarioKind::ZeroGravity:
      scenario.notes.push_back("floating base, gravity 0");
      scenario.control = internalTorques(*scenario.model, scenario.q0);
      scenario.torques = "internal joint torques 0.5 M_ii(q0) sin(w_i t + phi_i), none on the root";
      break;
    case ScenarioKind::Tracking:
      setTracking(scenario, options);
      break;
  }
}

/// A recorded sequence in place of the scenario's torques: not a tracking controller's, and in
/// zero gravity only with nothing on a free root (momentum must stay constant).
/// @throws InvalidArgumentError for a file that cannot be used so.
void setRecordedTorques(Scenario& scenario, const ScenarioOptions& options) {
  const Model& m = *scenario.model;
  if (options.kind == ScenarioKind::Tracking) {
    throw InvalidArgumentError(
        "a recorded torque sequence replaces the controller: use it with "
        "the passive, zero_gravity or sweep scenario, not tracking");
  }
  auto sequence =
      std::make_shared<const TorqueSequence>(readTorqueSequence(options.torques_path, m.nv));
  for (const Joint& joint : m.joints) {
    if (options.kind != ScenarioKind::ZeroGravity || joint.type != JointType::Free) continue;
    for (size_t k = 0; k < sequence->tau.size(); ++k) {
      if (!sequence->tau[k].segment<6>(joint.idx_v).isZero(0.0)) {
        throw InvalidArgumentError(options.torques_path + ": row " + std::to_string(k + 1) +
                                   " pushes the free root '" + joint.name +
                                   "': zero_gravity takes internal joint torques only");
      }
    }
  }
  scenario.control = [sequence](double) {
    return EngineControl{[sequence](double t, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                    Eigen::VectorXd& tau) { sequence->evaluate(t, tau); },
                         {}};
  };
  scenario.torques = "recorded sequence " + options.torques_path +
                     " (linear between samples, held after the last)";
}

/// Per dof, whether a free joint (the root, or any other a floating base made) moves it.
std::vector<bool> freeDofs(const Model& m) {
  std::vector<bool> free(m.nv, false);
  for (const Joint& joint : m.joints) {
    if (joint.type != JointType::Free) continue;
    for (int i = 0; i < joint.nv; ++i) free[joint.idx_v + i] = true;
  }
  return free;
}

/// ScenarioOptions::ground: the free joints unactuated and left out of the errors.
/// @throws InvalidArgumentError for a scenario, model or torque program it cannot stand.
void setGround(Scenario& scenario, const ScenarioOptions& options) {
  const Model& m = *scenario.model;
  if (options.kind != ScenarioKind::Tracking) {
    throw InvalidArgumentError(
        "--ground is for the tracking scenario (a controller on the joints "
        "of a body standing on the plane)");
  }
  if (!m.floating_base) {
    throw InvalidArgumentError("--ground stands a floating base on the plane, and model '" +
                               m.name + "' has a fixed base (root link '" + m.link_names[0] +
                               "'): load it with --floating-base, or pick a root not attached "
                               "to a static body");
  }
  const std::vector<bool> free = freeDofs(m);
  for (int i = 0; i < m.nv; ++i) {
    if (!free[i]) scenario.measured_dofs.push_back(i);
  }
  if (scenario.measured_dofs.empty()) {
    throw InvalidArgumentError("--ground tracks joints, and model '" + m.name +
                               "' has none besides its free ones");
  }
  if (m.gravity_W.isZero()) {
    throw InvalidArgumentError("--ground needs gravity: nothing would press model '" + m.name +
                               "' onto the plane");
  }
  const bool touches = std::any_of(m.description->links.begin(), m.description->links.end(),
                                   [](const LinkDescription& l) { return !l.collisions.empty(); });
  if (!touches) {
    throw InvalidArgumentError("--ground: model '" + m.name +
                               "' has no collision geometry, so nothing of it would touch the "
                               "plane");
  }
  scenario.ground = true;
  scenario.notes.push_back(
      "ground: a static plane 1 cm below the model's lowest collision point, normal against "
      "gravity; collision shapes on (rigid_body: links that no joint connects touch each other "
      "too; multibody: they do not); the "
      "free joints unactuated; Bullet's engines only, the tracking reference q_d(t) "
      "in the RK4 reference's place (gcbridge's integrators know no contacts); errors over the "
      "joints, the free ones left out");
}

/// ScenarioOptions::max_torque on every dof, 0 on the free joints of a body on the ground.
/// @throws InvalidArgumentError for a limit that is not a number > 0.
void setTorqueLimits(Scenario& scenario, const ScenarioOptions& options) {
  const Model& m = *scenario.model;
  if (!(options.max_torque > 0.0)) {
    throw InvalidArgumentError("the torque limit (--max-torque) must be a number > 0, got " +
                               std::to_string(options.max_torque));
  }
  if (std::isinf(options.max_torque) && !scenario.ground) return;
  scenario.torque_limits = Eigen::VectorXd::Constant(m.nv, options.max_torque);
  if (scenario.ground) {
    const std::vector<bool> free = freeDofs(m);
    for (int i = 0; i < m.nv; ++i) {
      if (free[i]) scenario.torque_limits(i) = 0.0;
    }
  }
  if (std::isfinite(options.max_torque)) {
    std::ostringstream note;
    note << "torques and Bullet's motors' efforts limited to " << options.max_torque << " N m or N";
    scenario.notes.push_back(note.str());
  }
}

}  // namespace

Scenario makeScenario(Model model, const ScenarioOptions& options) {
  checkScenarioModel(model, options);
  if (!options.trajectory_path.empty() && options.kind != ScenarioKind::Tracking) {
    throw InvalidArgumentError("the trajectory file '" + options.trajectory_path +
                               "' is a tracking reference: use it with the tracking scenario");
  }
  Scenario scenario;
  scenario.kind = options.kind;
  scenario.duration = options.duration;
  scenario.model = std::make_shared<const Model>(std::move(model));
  scenario.notes.push_back("joint position limits removed (gcbridge's integrators have none)");
  setInitialState(scenario, options);
  if (options.ground) setGround(scenario, options);
  setScenarioTorques(scenario, options);
  if (!options.torques_path.empty()) setRecordedTorques(scenario, options);
  setTorqueLimits(scenario, options);
  return scenario;
}

}  // namespace gcbridge::compare
