#pragma once
/// @file
/// What a viewer draws of a model: each link's shapes (its URDF visuals or collisions: boxes,
/// spheres, cylinders, capsules and meshes), placed in the model link frame, with the meshes read
/// from their files and reduced to a triangle budget so that a page holding them stays small.

#include <Eigen/Core>
#include <string>
#include <vector>

#include "gcbridge/dynamics/model.hpp"

namespace gcbridge::viewer {

/// A triangle mesh in its own frame [m].
struct TriangleMesh {
  std::vector<Vector3> vertices;
  std::vector<Eigen::Vector3i> triangles;  ///< vertex indices, counter-clockwise seen from outside
};

/// Reads a mesh file (STL, OBJ, DAE, ... through assimp), every part in the file's frame, scaled.
/// @throws InvalidArgumentError naming the file when it cannot be read or holds no triangle.
TriangleMesh readMeshFile(const std::string& path, const Vector3& scale = Vector3::Ones());

/// The mesh with at most `max_triangles` triangles (>= 4): vertices clustered on a grid whose cell
/// grows until the triangles left (those whose corners fall in three different cells) fit. The
/// result's vertices are the clusters' means; its bounding box stays within one cell of the
/// original's. A mesh already within the budget is returned as it is.
/// @throws InvalidArgumentError for a budget below 4.
TriangleMesh decimate(const TriangleMesh& mesh, int max_triangles);

/// Which of a link's shapes a view draws. Visual draws a link that has no visual from its
/// collision shapes, as pybullet's renderer does (a model inferred from a Bullet world has only
/// those).
enum class GeometrySet { Visual, Collision };

/// One shape of a model link.
struct Shape {
  Geometry::Type type = Geometry::Type::Box;
  Transform X_LS;  ///< the shape frame S in the model link frame L
  /// Box: full edge lengths; sphere: (r, r, r); cylinder, capsule: (r, r, length along z) [m].
  Vector3 size = Vector3::Zero();
  int mesh = -1;  ///< Mesh: index in SceneGeometry::meshes (scaled already)
  Eigen::Vector4d rgba = Eigen::Vector4d(0.7, 0.7, 0.72, 1.0);  ///< the file's colour, or grey
};

/// Every link's shapes and the meshes they use.
struct SceneGeometry {
  std::vector<std::vector<Shape>> links;  ///< per model link
  std::vector<TriangleMesh> meshes;
  /// Shapes left out, named (a mesh file that cannot be found or read).
  std::vector<std::string> warnings;
};

/// The shapes of every model link (description links merged into a model link keep theirs, at
/// their frames), meshes read once per file and reduced together to `triangle_budget` triangles
/// (each mesh's share proportional to its size). A link without any shape, visual or collision
/// (a model built in code, a btMultiBody without colliders), is drawn as a stick figure: a
/// sphere at its centre of mass and cylinders from its origin to it and to its children's
/// joints, 4 % of the longest joint offset thick.
/// @throws InvalidArgumentError for a budget below 4 per mesh.
SceneGeometry exportGeometry(const Model& model, GeometrySet set, int triangle_budget = 100000);

}  // namespace gcbridge::viewer
