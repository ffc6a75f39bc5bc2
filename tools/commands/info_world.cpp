#include "commands/info_world.hpp"

#include <string>

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

/// What the model of a rigid-body tree leaves out, per link.
void printRigidWorldText(const inputs::BulletWorld& world, std::ostream& out) {
  const gcbridge::InferredModel& inferred = world.inferred;
  const gcbridge::Model& model = inferred.model;
  btDiscreteDynamicsWorld& bullet = world.file->world();
  out << "\nBullet world\n";
  printField(out, "bodies",
             std::to_string(bullet.getNumCollisionObjects()) + " (" +
                 std::to_string(model.numLinks()) + " links on the tree)");
  printField(out, "solver",
             std::to_string(bullet.getSolverInfo().m_numIterations) + " iterations per step");
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
  printField(out, "damping", roundedNumber(settings.linear_damping) + " linear, " +
                                 roundedNumber(settings.angular_damping) + " angular");
  printField(out, "clamp", "generalized velocities to +-" +
                               roundedNumber(settings.max_coordinate_velocity));
}

/// The "world" object of a rigid-body tree.
void writeRigidWorld(JsonWriter& json, const inputs::BulletWorld& world) {
  const gcbridge::InferredModel& inferred = world.inferred;
  json.beginObject();
  json.field("file", world.file->path());
  json.field("bodies", world.file->world().getNumCollisionObjects());
  json.field("solver_iterations", world.file->world().getSolverInfo().m_numIterations);
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
