#include "body_shapes.hpp"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btCylinderShape.h>
#include <BulletCollision/CollisionShapes/btShapeHull.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>

#include <cmath>

#include "bullet_conversions.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace detail {
namespace {

/// The rotation taking z (the model's cylinder and capsule axis) onto Bullet's up axis.
Matrix3 zOnto(int up_axis) {
  if (up_axis == 0) return Eigen::AngleAxisd(M_PI_2, Vector3::UnitY()).toRotationMatrix();
  if (up_axis == 1) return Eigen::AngleAxisd(-M_PI_2, Vector3::UnitX()).toRotationMatrix();
  return Matrix3::Identity();
}

/// A convex hull shape as an in-memory mesh: its hull's triangles (btShapeHull), the points
/// scaled as the shape scales them. @return false for a hull of fewer than 4 points.
bool hullMesh(const btConvexHullShape* hull_shape, Geometry& g) {
  btShapeHull hull(hull_shape);
  if (hull_shape->getNumPoints() < 4 || !hull.buildHull(0) || hull.numTriangles() == 0) {
    return false;
  }
  g.type = Geometry::Type::Mesh;
  g.mesh_uri = "(convex hull of a Bullet body)";
  for (int i = 0; i < hull.numVertices(); ++i) {
    g.mesh_vertices.push_back(fromBullet(hull.getVertexPointer()[i]));
  }
  const unsigned* index = hull.getIndexPointer();
  for (int t = 0; t < hull.numTriangles(); ++t) {
    g.mesh_triangles.push_back(Eigen::Vector3i(static_cast<int>(index[3 * t]),
                                               static_cast<int>(index[3 * t + 1]),
                                               static_cast<int>(index[3 * t + 2])));
  }
  return true;
}

void addShape(const btCollisionShape* shape, const Transform& X_LS,
              std::vector<GeometryInstance>& out) {
  GeometryInstance instance;
  instance.X_LG = X_LS;
  Geometry& g = instance.geometry;
  switch (shape->getShapeType()) {
    case BOX_SHAPE_PROXYTYPE:
      g.type = Geometry::Type::Box;
      g.box_size =
          2.0 * fromBullet(static_cast<const btBoxShape*>(shape)->getHalfExtentsWithMargin());
      break;
    case SPHERE_SHAPE_PROXYTYPE:
      g.type = Geometry::Type::Sphere;
      g.radius = static_cast<const btSphereShape*>(shape)->getRadius();
      break;
    case CAPSULE_SHAPE_PROXYTYPE: {
      const auto* capsule = static_cast<const btCapsuleShape*>(shape);
      g.type = Geometry::Type::Capsule;
      g.radius = capsule->getRadius();
      g.length = 2.0 * capsule->getHalfHeight();
      instance.X_LG = X_LS * Transform(zOnto(capsule->getUpAxis()), Vector3::Zero());
      break;
    }
    case CYLINDER_SHAPE_PROXYTYPE: {
      const auto* cylinder = static_cast<const btCylinderShape*>(shape);
      const int up = cylinder->getUpAxis();
      const Vector3 half = fromBullet(cylinder->getHalfExtentsWithMargin());
      g.type = Geometry::Type::Cylinder;
      g.radius = half((up + 1) % 3);
      g.length = 2.0 * half(up);
      instance.X_LG = X_LS * Transform(zOnto(up), Vector3::Zero());
      break;
    }
    case CONVEX_HULL_SHAPE_PROXYTYPE:
      if (!hullMesh(static_cast<const btConvexHullShape*>(shape), g)) return;
      break;
    case COMPOUND_SHAPE_PROXYTYPE: {
      const auto* compound = static_cast<const btCompoundShape*>(shape);
      for (int i = 0; i < compound->getNumChildShapes(); ++i) {
        addShape(compound->getChildShape(i), X_LS * fromBullet(compound->getChildTransform(i)),
                 out);
      }
      return;
    }
    default:
      return;
  }
  out.push_back(instance);
}

}  // namespace

std::vector<GeometryInstance> shapesOfBody(const btCollisionShape* shape, const Transform& X_LB) {
  std::vector<GeometryInstance> out;
  if (shape != nullptr) addShape(shape, X_LB, out);
  return out;
}

}  // namespace detail
GCBRIDGE_BULLET_NAMESPACE_END
