#pragma once
// Private to gcbridge::controllers: the sides of a friction pyramid inscribed in a Coulomb cone.

#include <cmath>

#include "gcbridge/dynamics/spatial.hpp"

namespace gcbridge::detail {

/// Side k of the pyramid of `sides` sides (4 or 8) inscribed in the cone |f_t| <= mu f_n about
/// the unit normal n: a force f is inside that side when side.dot(f) >= 0. The sides face the
/// tangent directions at angles 2 pi k / sides from a tangent fixed by n; each lies at the cone's
/// inscribed distance mu cos(pi / sides).
inline Vector3 pyramidSide(const Vector3& n, double mu, int sides, int k) {
  // cos and sin of the eighths of a turn, exactly where they are 0 or 1; cos(pi / 4), cos(pi / 8).
  constexpr double r = 0.70710678118654752;
  constexpr double kCos[8] = {1.0, r, 0.0, -r, -1.0, -r, 0.0, r};
  constexpr double kSin[8] = {0.0, r, 1.0, r, 0.0, -r, -1.0, -r};
  constexpr double kCosHalfSide8 = 0.92387953251128676;
  const int eighth = (8 / sides) * k;
  const Vector3 t1 =
      (std::abs(n.x()) < 0.9 ? Vector3::UnitX() : Vector3::UnitY()).cross(n).normalized();
  const Vector3 t2 = n.cross(t1);
  const Vector3 t = kCos[eighth] * t1 + kSin[eighth] * t2;
  return mu * (sides == 8 ? kCosHalfSide8 : r) * n - t;
}

}  // namespace gcbridge::detail
