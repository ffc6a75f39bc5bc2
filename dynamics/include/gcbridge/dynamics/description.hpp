#pragma once
/// @file
/// RobotDescription: a robot as its file describes it (every link, every joint including the fixed
/// ones, geometry, limits), before it becomes a dynamics Model (model.hpp). Plain data: the URDF
/// reader and ModelBuilder fill it, buildModel() validates it and turns it into a Model, and the
/// Bullet builders read its geometry.

#include <optional>
#include <string>
#include <vector>

#include "gcbridge/dynamics/joint.hpp"
#include "gcbridge/dynamics/spatial.hpp"

namespace gcbridge {

/// A visual or collision shape, in the frame G given by GeometryInstance::X_LG.
struct Geometry {
  enum class Type { Box, Sphere, Cylinder, Capsule, Mesh };
  Type type = Type::Box;
  Vector3 box_size = Vector3::Zero();  ///< Box: full edge lengths along x, y, z [m]
  double radius = 0.0;                 ///< Sphere, Cylinder, Capsule [m]
  double length =
      0.0;  ///< Cylinder, Capsule: length along z (capsule: between the cap centres) [m]
  std::string mesh_uri;   ///< Mesh: the filename as written in the file
  std::string mesh_path;  ///< Mesh: resolved path on disk ("" if it could not be resolved)
  Vector3 mesh_scale = Vector3::Ones();  ///< Mesh: scale per axis
  /// Mesh held in memory instead of a file (a Bullet body's convex hull, read from its world):
  /// vertices in the shape frame [m], scale applied, and triangles as vertex indices; empty for
  /// a mesh file.
  std::vector<Vector3> mesh_vertices;
  std::vector<Eigen::Vector3i> mesh_triangles;
};

/// "box", "sphere", "cylinder", "capsule", "mesh".
const char* toString(Geometry::Type type);

/// A placed shape of a link.
struct GeometryInstance {
  std::string name;  ///< optional name attribute ("" if none)
  Transform X_LG;    ///< the shape frame G in the link frame L
  Geometry geometry;
  std::optional<Eigen::Vector4d> rgba;  ///< visual colour if given (or from a named material)
};

/// One link of the description. The inertia is given about the COM in the axes of the link frame L
/// (a URDF inertial origin with rpy is rotated into L when read).
struct LinkDescription {
  std::string name;
  double mass = 0.0;                    ///< [kg]
  Vector3 p_LoLcm_L = Vector3::Zero();  ///< centre of mass in L [m]
  Matrix3 I_Lcm_L = Matrix3::Zero();    ///< rotational inertia about the COM, L axes [kg m^2]
  std::vector<GeometryInstance> visuals;
  std::vector<GeometryInstance> collisions;
  int source_line = 0;  ///< line in the source file (0 if not from a file)

  /// The spatial inertia in L.
  Inertia inertia() const { return Inertia(mass, p_LoLcm_L, I_Lcm_L); }
};

/// Kinds of joint a description can hold. Continuous is Revolute without position limits;
/// URDF's `floating` is Free and Bullet's `spherical` is Ball.
struct JointDescription {
  std::string name;
  JointType type = JointType::Fixed;
  std::string parent;  ///< parent link name ("world" or "" for the world)
  std::string child;   ///< child link name
  Transform X_PJ;      ///< joint frame J in the parent link frame (the child frame at q = 0)
  Vector3 axis = Vector3::UnitX();  ///< joint axis in J (revolute, prismatic); URDF default x
  JointLimits limits;
  /// Ball joints with Bullet's swing/twist `<limit lower upper twist>`: swing limits [rad] about
  /// the two axes orthogonal to `axis`, twist limit [rad] about `axis` (infinite: none).
  double swing1 = std::numeric_limits<double>::infinity();
  double swing2 = std::numeric_limits<double>::infinity();
  double twist = std::numeric_limits<double>::infinity();
  int source_line = 0;
};

/// A robot as described in its file. `world` is never a link here: joints whose parent is
/// "world" (declared as a link or not) attach their child to the world.
struct RobotDescription {
  std::string name;
  std::string source;  ///< file path it was read from, or a label ("<string>", "<builder>")
  std::vector<LinkDescription> links;
  std::vector<JointDescription> joints;
  std::vector<std::string> warnings;  ///< non-fatal findings (e.g. inertia triangle inequality)

  /// Index of the link named `name`, or -1.
  int findLink(const std::string& name) const;
  /// Index of the joint named `name`, or -1.
  int findJoint(const std::string& name) const;
};

/// The description of the same robot `scale` times as large, of the same materials (pybullet's
/// globalScaling): every length times s (joint origins, centres of mass, shapes, mesh scales and
/// meshes held in memory, prismatic joints' position limits and velocity limits), masses times s^3
/// and rotational inertias times s^5. Angles, angular velocity limits, efforts, damping and
/// friction are kept as written.
/// @throws InvalidArgumentError naming `scale` unless it is finite and > 0.
RobotDescription scaleDescription(const RobotDescription& description, double scale);

}  // namespace gcbridge
