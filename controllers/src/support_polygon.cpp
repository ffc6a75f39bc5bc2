#include "gcbridge/controllers/support_polygon.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "gcbridge/dynamics/errors.hpp"

namespace gcbridge {
namespace {

/// z of (b - a) x (c - a): > 0 when a, b, c turn counter-clockwise.
double turn(const Eigen::Vector2d& a, const Eigen::Vector2d& b, const Eigen::Vector2d& c) {
  const Eigen::Vector2d ab = b - a, ac = c - a;
  return ab.x() * ac.y() - ab.y() * ac.x();
}

/// The point of the segment [a, b] nearest to x.
Eigen::Vector2d nearestOnSegment(const Eigen::Vector2d& a, const Eigen::Vector2d& b,
                                 const Eigen::Vector2d& x) {
  const Eigen::Vector2d ab = b - a;
  const double length2 = ab.squaredNorm();
  if (length2 == 0.0) return a;
  return a + std::clamp((x - a).dot(ab) / length2, 0.0, 1.0) * ab;
}

}  // namespace

void SupportPolygon::fit(const std::vector<Vector3>& points_W, const Vector3& up) {
  if (!up.allFinite() || std::abs(up.norm() - 1.0) > 1e-9) {
    throw InvalidArgumentError("SupportPolygon::fit: up must be a unit vector");
  }
  for (std::size_t i = 0; i < points_W.size(); ++i) {
    if (!points_W[i].allFinite()) {
      throw InvalidArgumentError("SupportPolygon::fit: point " + std::to_string(i) +
                                 " is not finite");
    }
  }
  // A right-handed basis (u, w, up) of the world.
  up_ = up;
  u_ = (std::abs(up.x()) < 0.9 ? Vector3::UnitX() : Vector3::UnitY()).cross(up).normalized();
  w_ = up.cross(u_);
  points_.clear();
  for (const Vector3& p : points_W) points_.push_back(project(p));
  std::sort(points_.begin(), points_.end(), [](const Eigen::Vector2d& a, const Eigen::Vector2d& b) {
    return a.x() < b.x() || (a.x() == b.x() && a.y() < b.y());
  });
  // Andrew's monotone chain: the lower hull left to right, then the upper one back.
  hull_.clear();
  const std::size_t n = points_.size();
  for (int pass = 0; pass < 2; ++pass) {
    const std::size_t start = hull_.size();
    for (std::size_t k = 0; k < n; ++k) {
      const Eigen::Vector2d& p = points_[pass == 0 ? k : n - 1 - k];
      while (hull_.size() >= start + 2 && turn(hull_[hull_.size() - 2], hull_.back(), p) <= 0.0) {
        hull_.pop_back();
      }
      hull_.push_back(p);
    }
    if (!hull_.empty()) hull_.pop_back();  // each chain's last point starts the other
  }
  // Coincident points leave one corner; a segment's two ends are kept once each.
  hull_.erase(std::unique(hull_.begin(), hull_.end()), hull_.end());
  if (hull_.size() > 1 && hull_.front() == hull_.back()) hull_.pop_back();
  if (hull_.empty() && n > 0) hull_.push_back(points_.front());
}

Eigen::Vector2d SupportPolygon::nearestInPlane(const Eigen::Vector2d& x) const {
  const std::size_t n = hull_.size();
  if (n == 1) return hull_.front();
  bool inside = n >= 3;
  Eigen::Vector2d best = hull_.front();
  double best_distance = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < n; ++i) {
    const Eigen::Vector2d& a = hull_[i];
    const Eigen::Vector2d& b = hull_[(i + 1) % n];
    if (turn(a, b, x) < 0.0) inside = false;
    const Eigen::Vector2d candidate = nearestOnSegment(a, b, x);
    const double distance = (candidate - x).norm();
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return inside ? x : best;
}

double SupportPolygon::distanceOutside(const Vector3& p_W) const {
  const Eigen::Vector2d x = project(p_W);
  return (nearestInPlane(x) - x).norm();
}

Vector3 SupportPolygon::nearest(const Vector3& p_W) const {
  const Eigen::Vector2d x = project(p_W);
  const Eigen::Vector2d d = nearestInPlane(x) - x;
  return p_W + d.x() * u_ + d.y() * w_;
}

std::vector<Vector3> SupportPolygon::verticesInWorld() const {
  std::vector<Vector3> corners;
  corners.reserve(hull_.size());
  for (const Eigen::Vector2d& v : hull_) corners.push_back(v.x() * u_ + v.y() * w_);
  return corners;
}

}  // namespace gcbridge
