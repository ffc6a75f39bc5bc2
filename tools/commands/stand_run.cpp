// gcbridge stand: the pose on the ground, and one run of it in Bullet.

#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/CollisionShapes/btConvexShape.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "commands/stand.hpp"
#include "format/numbers.hpp"
#include "gcbridge/bridge/contact_reading.hpp"
#include "gcbridge/bridge/rigid_body_world.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/controllers/computed_torque.hpp"
#include "gcbridge/controllers/floating_base_controller.hpp"
#include "gcbridge/controllers/torque_limits.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/plugin/plugin.hpp"

namespace gcbridge::commands {
namespace {

/// The neutral configuration with the pose's joints set.
/// @throws InvalidArgumentError naming a joint the model does not have, or one of several dofs.
Eigen::VectorXd poseConfiguration(const Model& model, const StandRequest& request) {
  Eigen::VectorXd q = neutralConfiguration(model);
  // The free root's orientation: its quaternion (x, y, z, w) after its position.
  const Eigen::Quaterniond R_WB(rotationFromRpy(request.root_rpy));
  q.segment<4>(3) << R_WB.x(), R_WB.y(), R_WB.z(), R_WB.w();
  for (const auto& [name, value] : request.pose) {
    const auto joint = std::find_if(model.joints.begin(), model.joints.end(),
                                    [&name = name](const Joint& j) { return j.name == name; });
    if (joint == model.joints.end()) {
      throw InvalidArgumentError("--pose: the model '" + model.name + "' has no joint '" + name +
                                 "' that moves (fixed joints are merged)");
    }
    if (joint->nq != 1) {
      throw InvalidArgumentError("--pose: joint '" + name + "' has " + std::to_string(joint->nq) +
                                 " coordinates; give 1-dof joints");
    }
    q(joint->idx_q) = value;
  }
  return q;
}

/// The lowest point of a body's collision shapes [m]: each convex shape's support point along -z
/// (margins included), through a compound's children; +infinity for none.
double lowestPoint(const btRigidBody& body) {
  const auto lowest = [](const btCollisionShape* shape, const btTransform& X_WS) {
    if (!shape->isConvex()) return std::numeric_limits<double>::infinity();
    const btVector3 down_S = X_WS.getBasis().transpose() * btVector3(0, 0, -1);
    const btVector3 p_S =
        static_cast<const btConvexShape*>(shape)->localGetSupportingVertex(down_S);
    return static_cast<double>((X_WS * p_S).z());
  };
  const btCollisionShape* shape = body.getCollisionShape();
  if (shape == nullptr) return std::numeric_limits<double>::infinity();
  if (!shape->isCompound()) return lowest(shape, body.getWorldTransform());
  const auto* compound = static_cast<const btCompoundShape*>(shape);
  double z = std::numeric_limits<double>::infinity();
  for (int i = 0; i < compound->getNumChildShapes(); ++i) {
    z = std::min(z, lowest(compound->getChildShape(i),
                           body.getWorldTransform() * compound->getChildTransform(i)));
  }
  return z;
}

/// q lowered (or raised) until the lowest collision shape of its rigid-body world touches z = 0.
/// @throws InvalidArgumentError for a model without collision shapes.
Eigen::VectorXd onTheGround(const Model& model, Eigen::VectorXd q) {
  const auto world = buildRigidBodyWorld(model, {}, q);
  double lowest = std::numeric_limits<double>::infinity();
  for (int k = 0; k < world->map->numLinks(); ++k) {
    lowest = std::min(lowest, lowestPoint(*world->map->body(k)));
  }
  if (!std::isfinite(lowest)) {
    throw InvalidArgumentError("the model '" + model.name +
                               "' has no collision shape: nothing of it can touch the ground");
  }
  q(2) -= lowest;
  return q;
}

/// The controllers of a run; the plugin drives the world with the one the request names.
struct StandRig {
  StandRig(const Model& model, const Eigen::VectorXd& q0, const StandRequest& request)
      : balance(model, FloatingBaseSolver::Qp),
        hold(model, Eigen::VectorXd::Zero(model.nv)),
        soles(model) {
    if (request.contact_damping) {
      FloatingBaseGains gains = balance.gains();
      gains.contact_damping = *request.contact_damping;
      balance.setGains(gains);
    }
    balance.setSetPoint(q0);
    balance.setTorqueLimits(TorqueLimits(model));
    hold.setSetPoint(q0);
  }
  FloatingBaseController balance;
  ComputedTorque hold;
  ContactFrames soles;  ///< --soles' corners (none: Bullet's points)
  std::unique_ptr<Plugin> plugin;
};

/// The corners of each --soles link's box at q0, with the friction Bullet combines for them and
/// the ground (the last body of the world). @throws InvalidArgumentError naming a link the model
/// lacks or one without a box.
void declareSoles(const Model& model, const RigidBodyWorld& world, const StandRequest& request,
                  const Eigen::VectorXd& q0, ContactFrames& soles) {
  Data data(model);
  const double ground_friction = world.bodies.back()->getFriction();
  for (const std::string& name : request.soles) {
    std::vector<ContactPoint> corners;
    try {
      const int link = model.linkIndex(name);
      const double mu = world.map->body(link)->getFriction() * ground_friction;
      corners = boxSoleCorners(model, data, q0, link, Vector3::UnitZ(), mu);
    } catch (const InvalidArgumentError& e) {
      throw InvalidArgumentError(std::string("--soles: ") + e.what());
    }
    for (std::size_t i = 0; i < corners.size(); ++i) {
      soles.add(name + "_" + std::to_string(i), corners[i]);
    }
  }
}

/// How deep two of the model's links may overlap at the pose before the check names them [m].
constexpr double kOverlapNoted = 1e-3;
/// How many overlapping pairs the check names.
constexpr std::size_t kOverlapsNamed = 3;

/// The model's link pairs that overlap at the pose by more than kOverlapNoted (Bullet's last
/// collision pass), deepest first, as a pose note; nothing when none do.
void noteOverlaps(const Model& model, const RigidBodyWorld& world, StandResult& result) {
  // The deepest overlap of each pair (a compound shape's children make a manifold each).
  std::map<std::pair<int, int>, double> deepest;
  btDispatcher* dispatcher = world.world->getDispatcher();
  for (int m = 0; m < dispatcher->getNumManifolds(); ++m) {
    const btPersistentManifold* manifold = dispatcher->getManifoldByIndexInternal(m);
    const int a = world.map->linkOf(manifold->getBody0());
    const int b = world.map->linkOf(manifold->getBody1());
    if (a < 0 || b < 0) continue;
    double& depth = deepest[std::minmax(a, b)];
    for (int i = 0; i < manifold->getNumContacts(); ++i) {
      depth = std::max(depth, -static_cast<double>(manifold->getContactPoint(i).getDistance()));
    }
  }
  std::vector<std::pair<double, std::string>> overlaps;
  for (const auto& [pair, depth] : deepest) {
    if (depth <= kOverlapNoted) continue;
    overlaps.emplace_back(depth, model.link_names[pair.first] + " and " +
                                     model.link_names[pair.second] + " by " +
                                     format::roundedNumber(1e3 * depth, 3) + " mm");
  }
  if (overlaps.empty()) return;
  std::sort(overlaps.begin(), overlaps.end(), std::greater<>());
  std::string note = overlaps.size() == 1
                         ? std::string("1 pair of links overlaps (")
                         : std::to_string(overlaps.size()) + " pairs of links overlap (";
  for (std::size_t i = 0; i < std::min(overlaps.size(), kOverlapsNamed); ++i) {
    note += (i > 0 ? ", " : "") + overlaps[i].second;
  }
  if (overlaps.size() > kOverlapsNamed) note += ", ...";
  result.pose_notes.push_back(note +
                              "): Bullet pushes them apart at the first substep; "
                              "--no-self-collision lets the links pass through each other");
}

/// One collision pass at the start pose, and the controller's first plan on its contacts: what
/// it reports goes into result.pose_notes. @throws InvalidArgumentError for a pose with no
/// contact.
void checkPose(const Model& model, RigidBodyWorld& world, StandRig& rig, const Eigen::VectorXd& q0,
               StandResult& result) {
  world.world->performDiscreteCollisionDetection();
  const std::vector<ContactPoint> contacts = rig.soles.size() > 0
                                                 ? readContacts(model, *world.map, rig.soles)
                                                 : readContacts(model, *world.map);
  if (contacts.empty()) {
    throw InvalidArgumentError("the pose has no contact with the ground: nothing can hold '" +
                               model.name + "' up");
  }
  rig.balance.setContacts(contacts);
  rig.balance.compute(0.0, q0, Eigen::VectorXd::Zero(model.nv));
  const FloatingBaseStatus status = rig.balance.status();
  if (status != FloatingBaseStatus::Ok) {
    result.pose_notes.push_back(std::string(toString(status)) + ": " + rig.balance.message());
  }
  result.com = rig.balance.centerOfMass();
  for (const Vector3& corner : rig.balance.supportPolygon().verticesInWorld()) {
    result.support.push_back(corner.head<2>());
  }
  result.pose_notes.push_back(std::to_string(contacts.size()) + " contact points");
  noteOverlaps(model, world, result);
}

/// Attaches the actuation the request names to the world, counting in `result` the root force
/// applied and the controller's fallbacks.
void attachActuation(const Model& model, RigidBodyWorld& world, const StandRequest& request,
                     StandRig& rig, StandResult& result) {
  PluginOptions options;
  options.torque_limits = effortLimits(model);
  if (rig.soles.size() > 0) options.contact_frames = &rig.soles;
  const bool balancing = request.actuation != StandActuation::Hold;
  options.log = [&rig, &result, balancing](const SubstepRecord& r) {
    result.root_force = std::max(result.root_force, r.tau.head<6>().cwiseAbs().maxCoeff());
    const FloatingBaseStatus status = rig.balance.status();
    if (balancing &&
        (status == FloatingBaseStatus::QpFailed || status == FloatingBaseStatus::NotFinite)) {
      ++result.fallbacks;
    }
  };
  if (request.actuation == StandActuation::Hold) {
    // The hold's deadbeat torques are for motors; as forces (a joint without one) they explode.
    for (const Joint& joint : model.joints) {
      if (joint.type == JointType::Ball || joint.type == JointType::Planar) {
        throw InvalidArgumentError("--actuation hold: joint '" + joint.name +
                                   "' has no Bullet motor in a rigid-body world (only hinges and "
                                   "sliders do); use motors or forces");
      }
    }
    rig.hold.aimAtStepEnd(request.dt);
    options.actuation = Actuation::JointMotors;
    options.motor_accelerations = [&rig]() -> const Eigen::VectorXd& {
      return rig.hold.desiredAcceleration();
    };
    rig.plugin = attach(
        *world.world, model, *world.map,
        [&rig](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& tau) {
          tau = rig.hold.compute(t, q, v);
          tau.head<6>().setZero();
        },
        options);
    return;
  }
  if (request.actuation == StandActuation::Motors) {
    rig.balance.aimAtStepEnd(request.dt);
    options.actuation = Actuation::JointMotors;
  }
  rig.plugin = attach(*world.world, model, *world.map, rig.balance, options);
}

/// The root's height and tilt after a substep into `result`; a fall ends the run.
/// @return false once it fell.
bool measure(double t, const Eigen::VectorXd& q, StandResult& result) {
  if (!q.allFinite()) {
    result.fell_at = t;
    result.fall = "Bullet's state is no longer finite";
    return false;
  }
  const double height = q(2);
  const Eigen::Quaterniond R_WB(q(6), q(3), q(4), q(5));
  const double tilt = std::acos(std::clamp((R_WB * result.up_B).z(), -1.0, 1.0));
  result.lowest = std::max(result.lowest, result.start_height - height);
  result.highest = std::max(result.highest, height - result.start_height);
  result.tilt = std::max(result.tilt, tilt);
  if (height >= 0.5 * result.start_height && tilt <= 1.0) return true;
  result.fell_at = t;
  result.fall =
      height < 0.5 * result.start_height
          ? "the root below half its start height (" + format::roundedNumber(height, 3) + " m)"
          : "the root tilted " + format::roundedNumber(tilt, 3) + " rad";
  return false;
}

/// Steps the world for `seconds`, pushing and recording as asked.
void stepRun(const Model& model, RigidBodyWorld& world, const StandRequest& request,
             const std::vector<Push>& pushes, double seconds, viewer::Recorder* recorder,
             StandResult& result) {
  const long steps = std::lround(seconds / request.dt);
  BridgeData bdata(model);
  Eigen::VectorXd q(model.nq), v(model.nv);
  for (long i = 1; i <= steps; ++i) {
    for (const Push& push : pushes) {
      if (push.speed > 0.0 && i == std::lround(push.t / request.dt)) {
        const double impulse = push.speed * model.totalMass();
        world.map->body(0)->applyCentralImpulse(
            btVector3(impulse * std::cos(push.direction), impulse * std::sin(push.direction), 0));
      }
    }
    world.step();
    readState(model, *world.map, bdata, q, v);
    const double t = static_cast<double>(i) * request.dt;
    if (recorder != nullptr && recorder->due(t)) {
      recorder->beginFrame(t);
      recorder->setConfiguration(0, q);
    }
    if (!measure(t, q, result)) return;
  }
}

}  // namespace

Eigen::VectorXd standingPose(const Model& model, const StandRequest& request) {
  return onTheGround(model, poseConfiguration(model, request));
}

StandResult standOnce(const Model& model, const Eigen::VectorXd& q0, const StandRequest& request,
                      const std::vector<Push>& pushes, double seconds, viewer::Recorder* recorder) {
  RigidBodyOptions world_options;
  world_options.substep = request.dt;
  world_options.solver_iterations = request.iterations;
  world_options.ground_plane = true;
  world_options.self_collision = request.self_collision;
  const auto world = buildRigidBodyWorld(model, world_options, q0);
  StandResult result;
  result.mass = model.totalMass();
  result.start_height = q0(2);
  result.up_B = Eigen::Quaterniond(q0(6), q0(3), q0(4), q0(5)).conjugate() * Vector3::UnitZ();
  StandRig rig(model, q0, request);
  declareSoles(model, *world, request, q0, rig.soles);
  checkPose(model, *world, rig, q0, result);
  attachActuation(model, *world, request, rig, result);
  stepRun(model, *world, request, pushes, seconds, recorder, result);
  return result;
}

}  // namespace gcbridge::commands
