#include "link_shapes.hpp"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btCylinderShape.h>
#include <BulletCollision/CollisionShapes/btShapeHull.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include "bullet_conversions.hpp"
#include "gcbridge/dynamics/errors.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace detail {
namespace {

/// Collision margin of mesh hulls [m] (the hull is reduced by btShapeHull without a margin).
constexpr double kMeshMargin = 0.001;

/// A mesh's vertices as Bullet points: the in-memory mesh's (a hull read from a world), or the
/// file's, scaled. @throws InvalidArgumentError naming the link and the file.
void addMeshPoints(const Model& model, int k, const Geometry& geometry, const char* caller,
                   btConvexHullShape& points) {
  if (!geometry.mesh_vertices.empty()) {
    for (const Vector3& p : geometry.mesh_vertices) points.addPoint(toBullet(p), false);
    return;
  }
  const std::string where = std::string(caller) + ": link " + quoted(model.link_names[k]) +
                            ": collision mesh " + quoted(geometry.mesh_uri);
  if (geometry.mesh_path.empty()) throw InvalidArgumentError(where + " was not found on disk");
  const aiScene* scene = aiImportFile(
      geometry.mesh_path.c_str(),
      aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_PreTransformVertices);
  if (scene == nullptr) {
    throw InvalidArgumentError(where + " (" + geometry.mesh_path +
                               ") cannot be read: " + aiGetErrorString());
  }
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* mesh = scene->mMeshes[m];
    for (unsigned i = 0; i < mesh->mNumVertices; ++i) {
      const aiVector3D& p = mesh->mVertices[i];
      points.addPoint(btVector3(p.x * geometry.mesh_scale.x(), p.y * geometry.mesh_scale.y(),
                                p.z * geometry.mesh_scale.z()),
                      false);
    }
  }
  aiReleaseImport(scene);
}

/// The convex hull of a mesh's vertices, reduced by btShapeHull.
std::unique_ptr<btConvexHullShape> loadMeshHull(const Model& model, int k, const Geometry& geometry,
                                                const char* caller) {
  btConvexHullShape points;
  addMeshPoints(model, k, geometry, caller, points);
  if (points.getNumPoints() < 4) {
    throw InvalidArgumentError(std::string(caller) + ": link " + quoted(model.link_names[k]) +
                               ": collision mesh " + quoted(geometry.mesh_uri) +
                               " has fewer than 4 vertices");
  }
  points.recalcLocalAabb();
  points.setMargin(0);
  btShapeHull hull(&points);
  hull.buildHull(0);
  auto shape = std::make_unique<btConvexHullShape>(
      reinterpret_cast<const btScalar*>(hull.getVertexPointer()), hull.numVertices());
  shape->setMargin(kMeshMargin);
  return shape;
}

/// One primitive or mesh collision shape.
std::unique_ptr<btCollisionShape> makeShape(const Model& model, int k, const Geometry& geometry,
                                            const char* caller) {
  switch (geometry.type) {
    case Geometry::Type::Box:
      return std::make_unique<btBoxShape>(toBullet(0.5 * geometry.box_size));
    case Geometry::Type::Sphere:
      return std::make_unique<btSphereShape>(geometry.radius);
    case Geometry::Type::Cylinder:
      return std::make_unique<btCylinderShapeZ>(
          btVector3(geometry.radius, geometry.radius, 0.5 * geometry.length));
    case Geometry::Type::Capsule:
      return std::make_unique<btCapsuleShapeZ>(geometry.radius, geometry.length);
    case Geometry::Type::Mesh:
      return loadMeshHull(model, k, geometry, caller);
  }
  return nullptr;
}

/// The shape of one geometry, owned by `store`; a mesh's hull made once per file and scale.
btCollisionShape* geometryShape(const Model& model, int k, const Geometry& geometry,
                                const char* caller, LinkShapeStore& store) {
  if (geometry.type != Geometry::Type::Mesh) {
    store.shapes.push_back(makeShape(model, k, geometry, caller));
    return store.shapes.back().get();
  }
  const std::string key = geometry.mesh_path + "|" + std::to_string(geometry.mesh_scale.x()) + "," +
                          std::to_string(geometry.mesh_scale.y()) + "," +
                          std::to_string(geometry.mesh_scale.z());
  auto found = store.meshes.find(key);
  if (found != store.meshes.end()) return found->second;
  store.shapes.push_back(makeShape(model, k, geometry, caller));
  store.meshes[key] = store.shapes.back().get();
  return store.shapes.back().get();
}

}  // namespace

btCompoundShape* makeLinkShape(const Model& model, int k, const Transform& X_LB, const char* caller,
                               LinkShapeStore& store) {
  auto compound = std::make_unique<btCompoundShape>();
  if (model.description) {
    for (std::size_t f = 0; f < model.frames.size(); ++f) {
      const Frame& frame = model.frames[f];
      if (frame.link != k) continue;
      for (const GeometryInstance& instance : model.description->links[f].collisions) {
        const Transform X_BG = X_LB.inverse() * frame.X_BF * instance.X_LG;
        compound->addChildShape(toBulletTransform(X_BG),
                                geometryShape(model, k, instance.geometry, caller, store));
      }
    }
  }
  btCompoundShape* shape = compound.get();
  store.shapes.push_back(std::move(compound));
  return shape;
}

btCompoundShape* makeEmptyShape(LinkShapeStore& store) {
  auto compound = std::make_unique<btCompoundShape>();
  btCompoundShape* shape = compound.get();
  store.shapes.push_back(std::move(compound));
  return shape;
}

}  // namespace detail
GCBRIDGE_BULLET_NAMESPACE_END
