#pragma once
// Private to gcbridge::controllers: the sides of a friction pyramid inscribed in a Coulomb cone.

#include <cmath>

#include "gcbridge/dynamics/spatial.hpp"

namespace gcbridge::detail {

/// The pyramid of `sides` sides (4 or 8) inscribed in the cone |f_t| <= mu f_n about the unit
/// normal n: a force f is inside side k when side(k).dot(f) >= 0. The sides face the tangent
/// directions at angles 2 pi k / sides from a tangent fixed by n; each lies at the cone's
/// inscribed distance mu cos(pi / sides).
class FrictionPyramid {
 public:
  FrictionPyramid(const Vector3& n, double mu, int sides)
      : n_(n),
        t1_((std::abs(n.x()) < 0.9 ? Vector3::UnitX() : Vector3::UnitY()).cross(n).normalized()),
        t2_(n.cross(t1_)),
        inscribed_(mu * (sides == 8 ? kCosEighthTurn : kHalfSqrt2)),
        step_(8 / sides) {}

  Vector3 side(int k) const {
    // cos and sin of the eighths of a turn, exactly where they are 0 or 1.
    constexpr double r = kHalfSqrt2;
    constexpr double kCos[8] = {1.0, r, 0.0, -r, -1.0, -r, 0.0, r};
    constexpr double kSin[8] = {0.0, r, 1.0, r, 0.0, -r, -1.0, -r};
    const int eighth = step_ * k;
    return inscribed_ * n_ - (kCos[eighth] * t1_ + kSin[eighth] * t2_);
  }

 private:
  static constexpr double kHalfSqrt2 = 0.70710678118654752;      ///< cos(pi / 4)
  static constexpr double kCosEighthTurn = 0.92387953251128676;  ///< cos(pi / 8)
  Vector3 n_, t1_, t2_;
  double inscribed_;
  int step_;
};

}  // namespace gcbridge::detail
