#pragma once
/// @file
/// The part of `gcbridge info` about a .bullet file's world: what the model leaves out, as text
/// and as the "world" object of --json. A rigid-body tree: per link how far the file's bodies are
/// off its joint, their damping and sleeping. A multibody: the file's multibodies (which one is
/// the model), the body's settings Bullet applies on top of the model.

#include <ostream>

#include "format/json_writer.hpp"
#include "inputs/bullet_world.hpp"

namespace gcbridge::commands {

/// The world's section of the text report.
void printWorldText(const inputs::BulletWorld& world, std::ostream& out);

/// The "world" object of the JSON report.
void writeWorld(format::JsonWriter& json, const inputs::BulletWorld& world);

}  // namespace gcbridge::commands
