#include "commands/info_world.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "format/numbers.hpp"
#include "format/text_table.hpp"

namespace gcbridge::commands {
namespace {

using format::JsonWriter;
using format::roundedNumber;
using format::Table;

std::string sleepingText(const gcbridge::BodySettings& settings) {
  if (!settings.can_sleep) return "never";
  return "below " + roundedNumber(settings.linear_sleeping_threshold) + " m/s, " +
         roundedNumber(settings.angular_sleeping_threshold) + " rad/s";
}

/// A body's name as inference gives it: the file's, "body<i>" without one.
std::string bodyName(const inputs::BulletWorld& world, const btRigidBody* body) {
  if (body == &btTypedConstraint::getFixedBody()) return "the fixed body (getFixedBody())";
  for (const auto& [named, name] : world.file->bodyNames()) {
    if (named == body) return name;
  }
  return "body" + std::to_string(body->getWorldArrayIndex());
}

/// "a, b, c" of the bodies' names.
std::string namesOf(const inputs::BulletWorld& world,
                    const std::vector<const btRigidBody*>& bodies) {
  std::string names;
  for (const btRigidBody* body : bodies) {
    names += (names.empty() ? "" : ", ") + bodyName(world, body);
  }
  return names.empty() ? "-" : names;
}

/// Whether `tree` holds the model's first body.
bool isTheModels(const inputs::BulletWorld& world, const gcbridge::WorldTree& tree) {
  // The first link with a body (a universal joint's cross link has none).
  const btRigidBody* first = nullptr;
  for (int k = 0; first == nullptr && k < world.inferred.model.numLinks(); ++k) {
    first = world.inferred.map->body(k);
  }
  return std::find(tree.bodies.begin(), tree.bodies.end(), first) != tree.bodies.end();
}

/// Every group of constrained bodies in the file: where it hangs from and its chains.
void printTreesText(const inputs::BulletWorld& world, std::ostream& out) {
  Table trees({"#", "held by", "chains (first bodies)", "bodies", "model"},
              {true, false, false, true, false});
  const std::vector<gcbridge::WorldTree> found = gcbridge::findWorldTrees(world.file->world());
  for (std::size_t i = 0; i < found.size(); ++i) {
    const gcbridge::WorldTree& tree = found[i];
    trees.addRow(
        {std::to_string(i),
         tree.static_bodies.empty() ? "nothing (floating)" : namesOf(world, tree.static_bodies),
         tree.static_bodies.empty() ? bodyName(world, tree.bodies.front()) + ", ... (any as --root)"
                                    : namesOf(world, tree.chain_roots),
         std::to_string(tree.bodies.size()), isTheModels(world, tree) ? "this one" : ""});
  }
  out << "\ngroups of constrained bodies in the file (--root NAME or --subtree NAME picks)\n";
  trees.print(out);
}

/// What the model of a rigid-body tree leaves out, per link.
void printRigidWorldText(const inputs::BulletWorld& world, std::ostream& out) {
  const gcbridge::InferredModel& inferred = world.inferred;
  const gcbridge::Model& model = inferred.model;
  btDiscreteDynamicsWorld& bullet = world.file->world();
  out << "\nBullet world\n";
  printField(out, "bodies",
             std::to_string(bullet.getNumCollisionObjects()) + " (" +
                 std::to_string(model.numLinks()) + " links on the tree)");
  printField(out, "base",
             inferred.base_body.empty() ? "floating" : inferred.base_body + " (static)");
  printField(out, "solver",
             std::to_string(bullet.getSolverInfo().m_numIterations) + " iterations per step");
  for (const std::string& motors : inferred.motors_switched_off) {
    printField(out, "motor off", motors);
  }
  printTreesText(world, out);
  Table links(
      {"#", "link", "spawn gap [m]", "spawn rotation [rad]", "damping (linear, angular)", "sleeps"},
      {true, false, true, true, false, false});
  for (int k = 0; k < model.numLinks(); ++k) {
    const bool has_body = inferred.map->body(k) != nullptr;
    const gcbridge::BodySettings& settings = inferred.body_settings[k];
    links.addRow({std::to_string(k), model.link_names[k],
                  roundedNumber(inferred.spawn_errors[k].position_error),
                  roundedNumber(inferred.spawn_errors[k].rotation_error),
                  has_body ? roundedNumber(settings.linear_damping) + ", " +
                                 roundedNumber(settings.angular_damping)
                           : "- (no body)",
                  has_body ? sleepingText(settings) : "-"});
  }
  out << "\nper link: how far the file's bodies are off the link's joint, and what Bullet adds\n";
  links.print(out);
}

/// "fixed" or "floating", links and dofs of a multibody.
std::string multiBodySummary(const btMultiBody& body) {
  return std::string(body.hasFixedBase() ? "fixed" : "floating") + " base, " +
         std::to_string(body.getNumLinks()) + " links, " + std::to_string(body.getNumDofs()) +
         " joint dofs";
}

/// The file's multibodies and the chosen one's settings.
void printMultiBodyWorldText(const inputs::BulletWorld& world, std::ostream& out) {
  const gcbridge::MultiBodySettings& settings = world.multibody->settings;
  out << "\nBullet world\n";
  Table bodies({"#", "base", "multibody", "model"}, {true, false, false, false});
  for (int i = 0; i < world.file->numMultiBodies(); ++i) {
    const btMultiBody& body = world.file->multiBody(i);
    bodies.addRow({std::to_string(i), body.getBaseName() != nullptr ? body.getBaseName() : "-",
                   multiBodySummary(body), i == world.multibody_index ? "this one" : ""});
  }
  out << "multibodies in the file (--multibody NAME|INDEX picks one)\n";
  bodies.print(out);
  printField(out, "damping",
             roundedNumber(settings.linear_damping) + " linear, " +
                 roundedNumber(settings.angular_damping) + " angular");
  printField(out, "clamp",
             "generalized velocities to +-" + roundedNumber(settings.max_coordinate_velocity));
}

/// The names of `bodies` as a JSON array.
void writeNames(JsonWriter& json, const inputs::BulletWorld& world,
                const std::vector<const btRigidBody*>& bodies) {
  json.beginArray();
  for (const btRigidBody* body : bodies) json.value(bodyName(world, body));
  json.endArray();
}

/// The "trees" array: every group of constrained bodies in the file.
void writeTrees(JsonWriter& json, const inputs::BulletWorld& world) {
  json.key("trees");
  json.beginArray();
  for (const gcbridge::WorldTree& tree : gcbridge::findWorldTrees(world.file->world())) {
    json.beginObject();
    json.key("held_by");
    writeNames(json, world, tree.static_bodies);
    json.key("chains");
    writeNames(json, world, tree.chain_roots);
    json.key("bodies");
    writeNames(json, world, tree.bodies);
    json.field("model", isTheModels(world, tree));
    json.endObject();
  }
  json.endArray();
}

/// The "world" object of a rigid-body tree.
void writeRigidWorld(JsonWriter& json, const inputs::BulletWorld& world) {
  const gcbridge::InferredModel& inferred = world.inferred;
  json.beginObject();
  json.field("file", world.file->path());
  json.field("bodies", world.file->world().getNumCollisionObjects());
  json.field("solver_iterations", world.file->world().getSolverInfo().m_numIterations);
  json.key("base_body");
  if (inferred.base_body.empty()) {
    json.null();
  } else {
    json.value(inferred.base_body);
  }
  json.key("motors_switched_off");
  json.beginArray();
  for (const std::string& motors : inferred.motors_switched_off) json.value(motors);
  json.endArray();
  writeTrees(json, world);
  json.key("q");
  writeVector(json, inferred.q);
  json.key("v");
  writeVector(json, world.v);
  json.key("links");
  json.beginArray();
  for (int k = 0; k < inferred.model.numLinks(); ++k) {
    const gcbridge::BodySettings& settings = inferred.body_settings[k];
    json.beginObject();
    json.field("name", inferred.model.link_names[k]);
    json.field("spawn_gap", inferred.spawn_errors[k].position_error);
    json.field("spawn_rotation", inferred.spawn_errors[k].rotation_error);
    json.field("linear_damping", settings.linear_damping);
    json.field("angular_damping", settings.angular_damping);
    json.field("linear_damping_rate", settings.linear_damping_rate);
    json.field("angular_damping_rate", settings.angular_damping_rate);
    json.key("gravity");
    writeVector(json, settings.gravity_W);
    json.field("can_sleep", settings.can_sleep);
    json.field("linear_sleeping_threshold", settings.linear_sleeping_threshold);
    json.field("angular_sleeping_threshold", settings.angular_sleeping_threshold);
    json.endObject();
  }
  json.endArray();
  json.endObject();
}

/// The "world" object of a multibody.
void writeMultiBodyWorld(JsonWriter& json, const inputs::BulletWorld& world) {
  const gcbridge::InferredMultiBody& inferred = *world.multibody;
  json.beginObject();
  json.field("file", world.file->path());
  json.field("multibody", world.multibody_index);
  json.key("multibodies");
  json.beginArray();
  for (int i = 0; i < world.file->numMultiBodies(); ++i) {
    const btMultiBody& body = world.file->multiBody(i);
    json.beginObject();
    json.key("base");
    if (body.getBaseName() != nullptr) {
      json.value(body.getBaseName());
    } else {
      json.null();
    }
    json.field("fixed_base", body.hasFixedBase());
    json.field("links", body.getNumLinks());
    json.field("dofs", body.getNumDofs());
    json.endObject();
  }
  json.endArray();
  json.key("q");
  writeVector(json, inferred.q);
  json.key("v");
  writeVector(json, inferred.v);
  json.field("linear_damping", inferred.settings.linear_damping);
  json.field("angular_damping", inferred.settings.angular_damping);
  json.field("max_coordinate_velocity", inferred.settings.max_coordinate_velocity);
  json.endObject();
}

}  // namespace

void printWorldText(const inputs::BulletWorld& world, std::ostream& out) {
  if (world.multibody) {
    printMultiBodyWorldText(world, out);
  } else {
    printRigidWorldText(world, out);
  }
}

void writeWorld(JsonWriter& json, const inputs::BulletWorld& world) {
  if (world.multibody) {
    writeMultiBodyWorld(json, world);
  } else {
    writeRigidWorld(json, world);
  }
}

}  // namespace gcbridge::commands
