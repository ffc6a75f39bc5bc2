#pragma once
/// @file
/// URDF reading on tinyxml2. Supported: joints revolute, continuous, prismatic, fixed, floating
/// (-> Free) and Bullet's spherical (-> Ball, with its swing/twist `<limit>`); `<limit>` (lower,
/// upper, effort, velocity), `<dynamics>` (damping, friction); `<inertial>` with an origin whose
/// rpy rotates the inertia into the link frame; `<visual>`/`<collision>` with box, sphere,
/// cylinder, Bullet's capsule and mesh (filename + scale; `package://` and relative paths resolved
/// against the file's folder and ROS_PACKAGE_PATH); named and inline materials; a `world` link
/// declared or not; unknown tags (skipped); a trailing NUL byte after `</robot>`.

#include <string>
#include <vector>

#include "gcbridge/dynamics/description.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

/// Options of the URDF reader.
struct UrdfOptions {
  /// Folders searched for `package://NAME/...`: DIR/NAME/... is tried for each, then the
  /// ROS_PACKAGE_PATH entries, then the URDF's own folder and its ancestors.
  std::vector<std::string> package_dirs;
};

/// Reads a URDF file.
/// @throws UrdfError ("FILE:LINE: <joint> 'elbow': what is wrong") for an unreadable file,
///   malformed XML, a missing or malformed attribute, NaN/Inf numbers, an unknown joint type or
///   geometry. Topology (loops, parents, names) and inertia checks happen in buildModel().
RobotDescription parseUrdfFile(const std::string& path, const UrdfOptions& options = {});

/// Reads URDF text. `base_dir` resolves relative mesh paths; `label` names it in errors.
RobotDescription parseUrdfString(const std::string& xml, const std::string& base_dir = ".",
                                 const std::string& label = "<string>",
                                 const UrdfOptions& options = {});

/// parseUrdfFile then buildModel. @throws UrdfError / ModelError.
Model loadUrdf(const std::string& path, const ModelOptions& model_options = {},
               const UrdfOptions& urdf_options = {});

}  // namespace gcbridge
