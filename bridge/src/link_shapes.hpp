#pragma once
// A model link's collision geometry as one Bullet collision shape (the rigid-body world's bodies,
// the btMultiBody's link colliders).

#include <BulletCollision/CollisionShapes/btCompoundShape.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/dynamics/model.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace detail {

/// Owns the shapes made for a world's links; a mesh's hull is shared between links by file and
/// scale.
struct LinkShapeStore {
  std::vector<std::unique_ptr<btCollisionShape>> shapes;
  std::map<std::string, btCollisionShape*> meshes;
};

/// Link k's collision shape: its collision geometry (and that of the description links merged
/// into it) placed in its body frame B (X_LB, B in the link frame L), in a compound (empty
/// without geometry), owned by `store`. Boxes, spheres, cylinders and capsules as Bullet's
/// primitives (cylinders and capsules along z), meshes as their convex hull.
/// @throws InvalidArgumentError naming `caller`, the link and the file of a mesh that cannot be
///   read or has fewer than 4 vertices.
btCompoundShape* makeLinkShape(const Model& model, int k, const Transform& X_LB, const char* caller,
                               LinkShapeStore& store);

/// An empty compound owned by `store` (a body that collides with nothing).
btCompoundShape* makeEmptyShape(LinkShapeStore& store);

}  // namespace detail
GCBRIDGE_BULLET_NAMESPACE_END
