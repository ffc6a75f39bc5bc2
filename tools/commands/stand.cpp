#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/CollisionShapes/btConvexShape.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/arguments.hpp"
#include "commands/commands.hpp"
#include "format/json_writer.hpp"
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
#include "gcbridge/viewer/html_viewer.hpp"

namespace gcbridge::commands {
namespace {

constexpr const char* kHelpCommand = "gcbridge stand --help";

constexpr const char* kStandHelp = R"(Usage: gcbridge stand [OPTIONS] MODEL.urdf

Stands a legged robot or a character (its root link floating) on a ground plane in the
rigid-body world gcbridge builds from its URDF, held by the floating-base controller on joint
torques alone (no force on the root) within the URDF's effort limits, with the contacts Bullet
reports read before every substep. Prints how far the root sank, rose and tilted, and when and
how it fell if it did. Before the run, the pose is checked: its contacts, its center of mass over
them, the torques it needs against the limits.

Options:
  --pose LIST       the standing pose, NAME=VALUE,... joint positions [rad, m] (the others 0);
                    the root is lowered until the lowest collision shape touches the ground
  --root-rpy LIST   the root's orientation, roll,pitch,yaw [rad] as URDF's rpy (default 0,0,0:
                    the file's z up; 1.5708,0,0 stands a y-up file such as DeepMimic's humanoid)
  --soles LIST      LINK,... links whose box collision shape is a foot: the corners of its sole
                    are the contact points while Bullet reports the link touching (Bullet's own
                    points on a box resting flat come and go); default: Bullet's points
  --seconds T       simulated time (default 10)
  --dt H            Bullet's substep [s] (default 1/240)
  --iterations N    Bullet's solver iterations per substep (default 10)
  --push SPEED      at 2 s and 4 s, shove the root sideways (+y, then -y) so that the whole
                    body's center of mass changes velocity by SPEED [m/s] (default: no push)
  --actuation A     motors (default): the controller's plan through Bullet's joint motors, aimed
                    at the end of each substep (FloatingBaseController::aimAtStepEnd);
                    forces: its torques as forces on the bodies;
                    hold: Bullet's motors holding the pose stiffly, no balance (for comparison)
  --html FILE       the run as a self-contained 3D page (60 frames per second)
  --json            the result as JSON
  --ball PARAM, --no-merge, --scale S   as in 'gcbridge info'
  -h, --help        print this help

A fall: the root below half its start height, or tilted more than 1 rad from its start.
Exit codes: 0 the run ended (standing or fallen: see the output); 1 an unreadable or invalid
model, a pose naming a joint the model lacks, a pose with no contact, a file that cannot be
written; 2 a command-line mistake.
)";

/// How the joints are driven.
enum class StandActuation { Motors, Forces, Hold };

/// What `gcbridge stand` was asked to do.
struct StandRequest : cli::ModelRequest {
  std::vector<std::pair<std::string, double>> pose;
  Vector3 root_rpy = Vector3::Zero();
  std::vector<std::string> soles;
  double seconds = 10.0;
  double dt = 1.0 / 240.0;
  int iterations = 10;
  double push = 0.0;
  StandActuation actuation = StandActuation::Motors;
  std::string html;
};

/// "A,B,C" as its entries (an empty text: none). @throws cli::UsageError for an empty entry.
std::vector<std::string> splitList(const std::string& option, const std::string& text) {
  std::vector<std::string> entries;
  std::size_t begin = 0;
  while (!text.empty() && begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    entries.push_back(text.substr(begin, end - begin));
    if (entries.back().empty()) throw cli::UsageError(option + ": an empty entry", kHelpCommand);
    begin = end + 1;
  }
  return entries;
}

/// "NAME=VALUE,..." as pairs. @throws cli::UsageError naming the bad entry.
std::vector<std::pair<std::string, double>> parsePose(const std::string& text) {
  std::vector<std::pair<std::string, double>> pose;
  for (const std::string& entry : splitList("--pose", text)) {
    const std::size_t equals = entry.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw cli::UsageError("--pose: '" + entry + "' is not NAME=VALUE", kHelpCommand);
    }
    pose.emplace_back(entry.substr(0, equals),
                      cli::parseNumber("--pose " + entry.substr(0, equals),
                                       entry.substr(equals + 1), -1e3, 1e3, kHelpCommand));
  }
  return pose;
}

/// The value of --actuation. @throws cli::UsageError for another.
StandActuation parseActuation(const std::string& text) {
  if (text == "motors") return StandActuation::Motors;
  if (text == "forces") return StandActuation::Forces;
  if (text == "hold") return StandActuation::Hold;
  throw cli::UsageError("--actuation: '" + text + "' is not motors, forces or hold", kHelpCommand);
}

/// The arguments after `stand`. @throws cli::UsageError.
StandRequest parseStandArguments(const std::vector<std::string>& arguments) {
  StandRequest request;
  cli::parseModelCommand(arguments, "stand", request, [&request](cli::ArgumentReader& args) {
    if (args.is("--pose")) {
      request.pose = parsePose(args.value());
    } else if (args.is("--root-rpy")) {
      const std::vector<double> rpy =
          cli::parseNumberList("--root-rpy", args.value(), kHelpCommand);
      if (rpy.size() != 3) throw args.error("--root-rpy takes 3 angles, roll,pitch,yaw");
      request.root_rpy = Vector3(rpy[0], rpy[1], rpy[2]);
    } else if (args.is("--soles")) {
      request.soles = splitList("--soles", args.value());
    } else if (args.is("--seconds")) {
      request.seconds = cli::parseNumber("--seconds", args.value(), 0.0, 1e4, kHelpCommand);
    } else if (args.is("--dt")) {
      request.dt = cli::parseNumber("--dt", args.value(), 1e-5, 0.1, kHelpCommand);
    } else if (args.is("--iterations")) {
      request.iterations = cli::parseWhole("--iterations", args.value(), 1, 100000, kHelpCommand);
    } else if (args.is("--push")) {
      request.push = cli::parseNumber("--push", args.value(), 0.0, 100.0, kHelpCommand);
    } else if (args.is("--actuation")) {
      request.actuation = parseActuation(args.value());
    } else if (args.is("--html")) {
      request.html = args.value();
    } else {
      return false;
    }
    return true;
  });
  if (request.help) return request;
  if (cli::isBulletFile(request.path)) {
    throw cli::UsageError("stand takes a URDF, not a .bullet file", kHelpCommand);
  }
  // The root floats: the contacts carry the body.
  request.model_options.floating_base = true;
  return request;
}

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

/// What a run measured.
struct StandResult {
  double mass = 0.0;
  double start_height = 0.0;  ///< the root's height at the start [m]
  double lowest = 0.0;        ///< largest drop below it [m]
  double highest = 0.0;       ///< largest rise above it [m]
  double tilt = 0.0;          ///< largest angle of the root's start up from the vertical [rad]
  Vector3 up_B = Vector3::UnitZ();  ///< the world's up in the root's frame at the start
  double root_force = 0.0;          ///< largest generalized force applied to the root
  std::optional<double> fell_at;
  std::string fall;
  std::vector<std::string> pose_notes;  ///< the pose check's findings
  long fallbacks = 0;                   ///< substeps with a controller fallback
};

/// The controllers of a run; the plugin drives the world with the one the request names.
struct StandRig {
  StandRig(const Model& model, const Eigen::VectorXd& q0)
      : balance(model, FloatingBaseSolver::Qp),
        hold(model, Eigen::VectorXd::Zero(model.nv)),
        soles(model) {
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
  result.pose_notes.push_back(std::to_string(contacts.size()) + " contact points");
}

/// Attaches the actuation the request names to the world, counting in `result` the root force
/// applied and the controller's fallbacks.
void attachActuation(const Model& model, RigidBodyWorld& world, const StandRequest& request,
                     StandRig& rig, StandResult& result) {
  PluginOptions options;
  options.torque_limits = effortLimits(model);
  if (rig.soles.size() > 0) options.contact_frames = &rig.soles;
  options.log = [&rig, &result](const SubstepRecord& r) {
    result.root_force = std::max(result.root_force, r.tau.head<6>().cwiseAbs().maxCoeff());
    const FloatingBaseStatus status = rig.balance.status();
    if (status == FloatingBaseStatus::QpFailed || status == FloatingBaseStatus::NotFinite) {
      ++result.fallbacks;
    }
  };
  if (request.actuation == StandActuation::Hold) {
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

/// Steps the world for the request's time, pushing and recording as asked.
void stepRun(const Model& model, RigidBodyWorld& world, const StandRequest& request,
             viewer::Recorder* recorder, StandResult& result) {
  const long steps = std::lround(request.seconds / request.dt);
  const long pushes[] = {std::lround(2.0 / request.dt), std::lround(4.0 / request.dt)};
  BridgeData bdata(model);
  Eigen::VectorXd q(model.nq), v(model.nv);
  for (long i = 1; i <= steps; ++i) {
    for (int k = 0; k < 2; ++k) {
      if (request.push > 0.0 && i == pushes[k]) {
        const double impulse = (k == 0 ? 1.0 : -1.0) * request.push * model.totalMass();
        world.map->body(0)->applyCentralImpulse(btVector3(0, impulse, 0));
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

/// The result as text.
void printResult(const Model& model, const StandRequest& request, const StandResult& r) {
  static constexpr const char* kActuation[] = {"motors", "forces", "hold"};
  printField(std::cout, "model",
             model.name + " (" + format::roundedNumber(r.mass, 6) + " kg, nv " +
                 std::to_string(model.nv) + "), root at " +
                 format::roundedNumber(r.start_height, 4) + " m");
  printField(std::cout, "settings",
             format::roundedNumber(request.dt, 6) + " s substeps, " +
                 std::to_string(request.iterations) + " iterations, " +
                 format::roundedNumber(request.seconds, 6) + " s, pushes " +
                 format::roundedNumber(request.push, 6) + " m/s, actuation " +
                 kActuation[static_cast<int>(request.actuation)]);
  for (const std::string& note : r.pose_notes) printField(std::cout, "pose", note);
  printField(std::cout, "result",
             (r.fell_at ? "FELL at " + format::roundedNumber(*r.fell_at, 4) + " s: " + r.fall
                        : std::string("stood")));
  printField(std::cout, "root",
             "at most " + format::roundedNumber(1e3 * r.lowest, 3) + " mm lower, " +
                 format::roundedNumber(1e3 * r.highest, 3) + " mm higher, tilted " +
                 format::roundedNumber(r.tilt, 3) + " rad");
  printField(
      std::cout, "root force",
      "largest generalized force applied to the root: " + format::roundedNumber(r.root_force, 6));
  if (r.fallbacks > 0) {
    printField(std::cout, "fallbacks", std::to_string(r.fallbacks) + " substeps");
  }
}

/// The result as JSON.
void writeResult(const StandResult& r) {
  format::JsonWriter json(std::cout);
  json.beginObject();
  json.field("mass", r.mass);
  json.field("start_height", r.start_height);
  json.field("stood", !r.fell_at.has_value());
  json.key("fell_at");
  if (r.fell_at) {
    json.value(*r.fell_at);
  } else {
    json.null();
  }
  json.field("fall", r.fall);
  json.field("largest_drop", r.lowest);
  json.field("largest_rise", r.highest);
  json.field("largest_tilt", r.tilt);
  json.field("root_force", r.root_force);
  json.field("fallbacks", static_cast<int>(r.fallbacks));
  json.key("pose_notes");
  json.beginArray();
  for (const std::string& note : r.pose_notes) json.value(note);
  json.endArray();
  json.endObject();
  std::cout << '\n';
}

}  // namespace

int runStand(const std::vector<std::string>& args) {
  const StandRequest request = parseStandArguments(args);
  if (request.help) {
    std::cout << kStandHelp;
    return 0;
  }
  // A page that cannot be written is refused before the run, not after it.
  const std::filesystem::path page_folder =
      request.html.empty() ? "." : std::filesystem::absolute(request.html).parent_path();
  if (!std::filesystem::is_directory(page_folder)) {
    throw InvalidArgumentError("--html " + request.html + ": the folder " + page_folder.string() +
                               " does not exist");
  }
  const Model model = loadModel(request);
  const Eigen::VectorXd q0 = onTheGround(model, poseConfiguration(model, request));
  RigidBodyOptions world_options;
  world_options.substep = request.dt;
  world_options.solver_iterations = request.iterations;
  world_options.ground_plane = true;
  const auto world = buildRigidBodyWorld(model, world_options, q0);
  StandResult result;
  result.mass = model.totalMass();
  result.start_height = q0(2);
  result.up_B = Eigen::Quaterniond(q0(6), q0(3), q0(4), q0(5)).conjugate() * Vector3::UnitZ();
  StandRig rig(model, q0);
  declareSoles(model, *world, request, q0, rig.soles);
  checkPose(model, *world, rig, q0, result);
  attachActuation(model, *world, request, rig, result);
  std::optional<viewer::Recorder> recorder;
  if (!request.html.empty()) {
    recorder.emplace(model);
    recorder->addTrack(model.name, viewer::TrackStyle::Solid);
    recorder->beginFrame(0.0);
    recorder->setConfiguration(0, q0);
  }
  stepRun(model, *world, request, recorder ? &*recorder : nullptr, result);
  if (recorder) {
    viewer::ViewerOptions options;
    options.title = model.name + " standing (" + request.path + ")";
    viewer::writeViewer(request.html, *recorder, options);
  }
  if (request.json) {
    writeResult(result);
  } else {
    printResult(model, request, result);
    if (recorder) std::cout << "Wrote " << request.html << "\n";
  }
  return 0;
}

}  // namespace gcbridge::commands
