#include <cmath>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands/commands.hpp"
#include "format/json_writer.hpp"
#include "format/numbers.hpp"
#include "format/text_table.hpp"
#include "gcbridge/dynamics/joint.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "commands/info_world.hpp"
#include "inputs/bullet_world.hpp"

namespace gcbridge::commands {
namespace {

using format::JsonWriter;
using format::roundedNumber;
using format::Table;

constexpr const char* kInfoHelp = R"(Usage: gcbridge info [OPTIONS] MODEL.urdf
       gcbridge info [OPTIONS] WORLD.bullet

Loads MODEL.urdf and prints the model gcbridge builds from it: name, source file, nq, nv,
number of links, total mass, gravity, base; a table of the model links (index, name, parent,
mass, joint name and type, first-last index in q and v, limits); the description links merged
into another link by fixed joints (their pose in that link); and the reader's warnings (in
the report only, not on stderr).

WORLD.bullet, a world Bullet saved (btDynamicsWorld::serialize), is read with Bullet's importer
and its tree of bodies and constraints becomes the model (gcbridge::inferModelFromWorld: links
named after the bodies, a joint per constraint, fixed joints kept). After the model, a table of
what the model leaves out, per link: how far the file's bodies are off the link's joint (the
spawn error: pivot gap and rotation the joint does not allow; Bullet's solver pulls the bodies
together, the model describes the constraints), the body's velocity damping and whether Bullet
may put it to sleep; a body under a gravity other than the world's is a warning. Before it, the
base (the static body the tree hangs from, or floating), the motors --motors off switched off,
and every group of constrained bodies in the file (its static body, its chains, its bodies).
A file holding btMultiBodys (btMultiBodyDynamicsWorld::serialize) gives the model of one of them
instead (gcbridge::inferModelFromMultiBody: the base, each link's joint, limits, names where the
file has them, fixed links merged unless --no-merge): the first, or --multibody NAME|INDEX; --root
reads the rigid bodies instead. The table then lists the file's multibodies, and what Bullet
applies on top of the model (its damping and velocity clamp) follows.

Options:
  --floating-base   give the root link a free joint (nq += 7, nv += 6) instead of welding it
                    to the world (URDF only)
  --ball PARAM      how ball joints store their orientation in q: quaternion (default, nq 4),
                    expmap or euler (nq 3)
  --no-merge        keep links attached by fixed joints as separate model links (URDF, or a
                    .bullet file's multibody with --multibody)
  --scale S         the robot S times as large, of the same materials (pybullet's
                    globalScaling): lengths x S, masses x S^3, inertias x S^5 (URDF only)
  --multibody WHICH .bullet only: the multibody, by its base's name or index (default: the first)
  --root NAME       .bullet only: the rigid-body tree's root body, by name (default: the static
                    body holding the file's one group of constrained bodies, with every chain it
                    holds; a floating group's root must be given); needed when the file holds
                    several groups
  --subtree NAME    .bullet only: one chain alone, by its first body (the one a static body
                    holds), instead of every chain of that static body
  --motors off      .bullet only: switch the tree's enabled joint motors off (each listed)
                    instead of refusing the file (--motors refuse, the default)
  --json            print JSON instead of tables: keys name, source, nq, nv, num_links,
                    total_mass, gravity, floating_base, ball_parametrization,
                    merge_fixed_joints, links (each: index, name, parent (null for the world),
                    mass, com, joint {name, type, parametrization (ball only), idx_q, idx_v, nq,
                    nv, axis, limits}), frames (merged links), warnings; infinite limits are null;
                    for a .bullet file also world {file, bodies, solver_iterations, base_body
                    (null: floating), motors_switched_off, trees (each: held_by, chains,
                    bodies (names), model (whether it is the model's)), q, v (the
                    state the bodies are in), links (each: name, spawn_gap [m], spawn_rotation
                    [rad], linear_damping, angular_damping, linear_damping_rate,
                    angular_damping_rate [1/s], gravity, can_sleep, linear_sleeping_threshold,
                    angular_sleeping_threshold)}; for a multibody, world {file, multibody
                    (its index), multibodies (each: base, fixed_base, links, dofs), q, v,
                    linear_damping, angular_damping, max_coordinate_velocity}
  -h, --help        print this help
)";

/// URDF roll, pitch, yaw of R = Rz(yaw) Ry(pitch) Rx(roll) [rad]; at pitch = +-pi/2 roll is 0.
gcbridge::Vector3 rpyFromRotation(const gcbridge::Matrix3& R) {
  const double pitch = std::asin(std::clamp(-R(2, 0), -1.0, 1.0));
  if (std::abs(R(2, 0)) > 1.0 - 1e-12) {
    return gcbridge::Vector3(0.0, pitch, std::atan2(-R(0, 1), R(1, 1)));
  }
  return gcbridge::Vector3(std::atan2(R(2, 1), R(2, 2)), pitch, std::atan2(R(1, 0), R(0, 0)));
}

/// "-" for no coordinate, "3" for one, "3-6" for several (first-last index, inclusive).
std::string indexRange(int first, int count) {
  if (count == 0) return "-";
  if (count == 1) return std::to_string(first);
  return std::to_string(first) + "-" + std::to_string(first + count - 1);
}

/// "revolute", or for ball joints "ball (expmap)".
std::string jointTypeName(const gcbridge::Joint& joint) {
  std::string name = gcbridge::toString(joint.type);
  if (joint.type == gcbridge::JointType::Ball) {
    name += std::string(" (") + gcbridge::toString(joint.ball) + ")";
  }
  return name;
}

/// Whether the joint has the scalar limits of URDF's `<limit>`: one coordinate (revolute and
/// prismatic joints).
bool hasScalarLimits(const gcbridge::Joint& joint) { return joint.nq == 1 && joint.nv == 1; }

/// Whether the joint's one coordinate is an angle (revolute) rather than a length (prismatic).
bool isAngular(const gcbridge::Joint& joint) {
  return std::string_view(gcbridge::jointConfigurationCoordinates(joint)[0].unit) == "rad";
}

/// The description links that are not model links: merged into another link by a fixed joint.
std::vector<int> mergedFrames(const gcbridge::Model& model) {
  std::vector<int> merged;
  for (int i = 0; i < static_cast<int>(model.frames.size()); ++i) {
    if (model.link_description[model.frames[i].link] != i) merged.push_back(i);
  }
  return merged;
}

/// "[-2.96706, 2.96706] rad", "none" when unbounded, "-" for joints without such limits.
std::string positionLimitsText(const gcbridge::Joint& joint) {
  if (!hasScalarLimits(joint)) return "-";
  const gcbridge::JointLimits& l = joint.limits;
  if (std::isinf(l.lower) && std::isinf(l.upper)) return "none";
  const char* unit = isAngular(joint) ? " rad" : " m";
  return "[" + roundedNumber(l.lower) + ", " + roundedNumber(l.upper) + "]" + unit;
}

/// An effort or velocity limit with its unit, "none" when infinite, "-" when not applicable.
std::string scalarLimitText(const gcbridge::Joint& joint, double value, const char* unit_revolute,
                            const char* unit_prismatic) {
  if (!hasScalarLimits(joint)) return "-";
  if (std::isinf(value)) return "none";
  return roundedNumber(value) + " " + (isAngular(joint) ? unit_revolute : unit_prismatic);
}

/// The human-readable report of `gcbridge info`: summary, links table, merged frames; the world
/// section comes after it and the warnings last.
void printModelText(const gcbridge::Model& model, std::ostream& out) {
  // Summary.
  printField(out, "model", model.name);
  printField(out, "source", model.description->source);
  printField(out, "nq", std::to_string(model.nq));
  printField(out, "nv", std::to_string(model.nv));
  printField(out, "links",
             std::to_string(model.numLinks()) + " (from " + std::to_string(model.frames.size()) +
                 " description links)");
  printField(out, "total mass", roundedNumber(model.totalMass()) + " kg");
  printField(out, "gravity", vectorText(model.gravity_W) + " m/s^2 (world frame)");
  printField(out, "base",
             model.floating_base ? "floating (free joint)" : "fixed (welded to the world)");

  // One row per model link; joint k attaches link k to its parent.
  Table links({"#", "link", "parent", "mass [kg]", "joint", "type", "q", "v", "position limits",
               "effort", "velocity"},
              {true, false, false, true, false, false, false, false, false, false, false});
  for (int k = 0; k < model.numLinks(); ++k) {
    const gcbridge::Joint& joint = model.joints[k];
    const int parent = model.parents[k];
    links.addRow(
        {std::to_string(k), model.link_names[k], parent < 0 ? "world" : model.link_names[parent],
         roundedNumber(model.inertias[k].mass()), joint.name, jointTypeName(joint),
         indexRange(joint.idx_q, joint.nq), indexRange(joint.idx_v, joint.nv),
         positionLimitsText(joint), scalarLimitText(joint, joint.limits.effort, "N m", "N"),
         scalarLimitText(joint, joint.limits.velocity, "rad/s", "m/s")});
  }
  out << "\nlinks (q, v: first-last index of the joint's coordinates in q and v)\n";
  links.print(out);

  // Description links welded into another model link.
  const std::vector<int> merged = mergedFrames(model);
  out << "\nmerged frames (description links welded into a model link; pose in that link)\n";
  if (merged.empty()) {
    out << "  none\n";
  } else {
    Table frames({"frame", "on link", "xyz [m]", "rpy [rad]"}, {false, false, false, false});
    for (int i : merged) {
      const gcbridge::Frame& f = model.frames[i];
      frames.addRow({f.name, model.link_names[f.link], vectorText(f.X_BF.translation()),
                     vectorText(rpyFromRotation(f.X_BF.rotation()))});
    }
    frames.print(out);
  }
}

/// The warnings of the reader, the model builder and world inference.
std::vector<std::string> warningsOf(const gcbridge::Model& model,
                                    const inputs::BulletWorld* world) {
  std::vector<std::string> warnings = model.description->warnings;
  if (world != nullptr) {
    warnings.insert(warnings.end(), world->warnings().begin(), world->warnings().end());
  }
  return warnings;
}

/// "never", or the thresholds below which Bullet may put the body to sleep.

/// The warnings section.
void printWarningsText(const std::vector<std::string>& warnings, std::ostream& out) {
  out << "\nwarnings\n";
  if (warnings.empty()) out << "  none\n";
  for (const std::string& w : warnings) out << "  " << w << '\n';
}

/// The joint's limits; infinite ones become null (JSON has no infinity).
void writeLimits(JsonWriter& json, const gcbridge::JointLimits& l) {
  json.beginObject();
  json.field("lower", l.lower);
  json.field("upper", l.upper);
  json.field("effort", l.effort);
  json.field("velocity", l.velocity);
  json.field("damping", l.damping);
  json.field("friction", l.friction);
  json.endObject();
}

/// The joint attaching a link to its parent; axis and limits only for revolute and prismatic.
void writeJoint(JsonWriter& json, const gcbridge::Joint& joint) {
  json.beginObject();
  json.field("name", joint.name);
  json.field("type", gcbridge::toString(joint.type));
  if (joint.type == gcbridge::JointType::Ball) {
    json.field("parametrization", gcbridge::toString(joint.ball));
  }
  json.field("idx_q", joint.idx_q);
  json.field("idx_v", joint.idx_v);
  json.field("nq", joint.nq);
  json.field("nv", joint.nv);
  if (hasScalarLimits(joint)) {
    json.key("axis");
    writeVector(json, joint.axis);
    json.key("limits");
    writeLimits(json, joint.limits);
  }
  json.endObject();
}


/// The report of `gcbridge info --json` (keys listed in kInfoHelp); `world` for a .bullet file.
void printInfoJson(const gcbridge::Model& model, const gcbridge::ModelOptions& options,
                   const inputs::BulletWorld* world, std::ostream& out) {
  JsonWriter json(out);
  json.beginObject();
  // Summary.
  json.field("name", model.name);
  json.field("source", model.description->source);
  json.field("nq", model.nq);
  json.field("nv", model.nv);
  json.field("num_links", model.numLinks());
  json.field("total_mass", model.totalMass());
  json.key("gravity");
  writeVector(json, model.gravity_W);
  json.field("floating_base", model.floating_base);
  json.field("ball_parametrization", gcbridge::toString(options.ball));
  json.field("merge_fixed_joints", options.merge_fixed_joints);

  // Model links with the joint attaching each to its parent.
  json.key("links");
  json.beginArray();
  for (int k = 0; k < model.numLinks(); ++k) {
    const int parent = model.parents[k];
    json.beginObject();
    json.field("index", k);
    json.field("name", model.link_names[k]);
    json.key("parent");
    if (parent < 0) {
      json.null();
    } else {
      json.value(model.link_names[parent]);
    }
    json.field("mass", model.inertias[k].mass());
    json.key("com");
    writeVector(json, model.inertias[k].com());
    json.key("joint");
    writeJoint(json, model.joints[k]);
    json.endObject();
  }
  json.endArray();

  // Description links welded into another model link.
  json.key("frames");
  json.beginArray();
  for (int i : mergedFrames(model)) {
    const gcbridge::Frame& f = model.frames[i];
    json.beginObject();
    json.field("name", f.name);
    json.field("link", model.link_names[f.link]);
    json.field("link_index", f.link);
    json.key("xyz");
    writeVector(json, f.X_BF.translation());
    json.key("rpy");
    writeVector(json, rpyFromRotation(f.X_BF.rotation()));
    json.endObject();
  }
  json.endArray();

  json.key("warnings");
  json.beginArray();
  for (const std::string& w : warningsOf(model, world)) json.value(w);
  json.endArray();
  if (world != nullptr) {
    json.key("world");
    writeWorld(json, *world);
  }
  json.endObject();
}

}  // namespace

int runInfo(const std::vector<std::string>& args) {
  cli::ModelRequest request;
  cli::parseModelCommand(args, "info", request, [](cli::ArgumentReader&) { return false; });
  if (request.help) {
    std::cout << kInfoHelp;
    return 0;
  }
  std::optional<inputs::BulletWorld> world;
  gcbridge::Model urdf_model;
  if (cli::isBulletFile(request.path)) {
    world = inputs::loadBulletWorld(request);
  } else {
    urdf_model = gcbridge::loadUrdf(request.path, request.model_options);
  }
  const gcbridge::Model& model = world ? world->model() : urdf_model;
  const inputs::BulletWorld* world_or_null = world ? &*world : nullptr;
  // Inference keeps a rigid-body tree's fixed joints.
  if (world && !world->multibody) request.model_options.merge_fixed_joints = false;
  if (request.json) {
    printInfoJson(model, request.model_options, world_or_null, std::cout);
  } else {
    printModelText(model, std::cout);
    if (world) printWorldText(*world, std::cout);
    printWarningsText(warningsOf(model, world_or_null), std::cout);
  }
  return 0;
}

}  // namespace gcbridge::commands
