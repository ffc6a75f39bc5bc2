#pragma once
/// @file
/// A .bullet file as the commands read it (gcbridge info and compare take one in place of a
/// URDF): Bullet's world from the file and the model inferred from it around a root body.

#include <Eigen/Core>
#include <memory>
#include <string>

#include "gcbridge/bridge/bullet_file.hpp"
#include "gcbridge/bridge/world_inference.hpp"

namespace gcbridge::inputs {

/// What the commands need of a .bullet file.
struct BulletWorld {
  std::unique_ptr<BulletFile> file;
  /// The model (named after the file, its source the file's path), its map onto the file's
  /// bodies, the configuration the bodies are in, spawn errors, body settings, warnings.
  InferredModel inferred;
  /// The velocities the bodies have in the file (nv), read through the map.
  Eigen::VectorXd v;
};

/// Reads the .bullet file at `path` and infers the tree of bodies and constraints around the
/// body named `root` (empty: the one dynamic body attached to a static body, which there must be
/// exactly one of).
/// @throws WorldError naming the file: one that cannot be read or is not a sound .bullet file, a
///   root name not in it (listing the names there are), a world inference refuses (no constraint
///   on a dynamic body, several trees and no root, a constraint that cannot be a joint), with a
///   hint at --root and the body names when the root is what is missing.
BulletWorld loadBulletWorld(const std::string& path, const std::string& root,
                            BallParametrization ball);

}  // namespace gcbridge::inputs
