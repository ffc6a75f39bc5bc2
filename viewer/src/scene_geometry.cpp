#include "gcbridge/viewer/scene_geometry.hpp"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "gcbridge/dynamics/errors.hpp"

namespace gcbridge::viewer {
namespace {

/// A grid cell's integer coordinates, as one hashable key.
struct CellKey {
  std::int64_t x, y, z;
  bool operator==(const CellKey& o) const { return x == o.x && y == o.y && z == o.z; }
};
struct CellHash {
  std::size_t operator()(const CellKey& k) const {
    return static_cast<std::size_t>((k.x * 73856093) ^ (k.y * 19349663) ^ (k.z * 83492791));
  }
};

/// The mesh clustered on a grid of cells `cell` [m] wide (decimate).
TriangleMesh clustered(const TriangleMesh& mesh, const Vector3& lower, double cell) {
  std::unordered_map<CellKey, int, CellHash> cluster_of_cell;
  std::vector<int> cluster(mesh.vertices.size());
  std::vector<Vector3> sums;
  std::vector<int> counts;
  for (std::size_t i = 0; i < mesh.vertices.size(); ++i) {
    const Vector3 c = ((mesh.vertices[i] - lower) / cell).array().floor();
    const CellKey key{static_cast<std::int64_t>(c.x()), static_cast<std::int64_t>(c.y()),
                      static_cast<std::int64_t>(c.z())};
    const auto [at, added] = cluster_of_cell.emplace(key, static_cast<int>(sums.size()));
    if (added) {
      sums.push_back(Vector3::Zero());
      counts.push_back(0);
    }
    cluster[i] = at->second;
    sums[at->second] += mesh.vertices[i];
    ++counts[at->second];
  }
  TriangleMesh out;
  for (std::size_t c = 0; c < sums.size(); ++c) out.vertices.push_back(sums[c] / counts[c]);
  // Triangles whose corners fall in three clusters, each kept once.
  std::set<std::array<int, 3>> seen;
  for (const Eigen::Vector3i& t : mesh.triangles) {
    const Eigen::Vector3i u(cluster[t(0)], cluster[t(1)], cluster[t(2)]);
    if (u(0) == u(1) || u(1) == u(2) || u(0) == u(2)) continue;
    std::array<int, 3> sorted = {u(0), u(1), u(2)};
    std::sort(sorted.begin(), sorted.end());
    if (seen.insert(sorted).second) out.triangles.push_back(u);
  }
  return out;
}

/// The shape of one geometry instance; meshes by index into `meshes`, read once per file and
/// scale (`read` caches them), or a warning and nothing when the file is missing or unreadable.
bool makeShape(const Model& model, int k, const GeometryInstance& instance, const Transform& X_LF,
               std::map<std::pair<std::string, std::tuple<double, double, double>>, int>& read,
               SceneGeometry& scene, Shape& shape) {
  const Geometry& g = instance.geometry;
  shape.type = g.type;
  shape.X_LS = X_LF * instance.X_LG;
  if (instance.rgba) shape.rgba = *instance.rgba;
  switch (g.type) {
    case Geometry::Type::Box:
      shape.size = g.box_size;
      return true;
    case Geometry::Type::Sphere:
      shape.size = Vector3::Constant(g.radius);
      return true;
    case Geometry::Type::Cylinder:
    case Geometry::Type::Capsule:
      shape.size = Vector3(g.radius, g.radius, g.length);
      return true;
    case Geometry::Type::Mesh:
      break;
  }
  // A mesh held in memory (a Bullet body's hull) as it is.
  if (!g.mesh_triangles.empty()) {
    scene.meshes.push_back(TriangleMesh{g.mesh_vertices, g.mesh_triangles});
    shape.mesh = static_cast<int>(scene.meshes.size()) - 1;
    return true;
  }
  const std::string where = "link '" + model.link_names[k] + "': mesh '" + g.mesh_uri + "'";
  if (g.mesh_path.empty()) {
    scene.warnings.push_back(where + " was not found on disk; left out");
    return false;
  }
  const auto key = std::make_pair(
      g.mesh_path, std::make_tuple(g.mesh_scale.x(), g.mesh_scale.y(), g.mesh_scale.z()));
  auto found = read.find(key);
  if (found == read.end()) {
    try {
      scene.meshes.push_back(readMeshFile(g.mesh_path, g.mesh_scale));
    } catch (const InvalidArgumentError& e) {
      scene.warnings.push_back(where + ": " + e.what() + "; left out");
      return false;
    }
    found = read.emplace(key, static_cast<int>(scene.meshes.size()) - 1).first;
  }
  shape.mesh = found->second;
  return true;
}

}  // namespace

TriangleMesh readMeshFile(const std::string& path, const Vector3& scale) {
  const aiScene* scene =
      aiImportFile(path.c_str(), aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                                     aiProcess_PreTransformVertices);
  if (scene == nullptr) {
    throw InvalidArgumentError("mesh file '" + path + "' cannot be read: " + aiGetErrorString());
  }
  TriangleMesh mesh;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* part = scene->mMeshes[m];
    const int first = static_cast<int>(mesh.vertices.size());
    for (unsigned i = 0; i < part->mNumVertices; ++i) {
      const aiVector3D& p = part->mVertices[i];
      mesh.vertices.push_back(Vector3(p.x, p.y, p.z).cwiseProduct(scale));
    }
    for (unsigned f = 0; f < part->mNumFaces; ++f) {
      const aiFace& face = part->mFaces[f];
      if (face.mNumIndices != 3) continue;  // points and lines
      mesh.triangles.push_back(Eigen::Vector3i(first + static_cast<int>(face.mIndices[0]),
                                               first + static_cast<int>(face.mIndices[1]),
                                               first + static_cast<int>(face.mIndices[2])));
    }
  }
  aiReleaseImport(scene);
  if (mesh.triangles.empty())
    throw InvalidArgumentError("mesh file '" + path + "' has no triangle");
  return mesh;
}

TriangleMesh decimate(const TriangleMesh& mesh, int max_triangles) {
  if (max_triangles < 4) {
    throw InvalidArgumentError("decimate: a budget of " + std::to_string(max_triangles) +
                               " triangles is below 4");
  }
  if (static_cast<int>(mesh.triangles.size()) <= max_triangles) return mesh;
  Vector3 lower = Vector3::Constant(INFINITY), upper = Vector3::Constant(-INFINITY);
  for (const Vector3& v : mesh.vertices) {
    lower = lower.cwiseMin(v);
    upper = upper.cwiseMax(v);
  }
  const double extent = std::max((upper - lower).maxCoeff(), 1e-12);
  // The cell grows by a quarter until the triangles fit; a single cell leaves none.
  for (double cell = extent / 1024.0;; cell *= 1.25) {
    TriangleMesh out = clustered(mesh, lower, cell);
    if (static_cast<int>(out.triangles.size()) <= max_triangles) return out;
  }
}

/// A cylinder of radius r from `from` to `to` (link frame), or none when they coincide.
void addStick(const Vector3& from, const Vector3& to, double r, std::vector<Shape>& shapes) {
  const Vector3 d = to - from;
  if (d.norm() < 1e-9) return;
  Shape stick;
  stick.type = Geometry::Type::Cylinder;
  stick.size = Vector3(r, r, d.norm());
  stick.X_LS = Transform(Quaternion::FromTwoVectors(Vector3::UnitZ(), d).toRotationMatrix(),
                         from + 0.5 * d);
  shapes.push_back(stick);
}

/// Links without any shape (visual or collision) as sticks: a sphere at the centre of mass, a
/// cylinder to it from the link origin and one to each child's joint; radius 4 % of the model's
/// longest joint offset (at least 5 cm), spheres twice that.
void addSticks(const Model& model, SceneGeometry& scene) {
  double longest = 0.05;
  for (const Joint& joint : model.joints) {
    longest = std::max(longest, joint.X_PJ.translation().norm());
  }
  const double r = 0.04 * longest;
  std::vector<bool> shapeless(model.numLinks(), true);
  for (std::size_t i = 0; i < model.frames.size(); ++i) {
    const LinkDescription& link = model.description->links[i];
    if (!link.visuals.empty() || !link.collisions.empty()) shapeless[model.frames[i].link] = false;
  }
  for (int k = 0; k < model.numLinks(); ++k) {
    if (!shapeless[k]) continue;
    const Vector3 com = model.inertias[k].com();
    Shape ball;
    ball.type = Geometry::Type::Sphere;
    ball.size = Vector3::Constant(2 * r);
    ball.X_LS = Transform(Matrix3::Identity(), com);
    scene.links[k].push_back(ball);
    addStick(Vector3::Zero(), com, r, scene.links[k]);
    for (int child : model.children[k]) {
      addStick(Vector3::Zero(), model.joints[child].X_PJ.translation(), r, scene.links[k]);
    }
  }
}

SceneGeometry exportGeometry(const Model& model, GeometrySet set, int triangle_budget) {
  SceneGeometry scene;
  scene.links.resize(model.numLinks());
  std::map<std::pair<std::string, std::tuple<double, double, double>>, int> read;
  for (std::size_t i = 0; i < model.frames.size(); ++i) {
    const Frame& frame = model.frames[i];
    const LinkDescription& link = model.description->links[i];
    const bool visuals = set == GeometrySet::Visual && !link.visuals.empty();
    const auto& instances = visuals ? link.visuals : link.collisions;
    for (const GeometryInstance& instance : instances) {
      Shape shape;
      if (makeShape(model, frame.link, instance, frame.X_BF, read, scene, shape)) {
        scene.links[frame.link].push_back(shape);
      }
    }
  }
  addSticks(model, scene);
  // The meshes' triangles together within the budget, each its share.
  std::size_t total = 0;
  for (const TriangleMesh& mesh : scene.meshes) total += mesh.triangles.size();
  if (total > static_cast<std::size_t>(triangle_budget)) {
    for (TriangleMesh& mesh : scene.meshes) {
      const double share = static_cast<double>(mesh.triangles.size()) / total;
      mesh = decimate(mesh, std::max(4, static_cast<int>(share * triangle_budget)));
    }
  }
  return scene;
}

}  // namespace gcbridge::viewer
