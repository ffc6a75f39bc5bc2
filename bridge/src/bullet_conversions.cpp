#include "bullet_conversions.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>

#include "gcbridge/dynamics/errors.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace detail {

namespace {
/// Negative principal moments down to -this times the largest moment are round-off and become 0.
constexpr double kNegativeMomentTolerance = 1e-12;
}  // namespace

void principalFrame(const Model& model, int k, const char* function, Transform& X_LB,
                    Quaternion& Q_LB, Vector3& I_Bcm_B) {
  const Inertia& inertia = model.inertias[k];
  const Matrix3& I_L = inertia.inertiaAboutCom();
  const std::string where = std::string(function) + ": link " + quoted(model.link_names[k]);
  if (!std::isfinite(inertia.mass()) || inertia.mass() < 0.0) {
    throw InvalidArgumentError(where + " has mass " + std::to_string(inertia.mass()) +
                               "; Bullet needs a finite mass >= 0");
  }
  if (!inertia.com().allFinite() || !I_L.allFinite()) {
    throw InvalidArgumentError(where + " has a non-finite centre of mass or inertia");
  }
  // Exactly diagonal in L (URDF inertias usually are): B keeps L's axes, with no round-off.
  const Matrix3 off = I_L - Matrix3(I_L.diagonal().asDiagonal());
  Matrix3 R_LB = Matrix3::Identity();
  if (!off.isZero(0.0)) {
    // Otherwise: eigenvectors of the symmetric part, made a proper rotation.
    const Eigen::SelfAdjointEigenSolver<Matrix3> eigen(0.5 * (I_L + I_L.transpose()));
    R_LB = eigen.eigenvectors();
    if (R_LB.determinant() < 0.0) R_LB.col(2) = -R_LB.col(2);
  }
  // The quaternion defines the rotation, so that poses and ball-joint quaternions agree exactly.
  Q_LB = Quaternion(R_LB).normalized();
  R_LB = Q_LB.toRotationMatrix();
  X_LB = Transform(R_LB, inertia.com());
  I_Bcm_B = (R_LB.transpose() * I_L * R_LB).diagonal();
  const double scale = I_Bcm_B.cwiseAbs().maxCoeff();
  for (int i = 0; i < 3; ++i) {
    if (I_Bcm_B(i) < -kNegativeMomentTolerance * scale) {
      throw InvalidArgumentError(where + " has a negative principal moment of inertia " +
                                 std::to_string(I_Bcm_B(i)));
    }
    if (I_Bcm_B(i) < 0.0) I_Bcm_B(i) = 0.0;
  }
}

}  // namespace detail
GCBRIDGE_BULLET_NAMESPACE_END
