#include <cmath>
#include <string>

#include "gcbridge/dynamics/description.hpp"
#include "gcbridge/dynamics/errors.hpp"

namespace gcbridge {
namespace {

/// A shape and its placement `s` times as large.
void scaleGeometry(GeometryInstance& instance, double s) {
  instance.X_LG.translation() *= s;
  Geometry& g = instance.geometry;
  g.box_size *= s;
  g.radius *= s;
  g.length *= s;
  g.mesh_scale *= s;
  for (Vector3& vertex : g.mesh_vertices) vertex *= s;
}

}  // namespace

RobotDescription scaleDescription(const RobotDescription& description, double scale) {
  if (!(scale > 0.0) || !std::isfinite(scale)) {
    throw InvalidArgumentError("scaleDescription: scale must be finite and > 0, got " +
                               std::to_string(scale));
  }
  const double s = scale;
  RobotDescription scaled = description;
  // Lengths s, masses s^3 (the same density), inertias s^5 (mass times a length squared).
  for (LinkDescription& link : scaled.links) {
    link.mass *= s * s * s;
    link.p_LoLcm_L *= s;
    link.I_Lcm_L *= s * s * s * s * s;
    for (GeometryInstance& visual : link.visuals) scaleGeometry(visual, s);
    for (GeometryInstance& collision : link.collisions) scaleGeometry(collision, s);
  }
  for (JointDescription& joint : scaled.joints) {
    joint.X_PJ.translation() *= s;
    if (joint.type == JointType::Prismatic) {
      joint.limits.lower *= s;
      joint.limits.upper *= s;
      joint.limits.velocity *= s;
    }
  }
  return scaled;
}

}  // namespace gcbridge
