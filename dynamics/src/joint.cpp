#include "gcbridge/dynamics/joint.hpp"

#include <cmath>
#include <string>

#include "gcbridge/dynamics/detail/enum_names.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "joints/dispatch.hpp"

namespace gcbridge {

namespace {

constexpr auto kJointTypeNames = detail::enumNames<JointType>({{JointType::Fixed, "fixed"},
                                                               {JointType::Revolute, "revolute"},
                                                               {JointType::Prismatic, "prismatic"},
                                                               {JointType::Planar, "planar"},
                                                               {JointType::Ball, "ball"},
                                                               {JointType::Free, "free"}});

constexpr auto kBallNames =
    detail::enumNames<BallParametrization>({{BallParametrization::Quaternion, "quaternion"},
                                            {BallParametrization::ExpMap, "expmap"},
                                            {BallParametrization::EulerXYZ, "euler_xyz"},
                                            {BallParametrization::EulerXYZ, "euler"}});

/// URDF's joint type names, and Bullet's spherical.
constexpr auto kUrdfTypeNames = detail::enumNames<JointType>({{JointType::Revolute, "revolute"},
                                                              {JointType::Revolute, "continuous"},
                                                              {JointType::Prismatic, "prismatic"},
                                                              {JointType::Planar, "planar"},
                                                              {JointType::Fixed, "fixed"},
                                                              {JointType::Free, "floating"},
                                                              {JointType::Ball, "spherical"}});

}  // namespace

const char* toString(JointType type) { return kJointTypeNames.name(type); }

const char* toString(BallParametrization param) { return kBallNames.name(param); }

std::optional<BallParametrization> ballParametrizationFromString(std::string_view name) {
  return kBallNames.find(name);
}

std::optional<JointType> jointTypeFromUrdf(std::string_view name) {
  return kUrdfTypeNames.find(name);
}

std::string urdfJointTypeNames() { return kUrdfTypeNames.list(", ", " or "); }

int jointNq(JointType type, BallParametrization ball) {
  return joints::dispatch(type, ball, [](auto kernel) { return decltype(kernel)::nq; });
}

int jointNv(JointType type) {
  return joints::dispatch(type, BallParametrization::Quaternion,
                          [](auto kernel) { return decltype(kernel)::nv; });
}

bool jointUsesAxis(JointType type) {
  return joints::dispatch(type, BallParametrization::Quaternion,
                          [](auto kernel) { return decltype(kernel)::uses_axis; });
}

bool hasRotationChart(const Joint& joint) {
  return joints::dispatch(joint.type, joint.ball, [](auto kernel) {
    return decltype(kernel)::is_ball && decltype(kernel)::nq == 3;
  });
}

bool motionSubspaceDependsOnQ(const Joint& joint) {
  return joints::dispatch(joint,
                          [](auto kernel) { return decltype(kernel)::subspace_depends_on_q; });
}

std::vector<JointCoordinate> jointConfigurationCoordinates(const Joint& joint) {
  return joints::dispatch(joint, [](auto kernel) {
    const auto& c = decltype(kernel)::q_coordinates;
    return std::vector<JointCoordinate>(c.begin(), c.end());
  });
}

std::vector<JointCoordinate> jointVelocityCoordinates(const Joint& joint) {
  return joints::dispatch(joint, [](auto kernel) {
    const auto& c = decltype(kernel)::v_coordinates;
    return std::vector<JointCoordinate>(c.begin(), c.end());
  });
}

Matrix3 planarJointFrame(const Vector3& axis) { return joints::Planar::frame(axis); }

Quaternion quaternionFromCoeffs(const double* xyzw) {
  Quaternion Q(xyzw[3], xyzw[0], xyzw[1], xyzw[2]);
  Q.normalize();
  return Q;
}

Matrix3 eulerXYZRotation(const Vector3& abc) {
  return (Eigen::AngleAxisd(abc.x(), Vector3::UnitX()) *
          Eigen::AngleAxisd(abc.y(), Vector3::UnitY()) *
          Eigen::AngleAxisd(abc.z(), Vector3::UnitZ()))
      .toRotationMatrix();
}

Vector3 rotationToEulerXYZ(const Matrix3& R) {
  // R = Rx(a) Ry(b) Rz(c): R(0,2) = sin b, R(1,2) = -sin a cos b, R(2,2) = cos a cos b,
  // R(0,1) = -cos b sin c, R(0,0) = cos b cos c.
  const double cb = std::hypot(R(0, 0), R(0, 1));
  const double b = std::atan2(R(0, 2), cb);
  if (cb > 1e-12) return Vector3(std::atan2(-R(1, 2), R(2, 2)), b, std::atan2(-R(0, 1), R(0, 0)));
  // Gimbal lock: only a + c (or a - c) is defined; put it all in a.
  return Vector3(std::atan2(R(2, 1), R(1, 1)), b, 0.0);
}

Matrix3 eulerXYZJacobian(const Vector3& abc) {
  // J-hat = [e_x, Rx(a) e_y, Rx(a) Ry(b) e_z].
  const double sa = std::sin(abc.x()), ca = std::cos(abc.x());
  const double sb = std::sin(abc.y()), cb = std::cos(abc.y());
  Matrix3 E;
  E << 1.0, 0.0, sb, 0.0, ca, -sa * cb, 0.0, sa, ca * cb;
  return E;
}

Transform jointTransform(const Joint& joint, const double* q) {
  return joints::dispatch(joint,
                          [&](auto kernel) { return decltype(kernel)::transform(joint, q); });
}

JointMatrix jointMotionSubspace(const Joint& joint, const double* q) {
  return joints::dispatch(joint, [&](auto kernel) {
    using K = decltype(kernel);
    Eigen::Matrix<double, 6, K::nv> S;
    K::subspace(joint, q, joints::SubspaceMap<K::nv>(S.data()));
    return JointMatrix(S);
  });
}

JointMatrix jointMotionSubspaceDerivative(const Joint& joint, const double* q, const double* v) {
  return joints::dispatch(joint, [&](auto kernel) {
    return JointMatrix(decltype(kernel)::subspaceDerivative(joint, q, v));
  });
}

Motion jointBiasAcceleration(const Joint& joint, const double* q, const double* v) {
  return joints::dispatch(joint, [&](auto kernel) { return decltype(kernel)::bias(joint, q, v); });
}

JointMatrix jointLocalJacobian(const Joint& joint, const double* q) {
  return joints::dispatch(joint,
                          [&](auto kernel) { return decltype(kernel)::localJacobian(joint, q); });
}

Vector3 ballVelocityFromAngularVelocity(const Joint& joint, const double* q,
                                        const Vector3& omega_J) {
  return joints::dispatch(joint, [&](auto kernel) -> Vector3 {
    using K = decltype(kernel);
    if constexpr (K::is_ball) {
      return K::velocityFromAngularVelocity(joint, q, omega_J);
    } else {
      throw InvalidArgumentError("ballVelocityFromAngularVelocity: joint '" + joint.name +
                                 "' is a " + toString(joint.type) + " joint, not a ball joint");
    }
  });
}

}  // namespace gcbridge
