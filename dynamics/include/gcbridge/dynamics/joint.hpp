#pragma once
/// @file
/// Joint types, their configuration (q) and velocity (v) layouts, and the per-joint kinematic
/// kernels: the joint transform, the motion subspace S, the bias S_dot*v and the local Jacobian
/// (J-hat in Liu & Jain's notes on articulated bodies, docs/references.md).
///
/// Frames: P is the parent link frame, J the joint frame fixed in P (`Joint::X_PJ`), C the child
/// link frame. At the neutral configuration C coincides with J; in general X_PC = X_PJ * X_JC(q).
///
/// q and v layout of each joint type (slices of the model's q and v at `idx_q` and `idx_v`):
/// - Fixed: nq = nv = 0.
/// - Revolute: nq = nv = 1; q the angle about `axis` (in J) [rad], v its rate [rad/s].
/// - Prismatic: nq = nv = 1; q the displacement along `axis` (in J) [m], v its rate [m/s].
/// - Planar: nq = nv = 3; q = (x, y, theta): C translates by x e1 + y e2 in J's plane normal to
///   `axis` [m], then turns about `axis` by theta [rad]; v = dq/dt. (e1, e2, axis) are the
///   columns of planarJointFrame(axis): for the axis z, J's x and y axes.
/// - Ball, Quaternion: nq = 4, nv = 3; q the unit quaternion of R_JC, order (x, y, z, w) as Eigen,
///   Bullet and Pinocchio; v the angular velocity of C relative to P, expressed in C [rad/s].
/// - Ball, ExpMap: nq = nv = 3; q the rotation vector r, R_JC = exp([r]) [rad]; v = dr/dt [rad/s].
/// - Ball, EulerXYZ: nq = nv = 3; q the angles (a, b, c), R_JC = Rx(a) Ry(b) Rz(c) [rad];
///   v = d(a, b, c)/dt [rad/s].
/// - Free: nq = 7, nv = 6; q = (p_JC_J [m], unit quaternion of R_JC (x, y, z, w)); v = (omega_C,
///   v_Co) of C relative to P, both expressed in C: the body-frame spatial velocity [rad/s, m/s].
///
/// For Planar, ExpMap and EulerXYZ, v is the coordinate rate, so nq == nv and integrating v adds
/// to q. For Quaternion and Free, nq != nv and q is integrated on the manifold (configuration.hpp).
/// Each type's code lives in one kernel (dynamics/src/joints/); docs/architecture.md says how to
/// add a type.

#include <Eigen/Core>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gcbridge/dynamics/lie_group.hpp"
#include "gcbridge/dynamics/spatial.hpp"

namespace gcbridge {

/// The closed set of joint types.
enum class JointType { Fixed, Revolute, Prismatic, Ball, Free, Planar };

/// How a ball joint's orientation is stored in q.
enum class BallParametrization { Quaternion, ExpMap, EulerXYZ };

/// "fixed", "revolute", "prismatic", "ball", "free", "planar".
const char* toString(JointType type);
/// "quaternion", "expmap", "euler_xyz".
const char* toString(BallParametrization param);
/// The parametrization named "quaternion", "expmap", "euler_xyz" or "euler"; nullopt otherwise.
std::optional<BallParametrization> ballParametrizationFromString(std::string_view name);
/// The joint type a URDF `<joint type>` names: "revolute" and "continuous" (Revolute),
/// "prismatic", "planar", "fixed", "floating" (Free) and Bullet's "spherical" (Ball); nullopt for
/// anything else.
std::optional<JointType> jointTypeFromUrdf(std::string_view name);
/// Those names, for messages: "revolute, continuous, ... or spherical".
std::string urdfJointTypeNames();

/// Limits and joint-space friction of one joint, as in URDF `<limit>` and `<dynamics>`.
struct JointLimits {
  double lower = -std::numeric_limits<double>::infinity();    ///< position lower limit [rad or m]
  double upper = std::numeric_limits<double>::infinity();     ///< position upper limit [rad or m]
  double effort = std::numeric_limits<double>::infinity();    ///< |tau| limit [N m or N]
  double velocity = std::numeric_limits<double>::infinity();  ///< |v| limit [rad/s or m/s]
  double damping = 0.0;   ///< viscous damping [N m s/rad or N s/m]
  double friction = 0.0;  ///< Coulomb friction [N m or N]
};

/// One joint of the model: it connects link `parent` (or the world) to its child link.
struct Joint {
  std::string name;
  JointType type = JointType::Fixed;
  BallParametrization ball = BallParametrization::Quaternion;  ///< used when type == Ball
  Vector3 axis = Vector3::UnitZ();  ///< unit axis in J (revolute, prismatic; planar: the normal)
  Transform X_PJ;                   ///< joint frame J in the parent link frame P
  /// Whether J has P's axes: X_PJ's rotation is exactly the identity (most URDF joints). Set by
  /// buildModel from X_PJ (a model's joints do not change after it); where it is true, the joint
  /// placements skip the product with that rotation. A joint made by hand keeps false: the full
  /// product, right for any X_PJ.
  bool parent_axes = false;
  int idx_q = 0;                    ///< first index of this joint in q
  int idx_v = 0;                    ///< first index of this joint in v
  int nq = 0;                       ///< configuration size
  int nv = 0;                       ///< velocity size (degrees of freedom)
  JointLimits limits;
};

/// One coordinate of a joint's slice of q or v: its name within the joint and its unit.
struct JointCoordinate {
  const char* name;  ///< "angle", "x", "qw", "wx", "-" (the only dof of a 1-dof joint), ...
  const char* unit;  ///< "rad", "m", "-" (a quaternion entry), "rad/s", "m/s"
};
/// The coordinates of the joint's slice of q, in order (size joint.nq), as the layout above says.
std::vector<JointCoordinate> jointConfigurationCoordinates(const Joint& joint);
/// The coordinates of the joint's slice of v, in order (size joint.nv).
std::vector<JointCoordinate> jointVelocityCoordinates(const Joint& joint);

/// Configuration size of a joint type.
int jointNq(JointType type, BallParametrization ball = BallParametrization::Quaternion);
/// Velocity size (degrees of freedom) of a joint type.
int jointNv(JointType type);
/// Whether a joint of this type reads `Joint::axis` (revolute, prismatic, planar).
bool jointUsesAxis(JointType type);
/// Whether the joint's q holds an orientation as three chart coordinates (an exp-map or Euler
/// ball joint) rather than a unit quaternion: a q with singular points and no Bullet equivalent.
bool hasRotationChart(const Joint& joint);

/// A 6 x nv matrix with nv <= 6, without heap allocation.
using JointMatrix = Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6>;
/// An nv x nv matrix with nv <= 6, without heap allocation.
using JointSquare = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;
/// A view on one joint's slice of q or v.
using JointVector = Eigen::Ref<const Eigen::VectorXd>;

/// Quaternion (x, y, z, w) of q's slice, normalized (the caller's vector is not touched).
/// @pre the norm was checked (configuration.hpp validateConfiguration).
Quaternion quaternionFromCoeffs(const double* xyzw);

/// R = Rx(a) Ry(b) Rz(c).
Matrix3 eulerXYZRotation(const Vector3& abc);
/// Angles (a, b, c) with R = Rx(a) Ry(b) Rz(c), b in [-pi/2, pi/2]; at gimbal lock (|b| = pi/2)
/// c is set to 0 and a carries the whole rotation about the locked axis.
Vector3 rotationToEulerXYZ(const Matrix3& R);
/// The Jacobian J-hat of Euler XYZ angles: omega_J = J-hat(a, b, c) * d(a,b,c)/dt (parent frame).
Matrix3 eulerXYZJacobian(const Vector3& abc);

/// X_JC(q): the child frame C in the joint frame J.
/// @param[in] q_joint the joint's slice of q (size joint.nq)
Transform jointTransform(const Joint& joint, const double* q_joint);

/// Whether the joint's motion subspace S (in C) changes with q: true for ExpMap and EulerXYZ ball
/// joints and for planar joints.
bool motionSubspaceDependsOnQ(const Joint& joint);

/// The rotation whose columns are a planar joint's in-plane axes e1, e2 and its unit `axis`, in J:
/// the rotation of least angle taking z to the axis (the identity for the axis z); for the axis
/// -z, where that rotation is not unique, the half turn about x.
Matrix3 planarJointFrame(const Vector3& axis);

/// The motion subspace S in the child frame C: V_PC_C = S * v_joint (6 x nv).
JointMatrix jointMotionSubspace(const Joint& joint, const double* q_joint);

/// dS/dt in C when the joint moves with v_joint (non-zero only where S depends on q) (6 x nv).
JointMatrix jointMotionSubspaceDerivative(const Joint& joint, const double* q_joint,
                                          const double* v_joint);

/// The bias term S_dot * v_joint in C (non-zero only where S depends on q): the relative
/// acceleration of C in P when the joint's acceleration is zero.
Motion jointBiasAcceleration(const Joint& joint, const double* q_joint, const double* v_joint);

/// The local Jacobian J-hat: maps v_joint to the relative spatial velocity of C with respect to P,
/// as (angular velocity, velocity of the point Co), both expressed in J (a frame fixed in the
/// parent). For a revolute joint it is (axis, 0), for a prismatic joint (0, axis); for a ball joint
/// its top rows map the coordinate rates to omega_J.
JointMatrix jointLocalJacobian(const Joint& joint, const double* q_joint);

/// For a ball joint: the v_joint (size 3) that produces the relative angular velocity omega_J
/// (expressed in J): the inverse of the top rows of jointLocalJacobian.
/// @throws SingularityError for EulerXYZ at gimbal lock (|cos b| < 1e-9) and for ExpMap at
///   |r| = 2 pi k, k >= 1, where J-hat is singular.
Vector3 ballVelocityFromAngularVelocity(const Joint& joint, const double* q_joint,
                                        const Vector3& omega_J);

}  // namespace gcbridge
