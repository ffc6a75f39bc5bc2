#pragma once
// Private to gcbridge::dynamics: the planar joint (kernel.hpp).
//
// q = (x, y, theta): C translates by x e1 + y e2 in the plane of J normal to `axis` [m], then
// turns about `axis` by theta [rad], nq = 3; v = dq/dt, nv = 3, a vector space. (e1, e2, axis) are
// the columns of planarJointFrame(axis) (joint.hpp): the rotation of least angle taking z to the
// axis, so for the axis z they are J's x and y.
// X_JC = (R, x e1 + y e2) with R = Rot(axis, theta). In C the joint's motion is omega = axis
// theta_dot and v_Co = R^T (x_dot e1 + y_dot e2), so
//   S = [0 0 axis; R^T e1  R^T e2  0],  R^T e1 = c e1 - s e2,  R^T e2 = s e1 + c e2
// (c, s the cosine and sine of theta) depends on q, and dS/dt = -theta_dot [axis] S on the
// linear rows. J-hat = [0 0 axis; e1 e2 0] in J.

#include <cmath>

#include "kernel.hpp"

namespace gcbridge::joints {

struct Planar : Kernel<Planar, 3, 3> {
  static constexpr std::array<JointCoordinate, 3> q_coordinates{
      {{"x", "m"}, {"y", "m"}, {"theta", "rad"}}};
  static constexpr std::array<JointCoordinate, 3> v_coordinates{
      {{"d x", "m/s"}, {"d y", "m/s"}, {"d theta", "rad/s"}}};
  static constexpr bool uses_axis = true;
  static constexpr bool subspace_depends_on_q = true;

  /// (e1, e2, axis) as the columns of a rotation (see the file comment). Near -z, where the least
  /// rotation is not unique (it turns by pi about any horizontal axis), e1 is x made orthogonal
  /// to the axis: the half turn about x for the axis -z itself.
  static Matrix3 frame(const Vector3& axis) {
    const double d = 1.0 + axis.z();
    // e1 = Rot x for Rot = 1 + [k] + [k]^2 / d, k = z x axis, made orthogonal to the axis again
    // against the round-off of 1 / d.
    const double x = axis.x(), y = axis.y();
    Vector3 e1 = d < 1e-6 ? Vector3(Vector3::UnitX()) : Vector3(1.0 - x * x / d, -x * y / d, -x);
    e1 = (e1 - e1.dot(axis) * axis).normalized();
    Matrix3 R;
    R.col(0) = e1;
    R.col(1) = axis.cross(e1);
    R.col(2) = axis;
    return R;
  }

  /// x and y uniform in [-1, 1] m, theta in [-pi, pi].
  static void random(const Joint&, Random& gen, double* q) {
    constexpr double kPi = 3.14159265358979323846;
    q[0] = uniform(gen, -1.0, 1.0);
    q[1] = uniform(gen, -1.0, 1.0);
    q[2] = uniform(gen, -kPi, kPi);
  }

  static Transform transform(const Joint& joint, const double* q) {
    const Matrix3 E = frame(joint.axis);
    return Transform(rotationAboutAxis(joint.axis, q[2]), q[0] * E.col(0) + q[1] * E.col(1));
  }
  static void subspace(const Joint& joint, const double* q, SubspaceMap<3> S) {
    const Matrix3 E = frame(joint.axis);
    const double c = std::cos(q[2]), s = std::sin(q[2]);
    S.setZero();
    S.col(0).tail<3>() = c * E.col(0) - s * E.col(1);
    S.col(1).tail<3>() = s * E.col(0) + c * E.col(1);
    S.col(2).head<3>() = joint.axis;
  }
  static Eigen::Matrix<double, 6, 3> subspaceDerivative(const Joint& joint, const double* q,
                                                        const double* v) {
    const Matrix3 E = frame(joint.axis);
    const double c = std::cos(q[2]), s = std::sin(q[2]), theta_dot = v[2];
    Eigen::Matrix<double, 6, 3> dS = Eigen::Matrix<double, 6, 3>::Zero();
    dS.col(0).tail<3>() = -theta_dot * (s * E.col(0) + c * E.col(1));
    dS.col(1).tail<3>() = theta_dot * (c * E.col(0) - s * E.col(1));
    return dS;
  }
  static Motion bias(const Joint& joint, const double* q, const double* v) {
    return Motion(Vector6(subspaceDerivative(joint, q, v) * Slice<3>(v)));
  }
  static JointMatrix localJacobian(const Joint& joint, const double*) {
    const Matrix3 E = frame(joint.axis);
    JointMatrix J = JointMatrix::Zero(6, 3);
    J.col(0).tail<3>() = E.col(0);
    J.col(1).tail<3>() = E.col(1);
    J.col(2).head<3>() = joint.axis;
    return J;
  }
};

}  // namespace gcbridge::joints
