#include "compare/engines.hpp"

#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/CollisionShapes/btConvexShape.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "gcbridge/bridge/joint_motors.hpp"
#include "gcbridge/bridge/multibody_builder.hpp"
#include "gcbridge/bridge/multibody_motors.hpp"
#include "gcbridge/bridge/rigid_body_world.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/detail/enum_names.hpp"
#include "gcbridge/dynamics/energy.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/integrators.hpp"

namespace gcbridge::compare {
namespace {

Vector3 toEigen(const btVector3& v) { return Vector3(v.x(), v.y(), v.z()); }

/// Energy and momentum of the model at (q, v) (dynamics/energy.hpp) into `sample`.
void measureGeneralized(const Model& model, Data& data, Sample& sample) {
  sample.energy = computeMechanicalEnergy(model, data, sample.q, sample.v);
  sample.momentum = computeSpatialMomentum(model, data, sample.q, sample.v).vector();
}

/// The step's length for a rate, checked.
double stepLength(const EngineSetup& setup) {
  if (setup.rate_hz <= 0) {
    throw InvalidArgumentError("compare: the step rate must be positive, got " +
                               std::to_string(setup.rate_hz) + " Hz");
  }
  return 1.0 / setup.rate_hz;
}

/// How far the ground lies below the model's lowest point at the start [m].
constexpr double kGroundDrop = 0.01;

/// How far along the unit vector `down` the shape at X_WS reaches: max over its points p of
/// down . p (convex shapes by their support point, margin included; others by their bounding box).
double reachAlong(const btCollisionShape& shape, const btTransform& X_WS, const btVector3& down) {
  if (shape.isCompound()) {
    const auto& compound = static_cast<const btCompoundShape&>(shape);
    double reach = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < compound.getNumChildShapes(); ++i) {
      reach = std::max(reach, reachAlong(*compound.getChildShape(i),
                                         X_WS * compound.getChildTransform(i), down));
    }
    return reach;
  }
  if (shape.isConvex()) {
    const btVector3 down_S = X_WS.getBasis().transpose() * down;
    const btVector3 p_W =
        X_WS * static_cast<const btConvexShape&>(shape).localGetSupportingVertex(down_S);
    return down.dot(p_W);
  }
  btVector3 low, high;
  shape.getAabb(X_WS, low, high);
  double reach = 0.0;
  for (int i = 0; i < 3; ++i) reach += down[i] * (down[i] > 0 ? high[i] : low[i]);
  return reach;
}

/// A static plane in `world`, normal against gravity, kGroundDrop below the lowest point of the
/// bodies' collision shapes.
class Ground {
 public:
  /// Under `objects` (the model's bodies or link colliders, in `world`).
  /// @throws InvalidArgumentError without gravity or without a collision shape.
  Ground(const Model& model, btDiscreteDynamicsWorld& world,
         const std::vector<const btCollisionObject*>& objects)
      : world_(world) {
    if (model.gravity_W.isZero()) {
      throw InvalidArgumentError("compare: the ground lies against gravity, and model '" +
                                 model.name + "' has none");
    }
    const Vector3 g_W = model.gravity_W.normalized();
    const btVector3 down_W(g_W.x(), g_W.y(), g_W.z());
    double lowest = -std::numeric_limits<double>::infinity();
    for (const btCollisionObject* object : objects) {
      if (object->getCollisionShape() == nullptr) continue;
      lowest = std::max(
          lowest, reachAlong(*object->getCollisionShape(), object->getWorldTransform(), down_W));
    }
    if (!std::isfinite(lowest)) {
      throw InvalidArgumentError("compare: model '" + model.name +
                                 "' has no collision shape to stand on the ground with");
    }
    // The plane n . x = c with n = -down_W, through the point kGroundDrop beyond the lowest.
    shape_ = std::make_unique<btStaticPlaneShape>(-down_W, btScalar(-(lowest + kGroundDrop)));
    btRigidBody::btRigidBodyConstructionInfo info(0.0, nullptr, shape_.get());
    body_ = std::make_unique<btRigidBody>(info);
    world_.addRigidBody(body_.get());
  }
  ~Ground() { world_.removeRigidBody(body_.get()); }
  Ground(const Ground&) = delete;
  Ground& operator=(const Ground&) = delete;

 private:
  btDiscreteDynamicsWorld& world_;
  std::unique_ptr<btStaticPlaneShape> shape_;
  std::unique_ptr<btRigidBody> body_;
};

/// Per dof, `limits` or infinity where there are none.
Eigen::VectorXd effortsOrUnbounded(const Model& model, const Eigen::VectorXd& limits) {
  return limits.size() == model.nv
             ? limits
             : Eigen::VectorXd::Constant(model.nv, std::numeric_limits<double>::infinity());
}

/// `control` with its torques clamped to `limits` (none: `control` itself).
ControlFunction limited(ControlFunction control, const Eigen::VectorXd& limits) {
  if (limits.size() == 0 || !control) return control;
  return [control = std::move(control), limits](double t, const Eigen::VectorXd& q,
                                                const Eigen::VectorXd& v, Eigen::VectorXd& tau) {
    control(t, q, v, tau);
    tau = tau.cwiseMax(-limits).cwiseMin(limits);
  };
}

/// The Bullet objects of `owned` (a world's bodies or colliders).
template <typename Object>
std::vector<const btCollisionObject*> objectsOf(const std::vector<std::unique_ptr<Object>>& owned) {
  std::vector<const btCollisionObject*> objects;
  for (const auto& object : owned) objects.push_back(object.get());
  return objects;
}

/// How the Bullet engines attach `setup.control`: errors thrown, its actuation, torque limits and
/// (for the joint motors) aimed accelerations.
PluginOptions pluginOptions(const EngineSetup& setup) {
  PluginOptions options;
  options.throw_on_error = true;
  options.actuation = setup.actuation;
  options.torque_limits = setup.torque_limits;
  if (setup.actuation == Actuation::JointMotors) {
    options.motor_accelerations = setup.motor_accelerations;
  }
  return options;
}

/// Bullet btRigidBody + constraints, read through the bridge; with `project`, the bodies are
/// projected onto the joints (projectOntoJoints) before every step.
class RigidBodyEngine final : public Engine {
 public:
  RigidBodyEngine(const Model& model, const EngineSetup& setup, bool project)
      : model_(model), bdata_(model), project_(project), h_(stepLength(setup)), q_(setup.q0) {
    RigidBodyOptions options;
    options.substep = stepLength(setup);
    options.solver_iterations = setup.rigid.solver_iterations;
    options.erp = setup.rigid.erp;
    options.cfm = setup.rigid.cfm;
    // Without the ground nothing touches: the engines compare the joints' dynamics. On it the
    // links collide with it and with each other where no joint connects them.
    options.collision_shapes = setup.ground;
    world_ = buildRigidBodyWorld(model, options, setup.q0, setup.v0);
    if (setup.ground)
      ground_ = std::make_unique<Ground>(model, *world_->world, objectsOf(world_->bodies));
    // Revolute angles unwrap from the initial ones (which may lie beyond +-pi).
    bdata_.q_previous = setup.q0;
    bdata_.has_previous = true;
    if (setup.bullet_motors) {
      motors_ = std::make_unique<JointMotors>(model, *world_->map);
      desired_ = setup.bullet_motors;
      v_target_.resize(model.nv);
      max_effort_ = effortsOrUnbounded(model, setup.torque_limits);
    } else if (setup.control) {
      plugin_ = attach(*world_->world, model, *world_->map, setup.control, pluginOptions(setup));
    }
  }

  void advance(int steps) override {
    for (int i = 0; i < steps; ++i) {
      if (project_) projectOntoJoints(model_, *world_->map, bdata_, q_, v_);
      if (motors_) driveMotors();
      world_->step();
      ++steps_;
      // Read q every step so that no joint turns by more than pi between two reads.
      readPositions(model_, *world_->map, bdata_, q_);
    }
  }

  void measure(Sample& sample) override {
    const RigidBodyMap& map = *world_->map;
    // q and v through the bridge, with the per-link residual of the velocities read.
    readPositions(model_, map, bdata_, sample.q);
    sample.link_poses = bdata_.X_WL;
    readVelocities(model_, map, bdata_, sample.v, VelocityMethod::Sparse, /*residual=*/true);
    sample.velocity_residual =
        bdata_.velocity_residual.size() > 0 ? bdata_.velocity_residual.maxCoeff() : 0.0;
    // The joints' constraint errors, from the bodies' poses.
    sample.pivot_separation = computeJointErrors(model_, map, bdata_);
    sample.axis_error = 0.0;
    for (const JointError& e : bdata_.joint_errors) {
      sample.axis_error = std::max(sample.axis_error, e.rotation_error);
    }
    // Energy and momentum of the moving bodies.
    const Vector3 g_W = model_.gravity_W;
    sample.energy = 0.0;
    sample.momentum.setZero();
    for (const auto& body : world_->bodies) {
      if (body->getInvMass() == 0.0) continue;
      const double m = 1.0 / body->getInvMass();
      const Vector3 p_WBcm = toEigen(body->getCenterOfMassPosition());
      const Vector3 v_WBcm = toEigen(body->getLinearVelocity());
      const Vector3 w_WB = toEigen(body->getAngularVelocity());
      const btMatrix3x3& R = body->getCenterOfMassTransform().getBasis();
      const Vector3 I_B = toEigen(body->getLocalInertia());
      // Angular momentum about the COM: R I_B R^T w.
      const Vector3 w_B = toEigen(R.transpose() * body->getAngularVelocity());
      const Vector3 h_Bcm_W =
          toEigen(R * btVector3(I_B.x() * w_B.x(), I_B.y() * w_B.y(), I_B.z() * w_B.z()));
      sample.energy +=
          0.5 * m * v_WBcm.squaredNorm() + 0.5 * w_WB.dot(h_Bcm_W) - m * g_W.dot(p_WBcm);
      sample.momentum.head<3>() += h_Bcm_W + p_WBcm.cross(m * v_WBcm);
      sample.momentum.tail<3>() += m * v_WBcm;
    }
  }

 private:
  /// The example apps' law on every motor: velocity (q_d(t) - q) / h, within the torque limits.
  void driveMotors() {
    desired_(static_cast<double>(steps_) * h_, q_d_);
    difference(model_, q_, q_d_, v_target_);
    v_target_ /= h_;
    motors_->drive(v_target_, max_effort_, h_);
  }

  const Model& model_;
  std::unique_ptr<RigidBodyWorld> world_;
  std::unique_ptr<Ground> ground_;
  std::unique_ptr<Plugin> plugin_;
  BridgeData bdata_;
  bool project_;
  double h_;
  long steps_ = 0;
  Eigen::VectorXd q_;  // positions read after the last step, at first the initial ones (nq)
  Eigen::VectorXd v_;  // velocities of the last projection (nv)
  // Bullet's motors: the reference, its positions now, the motors' targets and efforts.
  std::unique_ptr<JointMotors> motors_;
  std::function<void(double, Eigen::VectorXd&)> desired_;
  Eigen::VectorXd q_d_, v_target_, max_effort_;
};

/// Bullet btMultiBody.
class MultiBodyEngine final : public Engine {
 public:
  MultiBodyEngine(const Model& model, const EngineSetup& setup)
      : model_(model), data_(model), h_(stepLength(setup)) {
    MultiBodyOptions options;
    options.collision_shapes = setup.ground;
    world_ = buildMultiBody(model, options, setup.q0, setup.v0);
    if (setup.ground) {
      ground_ = std::make_unique<Ground>(model, *world_->world, objectsOf(world_->colliders));
    }
    if (setup.bullet_motors) {
      motors_ =
          std::make_unique<MultiBodyMotors>(model, world_->layout, *world_->body, *world_->world);
      desired_ = setup.bullet_motors;
      v_target_.resize(model.nv);
      max_effort_ = effortsOrUnbounded(model, setup.torque_limits);
      // Off the ground the reference and the integrators model the motors bulletMotorDofs drives:
      // the others (balls, universal joints' revolutes) stay passive here too.
      if (!setup.ground) {
        const std::vector<bool> driven = bulletMotorDofs(model);
        for (int i = 0; i < model.nv; ++i) {
          if (!driven[i]) max_effort_(i) = 0.0;
        }
      }
    } else if (setup.control) {
      plugin_ = attachMultiBody(*world_->world, model, world_->layout, *world_->body, setup.control,
                                pluginOptions(setup));
    }
  }

  void advance(int steps) override {
    for (int i = 0; i < steps; ++i) {
      if (motors_) driveMotors();
      world_->world->stepSimulation(h_, 1, h_);
      ++steps_;
    }
  }

  void measure(Sample& sample) override {
    getMultiBodyState(model_, world_->layout, *world_->body, sample.q, sample.v);
    if (!sample.q.allFinite() || !sample.v.allFinite()) {
      throw Error("multibody: the state is not finite");
    }
    measureGeneralized(model_, data_, sample);
  }

 private:
  /// The example apps' law on every motor: velocity (q_d(t) - q) / h (a ball's: the position
  /// q_d(t), MultiBodyMotors), within the torque limits.
  void driveMotors() {
    getMultiBodyState(model_, world_->layout, *world_->body, q_, v_);
    desired_(static_cast<double>(steps_) * h_, q_d_);
    difference(model_, q_, q_d_, v_target_);
    v_target_ /= h_;
    motors_->drive(v_target_, max_effort_, h_);
  }

  const Model& model_;
  Data data_;
  double h_;
  long steps_ = 0;
  std::unique_ptr<MultiBodyWorld> world_;
  std::unique_ptr<Ground> ground_;
  std::unique_ptr<Plugin> plugin_;
  // Bullet's motors: the reference, the state, the targets and efforts.
  std::unique_ptr<MultiBodyMotors> motors_;
  std::function<void(double, Eigen::VectorXd&)> desired_;
  Eigen::VectorXd q_, v_, q_d_, v_target_, max_effort_;
};

/// gcbridge's own integrators (dynamics/integrators.hpp).
class IntegratorEngine final : public Engine {
 public:
  IntegratorEngine(EngineKind kind, const Model& model, const EngineSetup& setup)
      : kind_(kind),
        model_(model),
        workspace_(model),
        data_(model),
        h_(stepLength(setup)),
        q_(setup.q0),
        v_(setup.v0) {
    validateConfiguration(model, q_);
    validateVelocity(model, v_);
    if (setup.control) tau_ = asTorqueFunction(model, limited(setup.control, setup.torque_limits));
  }

  void advance(int steps) override {
    for (int i = 0; i < steps; ++i) {
      // Time from the step count, so that it does not accumulate round-off.
      const double t = static_cast<double>(steps_) * h_;
      switch (kind_) {
        case EngineKind::SemiImplicitEuler:
          semiImplicitEulerStep(model_, workspace_, t, q_, v_, h_, tau_);
          break;
        case EngineKind::RungeKutta4:
          rungeKutta4Step(model_, workspace_, t, q_, v_, h_, tau_);
          break;
        case EngineKind::ImplicitEuler:
          implicitEulerStep(model_, workspace_, t, q_, v_, h_, tau_);
          break;
        case EngineKind::RigidBody:
        case EngineKind::RigidBodyProjected:
        case EngineKind::MultiBody:
          throw InvalidArgumentError("compare: not an integrator engine");
      }
      ++steps_;
      if (!q_.allFinite() || !v_.allFinite()) {
        throw Error(std::string(toString(kind_)) + ": the state is not finite at t = " +
                    std::to_string(static_cast<double>(steps_) * h_) + " s");
      }
    }
  }

  void measure(Sample& sample) override {
    sample.q = q_;
    sample.v = v_;
    measureGeneralized(model_, data_, sample);
  }

 private:
  EngineKind kind_;
  const Model& model_;
  IntegratorWorkspace workspace_;
  Data data_;
  double h_;
  Eigen::VectorXd q_, v_;
  TorqueFunction tau_;
  long steps_ = 0;
};

constexpr auto kEngineNames =
    detail::enumNames<EngineKind>({{EngineKind::RigidBody, "rigid_body"},
                                   {EngineKind::RigidBodyProjected, "rigid_body_projected"},
                                   {EngineKind::MultiBody, "multibody"},
                                   {EngineKind::SemiImplicitEuler, "euler"},
                                   {EngineKind::RungeKutta4, "rk4"},
                                   {EngineKind::ImplicitEuler, "implicit_euler"}});

}  // namespace

const std::vector<EngineKind>& allEngines() {
  static const std::vector<EngineKind> engines = {
      EngineKind::RigidBody,         EngineKind::RigidBodyProjected, EngineKind::MultiBody,
      EngineKind::SemiImplicitEuler, EngineKind::RungeKutta4,        EngineKind::ImplicitEuler};
  return engines;
}

const char* toString(EngineKind kind) { return kEngineNames.name(kind, "?"); }

const char* describe(EngineKind kind) {
  switch (kind) {
    case EngineKind::RigidBody:
      return "Bullet btRigidBody + constraints (maximal coordinates, read through the bridge)";
    case EngineKind::RigidBodyProjected:
      return "the same, the bodies projected onto the joints before every step (positions from "
             "q, mass-weighted velocities)";
    case EngineKind::MultiBody:
      return "Bullet btMultiBody (Featherstone, semi-implicit Euler)";
    case EngineKind::SemiImplicitEuler:
      return "gcbridge semi-implicit Euler on the ABA";
    case EngineKind::RungeKutta4:
      return "gcbridge Runge-Kutta 4 on the ABA";
    case EngineKind::ImplicitEuler:
      return "gcbridge implicit Euler (Newton) on the ABA";
  }
  return "?";
}

bool isRigidBody(EngineKind kind) {
  return kind == EngineKind::RigidBody || kind == EngineKind::RigidBodyProjected;
}

EngineKind engineFromString(const std::string& name) {
  if (const std::optional<EngineKind> kind = kEngineNames.find(name)) return *kind;
  throw InvalidArgumentError("unknown engine '" + name + "' (choose from " + kEngineNames.list() +
                             ")");
}

bool hasContacts(EngineKind kind) { return isRigidBody(kind) || kind == EngineKind::MultiBody; }

std::vector<bool> bulletMotorDofs(const Model& model) {
  // A universal joint's middle link: massless, on the first of its two revolute joints (a
  // massless static root is not one).
  const auto middle = [&model](int k) {
    return k >= 0 && model.inertias[k].mass() <= 0.0 && model.joints[k].type == JointType::Revolute;
  };
  std::vector<bool> driven(model.nv, false);
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    if (joint.type != JointType::Revolute && joint.type != JointType::Prismatic) continue;
    if (!middle(k) && !middle(model.parents[k])) driven[joint.idx_v] = true;
  }
  return driven;
}

std::unique_ptr<Engine> makeEngine(EngineKind kind, const Model& model, const EngineSetup& setup) {
  if (setup.ground && !hasContacts(kind)) {
    throw InvalidArgumentError(std::string("compare: engine '") + toString(kind) +
                               "' cannot stand a model on the ground (no contacts); Bullet's "
                               "engines can");
  }
  switch (kind) {
    case EngineKind::RigidBody:
    case EngineKind::RigidBodyProjected:
      return std::make_unique<RigidBodyEngine>(model, setup,
                                               kind == EngineKind::RigidBodyProjected);
    case EngineKind::MultiBody:
      return std::make_unique<MultiBodyEngine>(model, setup);
    case EngineKind::SemiImplicitEuler:
    case EngineKind::RungeKutta4:
    case EngineKind::ImplicitEuler:
      return std::make_unique<IntegratorEngine>(kind, model, setup);
  }
  throw InvalidArgumentError("compare: unknown engine");
}

}  // namespace gcbridge::compare
