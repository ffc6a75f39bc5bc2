#pragma once
// A Bullet body's collision shape as the model's collision geometry (world inference).

#include <BulletCollision/CollisionShapes/btCollisionShape.h>

#include <vector>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/dynamics/description.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace detail {

/// The shapes of `shape` (boxes, spheres, capsules, cylinders, convex hulls as in-memory meshes,
/// a compound's children among them) placed in the link frame L, given the body frame B in L;
/// other shapes (triangle meshes, planes) are left out.
std::vector<GeometryInstance> shapesOfBody(const btCollisionShape* shape, const Transform& X_LB);

}  // namespace detail
GCBRIDGE_BULLET_NAMESPACE_END
