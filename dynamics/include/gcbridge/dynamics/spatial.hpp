#pragma once
/// @file
/// Spatial (6D) algebra in Plücker coordinates, after Featherstone (spatial_v2 notes).
///
/// Conventions, used everywhere in gcbridge:
/// - Every spatial vector stores its **angular part first, then its linear part**:
///   a Motion is (omega, v), a Force is (n, f) with n the moment about the frame origin.
/// - `Transform X_AB` is the pose of frame B in frame A (R_AB, p_AoBo_A). It maps B coordinates to
///   A coordinates: points p_A = R_AB p_B + p_AoBo_A. Applied to a Motion it uses the motion rule
///   m_A = X m_B; applied to a Force the force rule f_A = X^-T f_B, where X is the 6x6 Plücker
///   motion transform from B to A coordinates (Featherstone's table, with A and B swapped
///   relative to his "X from A to B"). Inertia transforms as I_A = X^-T I_B X^-1.
/// - `crm(v)` is the motion cross product matrix v x (.), `crf(v) = -crm(v)^T` the force one v x*.
///   `toMatrix()` builds the explicit 6x6 matrices for tests and the model checks of buildModel;
///   the algorithms never use them.

#include <Eigen/Core>
#include <cmath>
#include <Eigen/Geometry>

namespace gcbridge {

using Vector3 = Eigen::Vector3d;
using Vector6 = Eigen::Matrix<double, 6, 1>;
using Matrix3 = Eigen::Matrix3d;
using Matrix6 = Eigen::Matrix<double, 6, 6>;
using Quaternion = Eigen::Quaterniond;

/// The 3x3 skew-symmetric matrix [w] with [w] u = w x u.
inline Matrix3 skew(const Vector3& w) {
  Matrix3 S;
  S << 0.0, -w.z(), w.y(), w.z(), 0.0, -w.x(), -w.y(), w.x(), 0.0;
  return S;
}

class Force;

/// Entries i, i + 1 and i + 2 of a spatial vector, read one by one. The products the derivative
/// passes call on freshly copied vectors (InertiaMoments times a Motion, Transform::act on a
/// Motion, both Motion cross products) read their operands' halves this way, and so do the passes
/// themselves where they add up products: a spatial vector just copied into place by 16-byte
/// stores would stall a 16-byte read of its second half, whose entries 3 and 4 straddle two of
/// those stores; one just built half by half, a 16-byte read of entries 2 and 3 or 4 and 5.
inline Vector3 spatialHalf(const Vector6& v, int i) { return Vector3(v[i], v[i + 1], v[i + 2]); }

/// A spatial motion vector (velocity, acceleration, motion-subspace column): (angular, linear).
class Motion {
 public:
  Motion() : data_(Vector6::Zero()) {}
  explicit Motion(const Vector6& v) : data_(v) {}
  Motion(const Vector3& angular, const Vector3& linear) { data_ << angular, linear; }
  static Motion Zero() { return Motion(); }

  auto angular() { return data_.head<3>(); }
  auto angular() const { return data_.head<3>(); }
  auto linear() { return data_.tail<3>(); }
  auto linear() const { return data_.tail<3>(); }
  Vector6& vector() { return data_; }
  const Vector6& vector() const { return data_; }

  Motion operator+(const Motion& o) const { return Motion(Vector6(data_ + o.data_)); }
  Motion operator-(const Motion& o) const { return Motion(Vector6(data_ - o.data_)); }
  Motion operator-() const { return Motion(Vector6(-data_)); }
  Motion operator*(double s) const { return Motion(Vector6(data_ * s)); }
  Motion& operator+=(const Motion& o) {
    data_ += o.data_;
    return *this;
  }
  Motion& operator-=(const Motion& o) {
    data_ -= o.data_;
    return *this;
  }

  /// Motion cross product this x m (crm(this) * m).
  Motion cross(const Motion& m) const {
    const Vector3 w = spatialHalf(data_, 0), v = spatialHalf(data_, 3);
    const Vector3 m_w = spatialHalf(m.data_, 0), m_v = spatialHalf(m.data_, 3);
    return Motion(w.cross(m_w), w.cross(m_v) + v.cross(m_w));
  }
  /// Force cross product this x* f (crf(this) * f).
  inline Force cross(const Force& f) const;

 private:
  Vector6 data_;
};

/// A spatial force vector (wrench, momentum, impulse): (moment about the origin, force).
class Force {
 public:
  Force() : data_(Vector6::Zero()) {}
  explicit Force(const Vector6& f) : data_(f) {}
  Force(const Vector3& angular, const Vector3& linear) { data_ << angular, linear; }
  static Force Zero() { return Force(); }

  auto angular() { return data_.head<3>(); }
  auto angular() const { return data_.head<3>(); }
  auto linear() { return data_.tail<3>(); }
  auto linear() const { return data_.tail<3>(); }
  Vector6& vector() { return data_; }
  const Vector6& vector() const { return data_; }

  Force operator+(const Force& o) const { return Force(Vector6(data_ + o.data_)); }
  Force operator-(const Force& o) const { return Force(Vector6(data_ - o.data_)); }
  Force operator-() const { return Force(Vector6(-data_)); }
  Force operator*(double s) const { return Force(Vector6(data_ * s)); }
  Force& operator+=(const Force& o) {
    data_ += o.data_;
    return *this;
  }
  Force& operator-=(const Force& o) {
    data_ -= o.data_;
    return *this;
  }

  /// The power f . m, invariant under any change of coordinates.
  double dot(const Motion& m) const { return data_.dot(m.vector()); }

 private:
  Vector6 data_;
};

inline Force Motion::cross(const Force& f) const {
  const Vector3 w = spatialHalf(data_, 0), v = spatialHalf(data_, 3);
  const Vector3 n = spatialHalf(f.vector(), 0), f_lin = spatialHalf(f.vector(), 3);
  return Force(w.cross(n) + v.cross(f_lin), w.cross(f_lin));
}

/// 6x6 motion cross-product matrix crm(v): crm(v) m = v x m.
inline Matrix6 crm(const Motion& v) {
  Matrix6 X = Matrix6::Zero();
  X.topLeftCorner<3, 3>() = skew(v.angular());
  X.bottomLeftCorner<3, 3>() = skew(v.linear());
  X.bottomRightCorner<3, 3>() = skew(v.angular());
  return X;
}

/// 6x6 force cross-product matrix crf(v) = -crm(v)^T: crf(v) f = v x* f.
inline Matrix6 crf(const Motion& v) { return -crm(v).transpose(); }

/// A rigid transform X_AB: the pose of frame B in frame A (see the file comment for the rules).
class Transform {
 public:
  Transform() : R_(Matrix3::Identity()), p_(Vector3::Zero()) {}
  /// @param R_AB rotation of B in A (orthonormal, det +1). @param p_AoBo_A origin of B in A [m].
  Transform(const Matrix3& R_AB, const Vector3& p_AoBo_A) : R_(R_AB), p_(p_AoBo_A) {}
  static Transform Identity() { return Transform(); }

  const Matrix3& rotation() const { return R_; }
  Matrix3& rotation() { return R_; }
  const Vector3& translation() const { return p_; }
  Vector3& translation() { return p_; }

  /// Composition X_AC = X_AB * X_BC.
  Transform operator*(const Transform& X_BC) const {
    return Transform(R_ * X_BC.R_, p_ + R_ * X_BC.p_);
  }
  /// X_BA.
  Transform inverse() const { return Transform(R_.transpose(), -(R_.transpose() * p_)); }

  /// A point given in B, in A coordinates.
  Vector3 actPoint(const Vector3& p_B) const { return R_ * p_B + p_; }
  /// A point given in A, in B coordinates.
  Vector3 actInvPoint(const Vector3& p_A) const { return R_.transpose() * (p_A - p_); }

  /// Motion rule: m_A = X m_B.
  Motion act(const Motion& m_B) const {
    const Vector3 w = R_ * spatialHalf(m_B.vector(), 0);
    return Motion(w, R_ * spatialHalf(m_B.vector(), 3) + p_.cross(w));
  }
  /// Inverse motion rule: m_B = X^-1 m_A.
  Motion actInv(const Motion& m_A) const {
    return Motion(R_.transpose() * m_A.angular(),
                  R_.transpose() * (m_A.linear() - p_.cross(m_A.angular())));
  }
  /// Force rule: f_A = X^-T f_B.
  Force act(const Force& f_B) const {
    const Vector3 f = R_ * f_B.linear();
    return Force(R_ * f_B.angular() + p_.cross(f), f);
  }
  /// Inverse force rule: f_B = X^T f_A.
  Force actInv(const Force& f_A) const {
    return Force(R_.transpose() * (f_A.angular() - p_.cross(f_A.linear())),
                 R_.transpose() * f_A.linear());
  }

  /// The same rules writing into an existing vector half by half, for the algorithms' loops: a
  /// spatial vector stored as two 3-vectors and then read at once as 6-vector (SIMD) packets
  /// cannot be forwarded from the pending stores and stalls the CPU, so the loops keep to halves.
  /// m_B = X^-1 m_A (m_B must not be m_A).
  void actInv(const Motion& m_A, Motion& m_B) const {
    m_B.angular().noalias() = R_.transpose() * m_A.angular();
    m_B.linear().noalias() = R_.transpose() * (m_A.linear() - p_.cross(m_A.angular()));
  }
  /// f_A += X^-T f_B (f_A must not be f_B).
  void addAct(const Force& f_B, Force& f_A) const {
    const Vector3 f = R_ * f_B.linear();
    f_A.angular().noalias() += R_ * f_B.angular();
    f_A.angular() += p_.cross(f);
    f_A.linear() += f;
  }

  /// The 6x6 Plücker motion transform (B to A coordinates). For tests and buildModel's checks.
  Matrix6 toMatrix() const {
    Matrix6 X = Matrix6::Zero();
    X.topLeftCorner<3, 3>() = R_;
    X.bottomLeftCorner<3, 3>() = skew(p_) * R_;
    X.bottomRightCorner<3, 3>() = R_;
    return X;
  }
  /// The 6x6 force transform X^-T (B to A coordinates). For tests.
  Matrix6 toForceMatrix() const {
    Matrix6 X = Matrix6::Zero();
    X.topLeftCorner<3, 3>() = R_;
    X.topRightCorner<3, 3>() = skew(p_) * R_;
    X.bottomRightCorner<3, 3>() = R_;
    return X;
  }
  /// The 4x4 homogeneous matrix [R p; 0 1].
  Eigen::Matrix4d toHomogeneous() const {
    Eigen::Matrix4d H = Eigen::Matrix4d::Identity();
    H.topLeftCorner<3, 3>() = R_;
    H.topRightCorner<3, 1>() = p_;
    return H;
  }
  bool isApprox(const Transform& o, double tol = 1e-12) const {
    return R_.isApprox(o.R_, tol) && (p_ - o.p_).norm() <= tol * (1.0 + p_.norm());
  }

 private:
  Matrix3 R_;
  Vector3 p_;
};

/// Rotation by `angle` [rad] about the unit `axis`.
inline Matrix3 rotationAboutAxis(const Vector3& axis, double angle) {
  return Eigen::AngleAxisd(angle, axis).toRotationMatrix();
}

/// The rotation of URDF's rpy = (roll, pitch, yaw): R = Rz(yaw) Ry(pitch) Rx(roll), fixed axes.
inline Matrix3 rotationFromRpy(const Vector3& rpy) {
  return (Eigen::AngleAxisd(rpy.z(), Vector3::UnitZ()) *
          Eigen::AngleAxisd(rpy.y(), Vector3::UnitY()) *
          Eigen::AngleAxisd(rpy.x(), Vector3::UnitX()))
      .toRotationMatrix();
}

/// The spatial inertia of a rigid body, expressed in some frame B: mass m [kg], the position of the
/// centre of mass p_BoBcm_B [m] and the rotational inertia about the COM I_Bcm_B [kg m^2], in B
/// axes.
class Inertia {
 public:
  Inertia() : m_(0.0), c_(Vector3::Zero()), I_(Matrix3::Zero()) {}
  Inertia(double mass, const Vector3& p_BoBcm_B, const Matrix3& I_Bcm_B)
      : m_(mass), c_(p_BoBcm_B), I_(I_Bcm_B) {}
  static Inertia Zero() { return Inertia(); }

  double mass() const { return m_; }
  const Vector3& com() const { return c_; }
  const Matrix3& inertiaAboutCom() const { return I_; }
  /// Rotational inertia about the frame origin Bo: I_Bcm + m [c]^T [c].
  Matrix3 inertiaAboutOrigin() const {
    const Matrix3 C = skew(c_);
    return I_ - m_ * C * C;
  }

  /// The momentum h = I v of a body moving with spatial velocity v (same frame).
  Force operator*(const Motion& v) const {
    const Vector3 w = v.angular();
    const Vector3 lin = m_ * (v.linear() - c_.cross(w));
    return Force(I_ * w + c_.cross(lin), lin);
  }

  /// Sum of two inertias given in the same frame: the inertia of the welded pair, exact.
  /// Both rotational inertias move to the common COM; with d = c1 - c2 the two parallel-axis
  /// terms add up to (m1 m2 / m) [d]^T [d] = (m1 m2 / m) (|d|^2 1 - d d^T).
  Inertia operator+(const Inertia& o) const {
    const double m = m_ + o.m_;
    if (m == 0.0) return Inertia(0.0, Vector3::Zero(), I_ + o.I_);
    const Vector3 d = c_ - o.c_;
    const double mu = m_ * o.m_ / m;
    Matrix3 I = I_ + o.I_ - (mu * d) * d.transpose();
    I.diagonal().array() += mu * d.squaredNorm();
    return Inertia(m, (m_ * c_ + o.m_ * o.c_) / m, I);
  }

  /// This inertia (given in B) expressed in A, given X_AB: I_A = X^-T I_B X^-1.
  Inertia transformedBy(const Transform& X_AB) const {
    const Matrix3& R = X_AB.rotation();
    return Inertia(m_, X_AB.actPoint(c_), R * I_ * R.transpose());
  }

  /// The explicit 6x6 matrix [I_o, m[c]; m[c]^T, m 1] (angular first). For tests and
  /// buildModel's checks.
  Matrix6 toMatrix() const {
    Matrix6 M;
    const Matrix3 C = skew(c_);
    M.topLeftCorner<3, 3>() = inertiaAboutOrigin();
    M.topRightCorner<3, 3>() = m_ * C;
    M.bottomLeftCorner<3, 3>() = -m_ * C;
    M.bottomRightCorner<3, 3>() = m_ * Matrix3::Identity();
    return M;
  }

 private:
  double m_;
  Vector3 c_;
  Matrix3 I_;
};

/// The same spatial inertia stored by its moments about the frame origin Bo: the mass m, the first
/// moment h = m p_BoBcm_B and the rotational inertia about the origin I_o, i.e. the 6x6 matrix
/// [I_o, [h]; [h]^T, m 1] as 10 numbers (RBDA sec. 2.13). Sums are plain additions and a change
/// of frame needs no division, which suits composite inertias (CRBA); Inertia's (m, c, I_cm)
/// form is the one for single bodies.
class InertiaMoments {
 public:
  InertiaMoments() : m_(0.0), h_(Vector3::Zero()), I_o_(Matrix3::Zero()) {}
  /// The moments of `I`: h = m c, I_o = I_cm + m [c]^T [c].
  explicit InertiaMoments(const Inertia& I)
      : m_(I.mass()), h_(I.mass() * I.com()), I_o_(I.inertiaAboutOrigin()) {}

  double mass() const { return m_; }
  /// The first moment of mass m p_BoBcm_B [kg m].
  const Vector3& firstMoment() const { return h_; }
  /// The rotational inertia about the frame origin [kg m^2].
  const Matrix3& inertiaAboutOrigin() const { return I_o_; }

  /// The momentum I v = (I_o w + h x v, m v - h x w) of a body moving with v (same frame).
  Force operator*(const Motion& v) const {
    const Vector3 w = spatialHalf(v.vector(), 0), u = spatialHalf(v.vector(), 3);
    return Force(I_o_ * w + h_.cross(u), m_ * u - h_.cross(w));
  }

  InertiaMoments& operator+=(const InertiaMoments& o) {
    m_ += o.m_;
    h_ += o.h_;
    I_o_ += o.I_o_;
    return *this;
  }

  /// This inertia (given in B) added to `I_A` expressed in A, given X_AB: I_A += X^-T I_B X^-1.
  /// With R = R_AB, p = p_AoBo_A, h_R = R h and h' = h_R + m p, the moments in A are m, h' and
  /// I_o' = R I_o R^T - [p][h_R] - [h'][p] (the parallel-axis rule on the first moment);
  /// [a][b] = b a^T - (a . b) 1 makes the two last terms outer products.
  void addTransformedTo(const Transform& X_AB, InertiaMoments& I_A) const {
    const Matrix3& R = X_AB.rotation();
    const Vector3& p = X_AB.translation();
    const Vector3 h_R = R * h_;
    const Vector3 h_A = h_R + m_ * p;
    const Matrix3 RI = R * I_o_;
    const double diagonal = p.dot(h_R) + p.dot(h_A);
    // Entry by entry on the upper triangle, mirrored: I_o' is symmetric.
    for (int i = 0; i < 3; ++i) {
      for (int j = i; j < 3; ++j) {
        double e = RI(i, 0) * R(j, 0) + RI(i, 1) * R(j, 1) + RI(i, 2) * R(j, 2) -
                   h_R[i] * p[j] - p[i] * h_A[j];
        if (i == j) e += diagonal;
        I_A.I_o_(i, j) += e;
        if (i != j) I_A.I_o_(j, i) += e;
      }
    }
    I_A.h_ += h_A;
    I_A.m_ += m_;
  }

  /// The (m, c, I_cm) form; the zero inertia for a zero mass (the moments then carry no COM).
  Inertia toInertia() const {
    if (m_ == 0.0) return Inertia(0.0, Vector3::Zero(), I_o_);
    const Vector3 c = h_ / m_;
    const Matrix3 C = skew(c);
    return Inertia(m_, c, I_o_ + m_ * C * C);
  }
  /// The explicit 6x6 matrix [I_o, [h]; [h]^T, m 1]. For tests.
  Matrix6 toMatrix() const {
    Matrix6 M;
    M.topLeftCorner<3, 3>() = I_o_;
    M.topRightCorner<3, 3>() = skew(h_);
    M.bottomLeftCorner<3, 3>() = -skew(h_);
    M.bottomRightCorner<3, 3>() = m_ * Matrix3::Identity();
    return M;
  }

 private:
  double m_;
  Vector3 h_;
  Matrix3 I_o_;
};

}  // namespace gcbridge
