#include "ragdoll.hpp"

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btDefaultCollisionConfiguration.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>
#include <BulletDynamics/ConstraintSolver/btConeTwistConstraint.h>
#include <BulletDynamics/ConstraintSolver/btHingeConstraint.h>
#include <BulletDynamics/ConstraintSolver/btSequentialImpulseConstraintSolver.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <LinearMath/btDefaultMotionState.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include "gcbridge/bridge/contact_reading.hpp"
#include "gcbridge/bridge/rigid_body_world.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/bridge/world_inference.hpp"
#include "gcbridge/controllers/computed_torque.hpp"
#include "gcbridge/controllers/floating_base_controller.hpp"
#include "gcbridge/controllers/trajectory.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/detail/enum_names.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "gcbridge/plugin/plugin.hpp"

namespace gcbridge::demo {

namespace {

constexpr auto kModelNames = gcbridge::detail::enumNames<RagdollModel>(
    {{RagdollModel::HandBuilt, "ragdoll"}, {RagdollModel::DeepMimic, "deepmimic"}});
constexpr auto kRootNames = gcbridge::detail::enumNames<RootMode>(
    {{RootMode::Actuated, "actuated"}, {RootMode::Free, "free"}});
constexpr auto kControllerNames = gcbridge::detail::enumNames<RagdollController>(
    {{RagdollController::ComputedTorque, "computed_torque"},
     {RagdollController::Projected, "projected"},
     {RagdollController::Qp, "qp"}});

}  // namespace

const char* toString(RagdollModel model) { return kModelNames.name(model); }
const char* toString(RootMode mode) { return kRootNames.name(mode); }
std::optional<RagdollModel> ragdollModelFromString(std::string_view name) {
  return kModelNames.find(name);
}
std::optional<RootMode> rootModeFromString(std::string_view name) { return kRootNames.find(name); }
const char* toString(RagdollController controller) { return kControllerNames.name(controller); }
std::optional<RagdollController> ragdollControllerFromString(std::string_view name) {
  return kControllerNames.find(name);
}

namespace {

constexpr double kGravity = 9.81;        // [m/s^2]
constexpr double kWaveAmplitude = 0.5;   // shoulder wave [rad]
constexpr double kWaveFrequency = M_PI;  // [rad/s] (0.5 Hz)
constexpr double kPushTime = 2.0;        // [s]
// The hand-built ragdoll's feet: box half extents [m], and how far they lift the body.
const btVector3 kFootHalfExtents(0.05, 0.03, 0.13);
constexpr double kFootLift = 0.07;

// A ragdoll as an application builds it by hand, following Bullet's RagdollDemo
// (examples/RagdollDemo): y up, capsules along their local y axis, the arms turned by +-90 degrees
// about z (a T pose), constraint frames from setEulerZYX and an origin in each body, the child-side
// ones up to 10 cm off the parent-side ones at the spawn pose as in RagdollDemo. Masses are a
// 15.5 kg person's instead of the demo's 1 kg per body, and the demo's damping (0.05, 0.85) is
// left out. A 1 kg box foot under each lower leg on an ankle hinge (not in RagdollDemo: what an
// application adds for its ragdoll to stand) rests on y = 0: 17.5 kg in all.
struct HandBuiltRagdoll {
  std::unique_ptr<btDefaultCollisionConfiguration> configuration =
      std::make_unique<btDefaultCollisionConfiguration>();
  std::unique_ptr<btCollisionDispatcher> dispatcher =
      std::make_unique<btCollisionDispatcher>(configuration.get());
  std::unique_ptr<btBroadphaseInterface> broadphase = std::make_unique<btDbvtBroadphase>();
  std::unique_ptr<btSequentialImpulseConstraintSolver> solver =
      std::make_unique<btSequentialImpulseConstraintSolver>();
  std::unique_ptr<btDiscreteDynamicsWorld> world = std::make_unique<btDiscreteDynamicsWorld>(
      dispatcher.get(), broadphase.get(), solver.get(), configuration.get());
  std::vector<std::unique_ptr<btCollisionShape>> shapes;
  std::vector<std::unique_ptr<btMotionState>> motion_states;
  std::vector<std::unique_ptr<btRigidBody>> bodies;
  std::vector<std::unique_ptr<btTypedConstraint>> constraints;
  std::vector<std::pair<const btRigidBody*, std::string>> names;
  btRigidBody* pelvis = nullptr;

  btRigidBody* addBody(const std::string& name, double mass, btCollisionShape* shape,
                       const btTransform& X_WB) {
    shapes.emplace_back(shape);
    btVector3 inertia(0, 0, 0);
    if (mass > 0) shape->calculateLocalInertia(mass, inertia);
    motion_states.push_back(std::make_unique<btDefaultMotionState>(X_WB));
    btRigidBody::btRigidBodyConstructionInfo info(mass, motion_states.back().get(), shape, inertia);
    info.m_friction = 1.0;
    bodies.push_back(std::make_unique<btRigidBody>(info));
    btRigidBody* body = bodies.back().get();
    body->setActivationState(DISABLE_DEACTIVATION);  // a sleeping body ignores forces
    world->addRigidBody(body);
    if (mass > 0) names.emplace_back(body, name);
    return body;
  }

  /// The limbs.
  struct Limbs {
    btRigidBody *spine, *head, *lul, *lll, *rul, *rll, *lua, *lla, *rua, *rla, *lf, *rf;
  };

  HandBuiltRagdoll() {
    world->setGravity(btVector3(0, -kGravity, 0));
    world->getSolverInfo().m_numIterations = 10;
    // The ground: a static plane y = 0.
    addBody("ground", 0.0, new btStaticPlaneShape(btVector3(0, 1, 0), 0),
            btTransform::getIdentity());
    addJoints(addLimbs());
  }

  /// A capsule of radius r and height `height` at p [m], turned by rz [rad] about z.
  btRigidBody* capsule(const char* name, double mass, double r, double height, const btVector3& p,
                       double rz) {
    // Lower legs: centre 0.2, half-length 0.185 + r 0.05; raised above the feet.
    const btVector3 offset(0, 0.035 + kFootLift, 0);
    btTransform X;
    X.setIdentity();
    X.setOrigin(offset + p);
    X.getBasis().setEulerZYX(0, 0, rz);  // Bullet: (about x, about y, about z)
    return addBody(name, mass, new btCapsuleShape(r, height), X);
  }

  /// The pelvis (kept) and the limbs, in the T pose.
  Limbs addLimbs() {
    pelvis = capsule("pelvis", 3.0, 0.15, 0.20, btVector3(0, 1, 0), 0);
    Limbs l;
    l.spine = capsule("spine", 2.5, 0.15, 0.28, btVector3(0, 1.2, 0), 0);
    l.head = capsule("head", 1.2, 0.10, 0.05, btVector3(0, 1.6, 0), 0);
    l.lul = capsule("left_upper_leg", 1.8, 0.07, 0.45, btVector3(-0.18, 0.65, 0), 0);
    l.lll = capsule("left_lower_leg", 1.1, 0.05, 0.37, btVector3(-0.18, 0.2, 0), 0);
    l.rul = capsule("right_upper_leg", 1.8, 0.07, 0.45, btVector3(0.18, 0.65, 0), 0);
    l.rll = capsule("right_lower_leg", 1.1, 0.05, 0.37, btVector3(0.18, 0.2, 0), 0);
    l.lua = capsule("left_upper_arm", 0.9, 0.05, 0.33, btVector3(-0.35, 1.45, 0), M_PI_2);
    l.lla = capsule("left_lower_arm", 0.6, 0.04, 0.25, btVector3(-0.7, 1.45, 0), M_PI_2);
    l.rua = capsule("right_upper_arm", 0.9, 0.05, 0.33, btVector3(0.35, 1.45, 0), -M_PI_2);
    l.rla = capsule("right_lower_arm", 0.6, 0.04, 0.25, btVector3(0.7, 1.45, 0), -M_PI_2);
    l.lf = foot("left_foot", -0.18);
    l.rf = foot("right_foot", 0.18);
    return l;
  }

  /// A 1 kg box foot at x, resting on the ground: 10 cm wide, 6 cm high, 26 cm long along z.
  /// (Half a kilogram is too light at 240 Hz: Bullet lets such a foot tip under the ankle torques
  /// a push needs, where 1 kg holds.)
  btRigidBody* foot(const char* name, double x) {
    btTransform X;
    X.setIdentity();
    X.setOrigin(btVector3(x, kFootHalfExtents.y(), 0));
    return addBody(name, 1.0, new btBoxShape(kFootHalfExtents), X);
  }

  /// RagdollDemo's constraint frames: setEulerZYX(z, y, x) and an origin, in each body.
  static btTransform frame(double ez, double ey, double ex, const btVector3& origin) {
    btTransform X;
    X.setIdentity();
    X.getBasis().setEulerZYX(ez, ey, ex);
    X.setOrigin(origin);
    return X;
  }

  void add(btTypedConstraint* c) {
    constraints.emplace_back(c);
    world->addConstraint(c, true);  // no collisions between the two bodies
  }

  /// A hinge about the frames' z axis, the demo's frames turned by 90 degrees about y.
  void hinge(btRigidBody* a, btRigidBody* b, const btVector3& oa, const btVector3& ob, double lo,
             double hi) {
    const btTransform fa = frame(0, M_PI_2, 0, oa);
    auto* h = new btHingeConstraint(*a, *b, fa, frame(0, M_PI_2, 0, ob));
    h->setLimit(lo, hi);
    add(h);
  }

  /// A cone-twist about the frames' x axis, the demo's frames turned by xa, xb about x.
  void cone(btRigidBody* a, btRigidBody* b, double xa, const btVector3& oa, double xb,
            const btVector3& ob, double s1, double s2, double t) {
    const btTransform fa = frame(0, 0, xa, oa);
    auto* c = new btConeTwistConstraint(*a, *b, fa, frame(0, 0, xb, ob));
    c->setLimit(s1, s2, t);
    add(c);
  }

  /// RagdollDemo's joints, in its order.
  void addJoints(const Limbs& l) {
    hinge(pelvis, l.spine, btVector3(0, 0.15, 0), btVector3(0, -0.15, 0), -M_PI_4, M_PI_2);
    cone(l.spine, l.head, M_PI_2, btVector3(0, 0.30, 0), M_PI_2, btVector3(0, -0.14, 0), M_PI_4,
         M_PI_4, M_PI_2);
    cone(pelvis, l.lul, -M_PI_4 * 5, btVector3(-0.18, -0.10, 0), -M_PI_4 * 5,
         btVector3(0, 0.225, 0), M_PI_4, M_PI_4, 0);
    hinge(l.lul, l.lll, btVector3(0, -0.225, 0), btVector3(0, 0.185, 0), 0, M_PI_2);
    cone(pelvis, l.rul, M_PI_4, btVector3(0.18, -0.10, 0), M_PI_4, btVector3(0, 0.225, 0), M_PI_4,
         M_PI_4, 0);
    hinge(l.rul, l.rll, btVector3(0, -0.225, 0), btVector3(0, 0.185, 0), 0, M_PI_2);
    cone(l.spine, l.lua, M_PI, btVector3(-0.2, 0.15, 0), M_PI_2, btVector3(0, -0.18, 0), M_PI_2,
         M_PI_2, 0);
    hinge(l.lua, l.lla, btVector3(0, 0.18, 0), btVector3(0, -0.14, 0), 0, M_PI_2);
    cone(l.spine, l.rua, 0, btVector3(0.2, 0.15, 0), M_PI_2, btVector3(0, -0.18, 0), M_PI_2, M_PI_2,
         0);
    hinge(l.rua, l.rla, btVector3(0, 0.18, 0), btVector3(0, -0.14, 0), 0, M_PI_2);
    // The ankles: 20 cm below the lower legs' centres, at the feet's mid-length.
    const btVector3 ankle_in_foot(0, 0.235 + kFootLift - 0.20 - kFootHalfExtents.y(), 0);
    hinge(l.lll, l.lf, btVector3(0, -0.20, 0), ankle_in_foot, -0.6, 0.6);
    hinge(l.rll, l.rf, btVector3(0, -0.20, 0), ankle_in_foot, -0.6, 0.6);
  }

  ~HandBuiltRagdoll() {
    for (auto& c : constraints) world->removeConstraint(c.get());
    for (auto& b : bodies) world->removeRigidBody(b.get());
  }
};

/// The run's controller: computed torque, or the contact-aware one; what it last asked for.
struct RunController {
  std::unique_ptr<ComputedTorque> computed_torque;
  std::unique_ptr<FloatingBaseController> floating_base;
  double root_force = 0.0;  ///< |root force| the controller's model needed at its last run [N]
  double seconds = 0.0;     ///< wall clock spent in it
  long runs = 0;

  Controller& get() {
    if (computed_torque) return *computed_torque;
    return *floating_base;
  }
};

/// What one run measures, substep by substep (the plugin's log): joint error against the
/// reference, the root's force, the constraint error, the pelvis height, the balance measures, the
/// CSV rows.
struct RunMeter {
  RagdollModel which;
  const RagdollOptions& options;
  const Model& model;
  const Trajectory& trajectory;
  const RunController& controller;
  std::function<double()> pelvis_height;
  double weight;
  RagdollResult& result;
  JointReference ref{model};
  Eigen::VectorXd effort = TorqueLimits(model).maxAbsTorque();  ///< the model's effort limits
  double sum_squares = 0.0, sum_fraction = 0.0, sum_com_error = 0.0;
  long samples = 0;

  void record(const SubstepRecord& r) {
    const int nv = model.nv;
    result.saturated_substeps += r.saturated > 0 ? 1 : 0;
    if (!r.error.empty() || !r.q.allFinite()) {
      if (!result.diverged) result.failure = "t = " + std::to_string(r.t) + " s: " + r.error;
      result.diverged = true;
      return;
    }
    trajectory.evaluate(r.t, ref);
    const Eigen::VectorXd e = difference(model, r.q, ref.q).tail(nv - 6);
    const double fraction = controller.root_force / weight;
    sum_squares += e.squaredNorm();
    sum_fraction += fraction;
    samples += 1;
    result.max_joint_error = std::max(result.max_joint_error, e.cwiseAbs().maxCoeff());
    result.max_root_force_fraction = std::max(result.max_root_force_fraction, fraction);
    result.max_constraint_error = std::max(result.max_constraint_error, r.joint_error);
    result.max_root_force_applied =
        std::max(result.max_root_force_applied, r.tau.head<6>().cwiseAbs().maxCoeff());
    recordTorques(r);
    const double outside = recordBalance();
    const double height = pelvis_height();  // after the substep
    result.pelvis_min = std::min(result.pelvis_min, height);
    if (!result.fell && height < 0.7 * result.pelvis_start) {
      result.fell = true;
      result.upright_time = r.t + r.h;
    }
    if (options.csv != nullptr) {
      std::fprintf(options.csv, "%s,%s,%s,%.6f,%.9g,%.6g,%.9g,%.9g,%.9g\n", toString(which),
                   toString(options.root), toString(options.controller), r.t + r.h, height,
                   fraction, std::sqrt(e.squaredNorm() / (nv - 6)), r.joint_error, outside);
    }
  }

  /// The joint torques' peak against the run's limits.
  void recordTorques(const SubstepRecord& r) {
    const Eigen::VectorXd& limits = controller.floating_base
                                        ? controller.floating_base->torqueLimits().maxAbsTorque()
                                        : controller.computed_torque->torqueLimits().maxAbsTorque();
    for (int j = 6; j < model.nv; ++j) {
      result.max_joint_torque = std::max(result.max_joint_torque, std::abs(r.tau(j)));
      result.max_torque_ratio = std::max(result.max_torque_ratio, std::abs(r.tau(j)) / limits(j));
      if (std::isfinite(effort(j))) {
        result.max_effort_ratio = std::max(result.max_effort_ratio, std::abs(r.tau(j)) / effort(j));
      }
    }
  }

  /// The contact-aware controller's balance: COM over the support polygon, its target, the
  /// planned forces, its fallbacks. @return the COM's distance outside the polygon [m].
  double recordBalance() {
    const FloatingBaseController* fb = controller.floating_base.get();
    if (fb == nullptr) return 0.0;
    if (fb->status() != FloatingBaseStatus::Ok) {
      if (result.fallback_substeps++ == 0) result.first_fallback = fb->message();
    }
    result.max_force_violation = std::max(result.max_force_violation, fb->contactForceViolation());
    if (fb->supportPolygon().empty()) return 0.0;
    const Vector3 up = -model.gravity_W.normalized();
    const Vector3 error = fb->comTarget() - fb->centerOfMass();
    sum_com_error += (error - error.dot(up) * up).squaredNorm();
    const double outside = fb->supportPolygon().distanceOutside(fb->centerOfMass());
    result.com_outside_max = std::max(result.com_outside_max, outside);
    return outside;
  }

  /// The RMS joint and COM errors, the mean root force and controller cost, over the run.
  void finish() {
    if (samples == 0) return;
    result.rms_joint_error = std::sqrt(sum_squares / (samples * (model.nv - 6.0)));
    result.mean_root_force_fraction = sum_fraction / samples;
    result.com_error_rms = std::sqrt(sum_com_error / samples);
    if (controller.runs > 0) result.controller_us = 1e6 * controller.seconds / controller.runs;
  }
};

/// The plugin's options: diagnostics on, the bodies projected onto the joints when attached (the
/// hand-built ragdoll spawns off them, as RagdollDemo's does).
PluginOptions pluginOptions() {
  PluginOptions options;
  options.diagnostics = true;
  options.project_on_attach = true;
  return options;
}

/// The controller of the run, with joint torques limited to half the weight times the pelvis
/// height (about 90 N m for the ragdoll, 840 N m for the DeepMimic humanoid) and the root's left
/// free: without a limit, the computed-torque runs with a free root end in huge torques once the
/// body has fallen, and Bullet's state turns NaN. The contact-aware controller's QP keeps within
/// them.
void makeController(RunController& run, const Model& model, RagdollController which,
                    std::shared_ptr<const Trajectory> trajectory, double max_torque) {
  const int nv = model.nv;
  Eigen::VectorXd limits = Eigen::VectorXd::Constant(nv, max_torque);
  limits.head<6>().setConstant(std::numeric_limits<double>::infinity());
  if (which == RagdollController::ComputedTorque) {
    run.computed_torque = std::make_unique<ComputedTorque>(
        model, Eigen::VectorXd::Constant(nv, 400.0), Eigen::VectorXd::Constant(nv, 40.0));
  } else {
    run.floating_base = std::make_unique<FloatingBaseController>(
        model,
        which == RagdollController::Qp ? FloatingBaseSolver::Qp : FloatingBaseSolver::Projected);
  }
  JointController& controller = run.computed_torque
                                    ? static_cast<JointController&>(*run.computed_torque)
                                    : static_cast<JointController&>(*run.floating_base);
  controller.setTrajectory(std::move(trajectory));
  controller.setTorqueLimits(TorqueLimits(model, limits));
}

/// The world a run steps: the model, its map, how to step it, and the pose to hold.
struct RunWorld {
  const Model& model;
  const RigidBodyMap& map;
  btDynamicsWorld& world;
  std::function<void()> step;
  Eigen::VectorXd q_stand, wave_amplitude, wave_phase;
  Vector3 up;                     ///< against gravity
  Vector3 forward;                ///< along the feet, horizontal: the push's direction
  std::vector<std::string> feet;  ///< the links with a box sole
};

/// The corners of each foot's sole as declared contact points, with the friction Bullet combines
/// for them (the foot's times the ground's, which is the same in both worlds).
ContactFrames soleFrames(const RunWorld& w, const Eigen::VectorXd& q) {
  ContactFrames frames(w.model);
  Data data(w.model);
  for (const std::string& foot : w.feet) {
    const int link = w.model.linkIndex(foot);
    const double mu = std::pow(w.map.body(link)->getFriction(), 2);
    const std::vector<ContactPoint> corners = boxSoleCorners(w.model, data, q, link, w.up, mu);
    for (std::size_t i = 0; i < corners.size(); ++i) {
      frames.add(foot + "_" + std::to_string(i), corners[i]);
    }
  }
  return frames;
}

/// Steps the run: the pelvis height every 0.5 s, the push at kPushTime, the viewer's frames.
void stepRun(const RagdollOptions& options, const RunWorld& w,
             const std::function<double()>& pelvis_height, const Trajectory& trajectory,
             RagdollResult& result) {
  const double h = options.h;
  const long sample_every = std::max(1L, std::lround(0.5 / h));
  const long push_step = options.push_speed > 0.0 ? std::lround(kPushTime / h) : -1;
  if (options.frames != nullptr) options.frames->record(0.0, w.map, &trajectory);
  for (int step_index = 0; step_index < options.steps && !result.diverged; ++step_index) {
    if (step_index % sample_every == 0) result.pelvis_samples.push_back(pelvis_height());
    if (step_index == push_step) {
      // The impulse that changes the whole body's COM velocity by push_speed.
      const Vector3 impulse = w.forward * (options.push_speed * w.model.totalMass());
      w.map.body(0)->applyCentralImpulse(btVector3(impulse.x(), impulse.y(), impulse.z()));
    }
    reportProgress(options.progress, step_index, options.steps);
    w.step();
    if (options.frames != nullptr && !result.diverged) {
      options.frames->record((step_index + 1) * h, w.map, &trajectory);
    }
  }
}

// One run on a world, whatever built it.
RagdollResult runOnWorld(RagdollModel which, const RagdollOptions& options, const RunWorld& w) {
  const Model& model = w.model;
  const int nv = model.nv;
  auto trajectory =
      std::make_shared<Sinusoid>(model, w.q_stand, w.wave_amplitude,
                                 Eigen::VectorXd::Constant(nv, kWaveFrequency), w.wave_phase);
  JointReference start(model);
  trajectory->evaluate(0.0, start);
  // Start on the reference (the arms already moving).
  BridgeData bdata(model);
  writeState(model, w.map, bdata, start.q, start.v);

  RagdollResult result;
  result.nv = nv;
  result.mass = model.totalMass();
  const double weight = result.mass * kGravity;
  btRigidBody* pelvis = w.map.body(0);
  const Vector3 up = w.up;
  const auto pelvisHeight = [pelvis, up] {
    const btVector3 p = pelvis->getCenterOfMassPosition();
    return up.dot(Vector3(p.x(), p.y(), p.z()));
  };
  result.pelvis_start = result.pelvis_min = pelvisHeight();
  result.upright_time = options.steps * options.h;
  RunController controller;
  makeController(controller, model, options.controller, trajectory,
                 0.5 * weight * result.pelvis_start);
  ContactFrames soles = soleFrames(w, start.q);
  RunMeter meter{which, options, model, *trajectory, controller, pelvisHeight, weight, result};
  PluginOptions plugin_options = pluginOptions();
  plugin_options.log = [&meter](const SubstepRecord& r) { meter.record(r); };
  const RootMode root = options.root;
  auto plugin = attach(
      w.world, model, w.map,
      [&, root](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                Eigen::VectorXd& tau) {
        const auto begin = std::chrono::steady_clock::now();
        if (controller.floating_base) {
          controller.floating_base->setContacts(readContacts(model, w.map, soles));
        }
        tau = controller.get().compute(t, q, v);
        controller.seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        ++controller.runs;
        // The free joint's generalized forces: (moment, force) on the pelvis, in its frame.
        controller.root_force = controller.floating_base
                                    ? controller.floating_base->rootResidual().tail<3>().norm()
                                    : tau.segment<3>(3).norm();
        if (root == RootMode::Free) tau.head<6>().setZero();
      },
      plugin_options);
  stepRun(options, w, pelvisHeight, *trajectory, result);
  result.errors = plugin->errorCount();
  if (result.errors > 0) result.diverged = true;
  result.pelvis_end = pelvisHeight();
  meter.finish();
  return result;
}

/// The configuration q moved down (y) until the bodies' lowest point, with the bodies on their
/// joints, touches the ground y = 0: RagdollDemo's frames put the legs up to 10 cm off their
/// joints at spawn, so the bodies on the joints stand higher than spawned.
Eigen::VectorXd onTheGround(const Model& model, const RigidBodyMap& map, Eigen::VectorXd q) {
  BridgeData bdata(model);
  writeState(model, map, bdata, q, Eigen::VectorXd::Zero(model.nv));
  double lowest = std::numeric_limits<double>::infinity();
  for (int k = 0; k < map.numLinks(); ++k) {
    btVector3 low, high;
    map.body(k)->getAabb(low, high);
    lowest = std::min(lowest, static_cast<double>(low.y()));
  }
  // The free root's position is in world coordinates.
  q(1) -= lowest;
  return q;
}

/// The hand-built ragdoll: its model inferred from its world, the arms waving about their
/// shoulders.
RagdollResult runHandBuilt(const RagdollOptions& options) {
  HandBuiltRagdoll ragdoll;
  InferenceOptions inference;
  inference.root = ragdoll.pelvis;
  inference.body_names = ragdoll.names;
  inference.name = "ragdoll";
  const InferredModel inferred = inferModelFromWorld(*ragdoll.world, inference);
  const Model& model = inferred.model;
  if (options.frames != nullptr) options.frames->model = model;
  // Wave: each shoulder about its upper arm's z axis (the world z axis at the T pose), the two
  // arms in phase (up together, down together).
  Eigen::VectorXd amplitude = Eigen::VectorXd::Zero(model.nv);
  Eigen::VectorXd phase = Eigen::VectorXd::Zero(model.nv);
  for (const char* arm : {"left_upper_arm", "right_upper_arm"}) {
    const Joint& shoulder = model.joints[model.linkIndex(arm)];
    amplitude(shoulder.idx_v + 2) = kWaveAmplitude;
    phase(shoulder.idx_v + 2) = std::string(arm) == "left_upper_arm" ? M_PI : 0.0;
  }
  // The standing pose: the configuration read at spawn, which the plugin's projection puts the
  // bodies on when it attaches. y up; the feet point along z.
  btDiscreteDynamicsWorld* world = ragdoll.world.get();
  const double h = options.h;
  const RunWorld w{model,
                   *inferred.map,
                   *world,
                   [world, h] { world->stepSimulation(h, 1, h); },
                   onTheGround(model, *inferred.map, inferred.q),
                   amplitude,
                   phase,
                   Vector3::UnitY(),
                   Vector3::UnitZ(),
                   {"left_foot", "right_foot"}};
  RagdollResult result = runOnWorld(RagdollModel::HandBuilt, options, w);
  for (const JointError& e : inferred.spawn_errors) {
    result.spawn_gap = std::max(result.spawn_gap, e.position_error);
    result.spawn_angle = std::max(result.spawn_angle, e.rotation_error);
  }
  return result;
}

/// The DeepMimic humanoid: y up in its file, so the free root is turned +90 degrees about x (file
/// y -> world z) and raised until the feet (ankle boxes, 3.5257 m below the root) touch the ground
/// plane z = 0. It is 4 times a person's size (pybullet loads it with globalScaling = 0.25) and
/// weighs 45 kg.
RagdollResult runDeepMimic(const RagdollOptions& options) {
  ModelOptions model_options;
  model_options.floating_base = true;
  const Model model = loadUrdf(options.humanoid_urdf.empty() ? GCBRIDGE_MODELS_DIR
                                   "/humanoid_deepmimic/humanoid.urdf"
                                                             : options.humanoid_urdf,
                               model_options);
  Eigen::VectorXd q_stand = neutralConfiguration(model);
  q_stand.segment<7>(0) << 0.0, 0.0, 3.5257, std::sin(M_PI_4), 0.0, 0.0, std::cos(M_PI_4);
  // Wave: the arms hang down; raise them 0.6 rad sideways (about the shoulders' x axis, the
  // humanoid's forward axis) and swing them +-0.5 rad about that, in phase.
  Eigen::VectorXd amplitude = Eigen::VectorXd::Zero(model.nv);
  Eigen::VectorXd raise = Eigen::VectorXd::Zero(model.nv);
  Eigen::VectorXd phase = Eigen::VectorXd::Zero(model.nv);
  for (const char* arm : {"left_shoulder", "right_shoulder"}) {
    const Joint& shoulder = model.joints[model.linkIndex(arm)];
    const double outward = std::string(arm) == "left_shoulder" ? 1.0 : -1.0;
    raise(shoulder.idx_v) = 0.6 * outward;
    amplitude(shoulder.idx_v) = kWaveAmplitude * outward;
  }
  const Eigen::VectorXd q_centre = integrate(model, q_stand, raise, 1.0);
  if (options.frames != nullptr) options.frames->model = model;
  RigidBodyOptions world_options;
  world_options.substep = options.h;
  world_options.ground_plane = true;
  auto world = buildRigidBodyWorld(model, world_options, q_centre);
  RigidBodyWorld* rigid = world.get();
  // z up; the feet point along x.
  const RunWorld w{
      model, *world->map,      *world->world,    [rigid] { rigid->step(); },   q_centre, amplitude,
      phase, Vector3::UnitZ(), Vector3::UnitX(), {"left_ankle", "right_ankle"}};
  return runOnWorld(RagdollModel::DeepMimic, options, w);
}

}  // namespace

RagdollResult runRagdoll(RagdollModel which, const RagdollOptions& options) {
  if (options.root == RootMode::Actuated &&
      options.controller != RagdollController::ComputedTorque) {
    throw std::invalid_argument(std::string("the ") + toString(options.controller) +
                                " controller is for a free root: it applies no root force");
  }
  if (which == RagdollModel::HandBuilt) return runHandBuilt(options);
  return runDeepMimic(options);
}

}  // namespace gcbridge::demo
