#include "ragdoll.hpp"

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btDefaultCollisionConfiguration.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>
#include <BulletDynamics/ConstraintSolver/btConeTwistConstraint.h>
#include <BulletDynamics/ConstraintSolver/btHingeConstraint.h>
#include <BulletDynamics/ConstraintSolver/btSequentialImpulseConstraintSolver.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <LinearMath/btDefaultMotionState.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>

#include "gcbridge/bridge/rigid_body_world.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/bridge/world_inference.hpp"
#include "gcbridge/controllers/computed_torque.hpp"
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

}  // namespace

const char* toString(RagdollModel model) { return kModelNames.name(model); }
const char* toString(RootMode mode) { return kRootNames.name(mode); }
std::optional<RagdollModel> ragdollModelFromString(std::string_view name) {
  return kModelNames.find(name);
}
std::optional<RootMode> rootModeFromString(std::string_view name) { return kRootNames.find(name); }

namespace {

constexpr double kGravity = 9.81;        // [m/s^2]
constexpr double kWaveAmplitude = 0.5;   // shoulder wave [rad]
constexpr double kWaveFrequency = M_PI;  // [rad/s] (0.5 Hz)

// A ragdoll as an application builds it by hand, following Bullet's RagdollDemo
// (examples/RagdollDemo): y up, capsules along their local y axis, the arms turned by +-90 degrees
// about z (a T pose), constraint frames from setEulerZYX and an origin in each body, the child-side
// ones up to 10 cm off the parent-side ones at the spawn pose as in RagdollDemo. Masses are a
// 15.5 kg person's instead of the demo's 1 kg per body, and the demo's damping (0.05, 0.85) is
// left out. The feet (the lower legs' capsule ends) touch y = 0.
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
    btRigidBody *spine, *head, *lul, *lll, *rul, *rll, *lua, *lla, *rua, *rla;
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
    const btVector3 offset(0, 0.035, 0);  // lower legs: centre 0.2, half-length 0.185 + r 0.05
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
    return l;
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
  }

  ~HandBuiltRagdoll() {
    for (auto& c : constraints) world->removeConstraint(c.get());
    for (auto& b : bodies) world->removeRigidBody(b.get());
  }
};

/// What one run measures, substep by substep (the plugin's log): joint error against the
/// reference, the root's force, the constraint error, the pelvis height, the CSV rows.
struct RunMeter {
  RagdollModel which;
  RootMode root;
  const Model& model;
  const Trajectory& trajectory;
  std::function<double()> pelvis_height;
  std::FILE* csv;
  RagdollResult& result;
  JointReference ref{model};
  double fraction = 0.0;  ///< the root force over the weight, of the substep being logged
  double sum_squares = 0.0, sum_fraction = 0.0;
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
    sum_squares += e.squaredNorm();
    sum_fraction += fraction;
    samples += 1;
    result.max_joint_error = std::max(result.max_joint_error, e.cwiseAbs().maxCoeff());
    result.max_root_force_fraction = std::max(result.max_root_force_fraction, fraction);
    result.max_constraint_error = std::max(result.max_constraint_error, r.joint_error);
    const double height = pelvis_height();  // after the substep
    result.pelvis_min = std::min(result.pelvis_min, height);
    if (!result.fell && height < 0.7 * result.pelvis_start) {
      result.fell = true;
      result.upright_time = r.t + r.h;
    }
    if (csv != nullptr) {
      std::fprintf(csv, "%s,%s,%.6f,%.9g,%.6g,%.9g,%.9g\n", toString(which), toString(root),
                   r.t + r.h, height, fraction, std::sqrt(e.squaredNorm() / (nv - 6)),
                   r.joint_error);
    }
  }

  /// The RMS joint error and the mean root force, over the logged substeps.
  void finish() {
    if (samples == 0) return;
    result.rms_joint_error = std::sqrt(sum_squares / (samples * (model.nv - 6.0)));
    result.mean_root_force_fraction = sum_fraction / samples;
  }
};

/// The plugin's options: diagnostics on, the bodies projected onto the joints when attached (the
/// hand-built ragdoll spawns off them, as RagdollDemo's does), and joint torques limited to half
/// the weight times the pelvis height (76 N m for the ragdoll, 840 N m for the DeepMimic humanoid),
/// the root's left free: without a limit, the free-root runs end in huge torques once the body has
/// fallen, and Bullet's state turns NaN.
PluginOptions pluginOptions(int nv, double weight, double pelvis_height) {
  PluginOptions options;
  options.diagnostics = true;
  options.project_on_attach = true;
  options.torque_limits = Eigen::VectorXd::Constant(nv, 0.5 * weight * pelvis_height);
  options.torque_limits.head<6>().setConstant(std::numeric_limits<double>::infinity());
  return options;
}

// One run on a model, a map and a stepping function, whatever built them.
RagdollResult runOnWorld(RagdollModel which, RootMode root, const Model& model,
                         const RigidBodyMap& map, btDynamicsWorld& world,
                         const std::function<void()>& step, const Eigen::VectorXd& q_stand,
                         const Eigen::VectorXd& wave_amplitude, const Eigen::VectorXd& wave_phase,
                         const Vector3& up, double h, int steps, std::FILE* csv,
                         const ProgressCallback& progress, RunFrames* frames) {
  const int nv = model.nv;
  auto trajectory = std::make_shared<Sinusoid>(
      model, q_stand, wave_amplitude, Eigen::VectorXd::Constant(nv, kWaveFrequency), wave_phase);
  JointReference start(model);
  trajectory->evaluate(0.0, start);
  // Start on the reference (the arms already moving).
  BridgeData bdata(model);
  writeState(model, map, bdata, start.q, start.v);
  ComputedTorque controller(model, Eigen::VectorXd::Constant(nv, 400.0),
                            Eigen::VectorXd::Constant(nv, 40.0));
  controller.setTrajectory(trajectory);

  RagdollResult result;
  result.nv = nv;
  result.mass = model.totalMass();
  const double weight = result.mass * kGravity;
  btRigidBody* pelvis = map.body(0);
  const auto pelvisHeight = [pelvis, up] {
    const btVector3 p = pelvis->getCenterOfMassPosition();
    return up.dot(Vector3(p.x(), p.y(), p.z()));
  };
  result.pelvis_start = result.pelvis_min = pelvisHeight();
  result.upright_time = steps * h;
  RunMeter meter{which, root, model, *trajectory, pelvisHeight, csv, result};
  PluginOptions options = pluginOptions(nv, weight, result.pelvis_start);
  options.log = [&meter](const SubstepRecord& r) { meter.record(r); };
  auto plugin = attach(
      world, model, map,
      [&](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& tau) {
        tau = controller.compute(t, q, v);
        // The free joint's generalized forces: (moment, force) on the pelvis, in its frame.
        meter.fraction = tau.segment<3>(3).norm() / weight;
        if (root == RootMode::Free) tau.head<6>().setZero();
      },
      options);
  const long sample_every = std::max(1L, std::lround(0.5 / h));
  // The viewer's frames (the model copied into them by the caller).
  if (frames != nullptr) frames->record(0.0, map, trajectory.get());
  for (int step_index = 0; step_index < steps && !result.diverged; ++step_index) {
    if (step_index % sample_every == 0) result.pelvis_samples.push_back(pelvisHeight());
    reportProgress(progress, step_index, steps);
    step();
    if (frames != nullptr && !result.diverged) {
      frames->record((step_index + 1) * h, map, trajectory.get());
    }
  }
  result.errors = plugin->errorCount();
  if (result.errors > 0) result.diverged = true;
  result.pelvis_end = pelvisHeight();
  meter.finish();
  return result;
}

}  // namespace

RagdollResult runRagdoll(RagdollModel which, RootMode root, double h, int steps, std::FILE* csv,
                         const ProgressCallback& progress, const std::string& humanoid_urdf,
                         RunFrames* frames) {
  if (which == RagdollModel::HandBuilt) {
    HandBuiltRagdoll ragdoll;
    InferenceOptions inference;
    inference.root = ragdoll.pelvis;
    inference.body_names = ragdoll.names;
    inference.name = "ragdoll";
    const InferredModel inferred = inferModelFromWorld(*ragdoll.world, inference);
    const Model& model = inferred.model;
    if (frames != nullptr) frames->model = model;
    // Wave: each shoulder about its upper arm's z axis (the world z axis at the T pose), the two
    // arms in phase (up together, down together).
    Eigen::VectorXd amplitude = Eigen::VectorXd::Zero(model.nv);
    Eigen::VectorXd phase = Eigen::VectorXd::Zero(model.nv);
    for (const char* arm : {"left_upper_arm", "right_upper_arm"}) {
      const Joint& shoulder = model.joints[model.linkIndex(arm)];
      amplitude(shoulder.idx_v + 2) = kWaveAmplitude;
      phase(shoulder.idx_v + 2) = std::string(arm) == "left_upper_arm" ? M_PI : 0.0;
    }
    // The standing pose: the configuration read at spawn, which the plugin's projection puts
    // the bodies on when it attaches.
    btDiscreteDynamicsWorld* world = ragdoll.world.get();
    RagdollResult result = runOnWorld(
        which, root, model, *inferred.map, *world, [world, h] { world->stepSimulation(h, 1, h); },
        inferred.q, amplitude, phase, Vector3::UnitY(), h, steps, csv, progress, frames);
    for (const JointError& e : inferred.spawn_errors) {
      result.spawn_gap = std::max(result.spawn_gap, e.position_error);
      result.spawn_angle = std::max(result.spawn_angle, e.rotation_error);
    }
    return result;
  }

  // The DeepMimic humanoid: y up in its file, so the free root is turned +90 degrees about x
  // (file y -> world z) and raised until the feet (ankle boxes, 3.5257 m below the root) touch
  // the ground plane z = 0. It is 4 times a person's size (pybullet loads it with
  // globalScaling = 0.25) and weighs 45 kg.
  ModelOptions model_options;
  model_options.floating_base = true;
  const Model model =
      loadUrdf(humanoid_urdf.empty() ? GCBRIDGE_MODELS_DIR "/humanoid_deepmimic/humanoid.urdf"
                                     : humanoid_urdf,
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
  if (frames != nullptr) frames->model = model;
  RigidBodyOptions world_options;
  world_options.substep = h;
  world_options.ground_plane = true;
  auto world = buildRigidBodyWorld(model, world_options, q_centre);
  RigidBodyWorld* w = world.get();
  return runOnWorld(
      which, root, model, *world->map, *world->world, [w] { w->step(); }, q_centre, amplitude,
      phase, Vector3::UnitZ(), h, steps, csv, progress, frames);
}

}  // namespace gcbridge::demo
