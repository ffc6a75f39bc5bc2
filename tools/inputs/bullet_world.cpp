#include "inputs/bullet_world.hpp"

#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/dynamics/errors.hpp"

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
  for (const std::string option : {"options.start or options.root", "options.root"}) {
    const std::size_t at = message.find(option);
    if (at == std::string::npos) continue;
    message.replace(at, option.size(), "--root NAME");
    advised = true;
  }
  if (advised) message += " (the file's named bodies: " + namesOf(file) + ")";
  return message;
}

}  // namespace

BulletWorld loadBulletWorld(const std::string& path, const std::string& root,
                            BallParametrization ball) {
  BulletWorld result;
  result.file = loadBulletFile(path);
  InferenceOptions options;
  options.body_names = result.file->bodyNames();
  options.name = stem(path);
  options.source = path;
  options.ball = ball;
  if (!root.empty()) options.root = result.file->body(root);
  try {
    result.inferred = inferModelFromWorld(result.file->world(), options);
  } catch (const WorldError& e) {
    throw WorldError("'" + path + "': " + commandLineAdvice(e.what(), *result.file));
  }
  const Model& model = result.inferred.model;
  BridgeData bdata(model);
  Eigen::VectorXd q;
  readState(model, *result.inferred.map, bdata, q, result.v);
  return result;
}

}  // namespace gcbridge::inputs
