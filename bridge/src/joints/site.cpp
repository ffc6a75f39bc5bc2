#include "site.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace joints {

// Shepperd's method with Eigen's Quaternion(R) formulas and ties
// (Eigen sums the trace in another order, so the last bit may differ), in scalars throughout and
// each case spelled out: a quaternion or an array indexed by the case, written by scalars and
// read back as packets, stalls on store forwarding. Bullet keeps its bases orthonormal, so the
// result is unit to rounding and only a basis that drifted further costs a renormalization.
void writeQuaternion(const Matrix3& R, const double* previous, double* q) {
  // From the largest of |w|, |x|, |y|, |z|: the trace, or the largest diagonal entry (the first
  // of equal ones).
  double x, y, z, w;
  const double trace = R(0, 0) + R(1, 1) + R(2, 2);
  if (trace > 0.0) {
    const double t = std::sqrt(trace + 1.0);
    const double s = 0.5 / t;
    w = 0.5 * t;
    x = (R(2, 1) - R(1, 2)) * s;
    y = (R(0, 2) - R(2, 0)) * s;
    z = (R(1, 0) - R(0, 1)) * s;
  } else if (R(0, 0) >= R(1, 1) && R(0, 0) >= R(2, 2)) {
    const double t = std::sqrt(R(0, 0) - R(1, 1) - R(2, 2) + 1.0);
    const double s = 0.5 / t;
    x = 0.5 * t;
    w = (R(2, 1) - R(1, 2)) * s;
    y = (R(1, 0) + R(0, 1)) * s;
    z = (R(2, 0) + R(0, 2)) * s;
  } else if (R(1, 1) >= R(2, 2)) {
    const double t = std::sqrt(R(1, 1) - R(2, 2) - R(0, 0) + 1.0);
    const double s = 0.5 / t;
    y = 0.5 * t;
    w = (R(0, 2) - R(2, 0)) * s;
    z = (R(2, 1) + R(1, 2)) * s;
    x = (R(0, 1) + R(1, 0)) * s;
  } else {
    const double t = std::sqrt(R(2, 2) - R(0, 0) - R(1, 1) + 1.0);
    const double s = 0.5 / t;
    z = 0.5 * t;
    w = (R(1, 0) - R(0, 1)) * s;
    x = (R(0, 2) + R(2, 0)) * s;
    y = (R(1, 2) + R(2, 1)) * s;
  }
  const double norm2 = x * x + y * y + z * z + w * w;
  double scale = std::abs(norm2 - 1.0) > 1e-14 ? 1.0 / std::sqrt(norm2) : 1.0;
  const double side = previous != nullptr
                          ? x * previous[0] + y * previous[1] + z * previous[2] + w * previous[3]
                          : w;
  if (side < 0.0) scale = -scale;
  q[0] = scale * x;
  q[1] = scale * y;
  q[2] = scale * z;
  q[3] = scale * w;
}

}  // namespace joints
GCBRIDGE_BULLET_NAMESPACE_END
