#pragma once
// Private to the bridge library: conversions between Eigen and Bullet types, and the COM
// principal frame every Bullet body of a model link uses.

#include <LinearMath/btQuaternion.h>
#include <LinearMath/btTransform.h>
#include <LinearMath/btVector3.h>

#include <string>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/dynamics/model.hpp"
#include "gcbridge/dynamics/spatial.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace detail {

inline btVector3 toBullet(const Vector3& v) { return btVector3(v.x(), v.y(), v.z()); }
inline btQuaternion toBullet(const Quaternion& Q) {
  return btQuaternion(Q.x(), Q.y(), Q.z(), Q.w());
}
inline btMatrix3x3 toBulletMatrix(const Matrix3& R) {
  return btMatrix3x3(R(0, 0), R(0, 1), R(0, 2), R(1, 0), R(1, 1), R(1, 2), R(2, 0), R(2, 1),
                     R(2, 2));
}
inline btTransform toBulletTransform(const Transform& X) {
  return btTransform(toBulletMatrix(X.rotation()), toBullet(X.translation()));
}
inline Vector3 fromBullet(const btVector3& v) { return Vector3(v.x(), v.y(), v.z()); }
inline Quaternion fromBullet(const btQuaternion& Q) {
  return Quaternion(Q.w(), Q.x(), Q.y(), Q.z());
}
inline Matrix3 fromBullet(const btMatrix3x3& R) {
  Matrix3 M;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) M(i, j) = R[i][j];
  }
  return M;
}
inline Transform fromBullet(const btTransform& X) {
  return Transform(fromBullet(X.getBasis()), fromBullet(X.getOrigin()));
}

inline std::string quoted(const std::string& name) { return "'" + name + "'"; }

/// The COM principal frame B of link k: X_LB (translation the COM; rotation the identity when the
/// inertia is diagonal in L, else its eigenvectors as a proper rotation), R_LB as a quaternion,
/// and the principal moments about the COM.
/// @throws InvalidArgumentError (prefixed with `function`) for a negative or non-finite mass or
///   inertia, or a negative principal moment.
void principalFrame(const Model& model, int k, const char* function, Transform& X_LB,
                    Quaternion& Q_LB, Vector3& I_Bcm_B);

}  // namespace detail
GCBRIDGE_BULLET_NAMESPACE_END
