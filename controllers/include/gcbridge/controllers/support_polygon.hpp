#pragma once
/// @file
/// The support polygon of a body standing on contacts: the convex hull of the contact points
/// seen from above (projected along gravity onto the horizontal plane through the world origin).
/// A balance controller keeps the centre of mass over it.

#include <Eigen/Core>
#include <vector>

#include "gcbridge/dynamics/spatial.hpp"

namespace gcbridge {

/// A convex polygon in the horizontal plane (file comment). Fitting allocates only while the
/// number of points grows past what it held before.
class SupportPolygon {
 public:
  /// The hull of `points_W` seen along `up` (a unit vector against gravity, world axes). No
  /// points give an empty polygon; one point or points on a line give a point or a segment.
  /// @throws InvalidArgumentError for an up that is not a unit vector or a point not finite.
  void fit(const std::vector<Vector3>& points_W, const Vector3& up);

  bool empty() const { return hull_.empty(); }
  /// The hull's corners, counter-clockwise seen from above, in the plane's coordinates (u, w).
  const std::vector<Eigen::Vector2d>& vertices() const { return hull_; }
  /// The same corners in world coordinates, on the plane through the world origin.
  std::vector<Vector3> verticesInWorld() const;
  /// How far p_W is outside the polygon seen from above [m]: 0 inside or on the edge.
  /// @pre !empty().
  double distanceOutside(const Vector3& p_W) const;
  /// The point of the polygon nearest to p_W seen from above, at p_W's height: p_W itself when it
  /// is over the polygon. @pre !empty().
  Vector3 nearest(const Vector3& p_W) const;

 private:
  Eigen::Vector2d project(const Vector3& p_W) const { return {u_.dot(p_W), w_.dot(p_W)}; }
  /// The point of the polygon nearest to x (x itself inside).
  Eigen::Vector2d nearestInPlane(const Eigen::Vector2d& x) const;

  Vector3 up_ = Vector3::UnitZ(), u_ = Vector3::UnitX(), w_ = Vector3::UnitY();
  std::vector<Eigen::Vector2d> points_;
  std::vector<Eigen::Vector2d> hull_;
};

}  // namespace gcbridge
