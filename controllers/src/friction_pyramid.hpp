#pragma once
// Private to gcbridge::controllers: the sides of a friction pyramid inscribed in a Coulomb cone.

#include <cmath>

#include "gcbridge/dynamics/spatial.hpp"

namespace gcbridge::detail {

/// Side k of the pyramid of `sides` sides inscribed in the cone |f_t| <= mu f_n about the unit
/// normal n: a force f is inside that side when side.dot(f) >= 0. The sides face the tangent
/// directions at angles 2 pi k / sides from a tangent fixed by n; each lies at the cone's
/// inscribed distance mu cos(pi / sides).
inline Vector3 pyramidSide(const Vector3& n, double mu, int sides, int k) {
  const Vector3 t1 =
      (std::abs(n.x()) < 0.9 ? Vector3::UnitX() : Vector3::UnitY()).cross(n).normalized();
  const Vector3 t2 = n.cross(t1);
  const double angle = 2.0 * M_PI * k / sides;
  const Vector3 t = std::cos(angle) * t1 + std::sin(angle) * t2;
  return mu * std::cos(M_PI / sides) * n - t;
}

}  // namespace gcbridge::detail
