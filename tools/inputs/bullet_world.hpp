#pragma once
/// @file
/// A .bullet file as the commands read it (gcbridge info, dynamics, compare and view take one in
/// place of a URDF): Bullet's world from the file and a model read from it, either one of its
/// btMultiBodys (the first, or the one --multibody picks) or the tree of rigid bodies and
/// constraints around a root body (--root, or a file without multibodies).

#include <Eigen/Core>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/model_options.hpp"
#include "gcbridge/bridge/bullet_file.hpp"
#include "gcbridge/bridge/multibody_inference.hpp"
#include "gcbridge/bridge/world_inference.hpp"

namespace gcbridge::inputs {

/// What the commands need of a .bullet file.
struct BulletWorld {
  std::unique_ptr<BulletFile> file;
  /// The model of a multibody (named after its base, or after the file when the base has no
  /// name), its layout, state, settings and warnings; empty for a rigid-body tree.
  std::optional<InferredMultiBody> multibody;
  int multibody_index = -1;  ///< which of the file's multibodies
  /// Otherwise the rigid-body tree's model (named after the file, its source the file's path), its
  /// map onto the file's bodies, the configuration the bodies are in, spawn errors, body
  /// settings, warnings.
  InferredModel inferred;
  /// The velocities the bodies have in the file (nv).
  Eigen::VectorXd v;

  const Model& model() const { return multibody ? multibody->model : inferred.model; }
  const Eigen::VectorXd& q() const { return multibody ? multibody->q : inferred.q; }
  const std::vector<std::string>& warnings() const {
    return multibody ? multibody->warnings : inferred.warnings;
  }
};

/// Reads the .bullet file request.path and its model: the multibody request.multibody names (a
/// base's name or an index) or, with none given, the file's first multibody unless request.root
/// is given; otherwise the tree of bodies and constraints around the body named request.root
/// (empty: the file's one group of constrained bodies, held by a static body), only the chain of
/// request.subtree when given, its motors switched off with request.motors_off (a multibody's
/// are not read then: those options pick the rigid bodies).
/// A multibody's fixed links are merged unless request.model_options.merge_fixed_joints is off.
/// @throws WorldError naming the file: one that cannot be read or is not a sound .bullet file, a
///   root or multibody it does not hold (listing the names there are), a model inference
///   refuses, with a hint at --root and the body names when the root is what is missing.
/// @throws InvalidArgumentError for a --ball other than quaternion on a multibody.
BulletWorld loadBulletWorld(const cli::ModelRequest& request);

}  // namespace gcbridge::inputs
