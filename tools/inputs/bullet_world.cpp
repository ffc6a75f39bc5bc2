#include "inputs/bullet_world.hpp"

#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/joint.hpp"

namespace gcbridge::inputs {
namespace {

/// The file's name without folder and extension: "ragdoll" for "saves/ragdoll.bullet".
std::string stem(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::size_t dot = name.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

/// "pelvis, spine, head" or "none".
std::string namesOf(const BulletFile& file) {
  std::string names;
  for (const auto& entry : file.bodyNames()) names += (names.empty() ? "" : ", ") + entry.second;
  return names.empty() ? "none" : names;
}

/// Inference's message with its advice in the commands' terms: the options it names become
/// --root, with the names to choose from.
std::string commandLineAdvice(std::string message, const BulletFile& file) {
  bool advised = false;
  const std::pair<const char*, const char*> options[] = {
      {"options.start, options.root or options.subtree", "--root NAME or --subtree NAME"},
      {"options.root or options.subtree", "--root NAME or --subtree NAME"},
      {"options.root", "--root NAME"},
      {"options.subtree", "--subtree NAME"}};
  for (const auto& [option, flag] : options) {
    const std::size_t at = message.find(option);
    if (at == std::string::npos) continue;
    message.replace(at, std::string(option).size(), flag);
    advised = true;
  }
  const std::string motors = "options.switch_motors_off";
  const std::size_t at = message.find(motors);
  if (at != std::string::npos) message.replace(at, motors.size(), "--motors off");
  if (advised) message += " (the file's named bodies: " + namesOf(file) + ")";
  return message;
}

/// The file's multibody `which` (a base's name or an index).
int multiBodyIndex(const BulletFile& file, const std::string& which) {
  const bool number = !which.empty() && which.find_first_not_of("0123456789") == std::string::npos;
  const btMultiBody& body =
      number && which.size() < 9 ? file.multiBody(std::stoi(which)) : file.multiBody(which);
  for (int i = 0; i < file.numMultiBodies(); ++i) {
    if (&file.multiBody(i) == &body) return i;
  }
  return -1;
}

/// The model of the file's multibody `index`.
void readMultiBody(BulletWorld& world, int index, const cli::ModelRequest& request) {
  if (request.model_options.ball != BallParametrization::Quaternion) {
    throw InvalidArgumentError("'" + request.path + "': --ball " +
                               toString(request.model_options.ball) +
                               ": a multibody's ball joints are quaternions, as in Bullet");
  }
  btMultiBody& body = world.file->multiBody(index);
  MultiBodyInferenceOptions options;
  options.world = &world.file->world();
  options.merge_fixed_joints = request.model_options.merge_fixed_joints;
  const bool named = body.getBaseName() != nullptr && *body.getBaseName() != '\0';
  options.name = named ? body.getBaseName() : stem(request.path);
  options.source = request.path;
  try {
    world.multibody = inferModelFromMultiBody(body, options);
  } catch (const WorldError& e) {
    throw WorldError("'" + request.path + "': " + e.what());
  }
  world.multibody_index = index;
  world.v = world.multibody->v;
}

/// The model of the tree of rigid bodies around request.root.
void readRigidBodies(BulletWorld& world, const cli::ModelRequest& request) {
  InferenceOptions options;
  options.body_names = world.file->bodyNames();
  options.name = stem(request.path);
  options.source = request.path;
  options.ball = request.model_options.ball;
  if (!request.root.empty()) options.root = world.file->body(request.root);
  if (!request.subtree.empty()) options.subtree = world.file->body(request.subtree);
  options.switch_motors_off = request.motors_off;
  try {
    world.inferred = inferModelFromWorld(world.file->world(), options);
  } catch (const WorldError& e) {
    throw WorldError("'" + request.path + "': " + commandLineAdvice(e.what(), *world.file));
  }
  const Model& model = world.inferred.model;
  BridgeData bdata(model);
  Eigen::VectorXd q;
  readState(model, *world.inferred.map, bdata, q, world.v);
}

}  // namespace

BulletWorld loadBulletWorld(const cli::ModelRequest& request) {
  BulletWorld world;
  world.file = loadBulletFile(request.path);
  if (!request.multibody.empty()) {
    readMultiBody(world, multiBodyIndex(*world.file, request.multibody), request);
  } else if (request.root.empty() && request.subtree.empty() && !request.motors_off &&
             world.file->numMultiBodies() > 0) {
    readMultiBody(world, 0, request);
  } else {
    readRigidBodies(world, request);
  }
  return world;
}

}  // namespace gcbridge::inputs
