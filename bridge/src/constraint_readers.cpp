#include "constraint_readers.hpp"

// Bullet.
#include <BulletDynamics/ConstraintSolver/btConeTwistConstraint.h>
#include <BulletDynamics/ConstraintSolver/btFixedConstraint.h>
#include <BulletDynamics/ConstraintSolver/btGearConstraint.h>
#include <BulletDynamics/ConstraintSolver/btGeneric6DofConstraint.h>
#include <BulletDynamics/ConstraintSolver/btGeneric6DofSpring2Constraint.h>
#include <BulletDynamics/ConstraintSolver/btGeneric6DofSpringConstraint.h>
#include <BulletDynamics/ConstraintSolver/btHinge2Constraint.h>
#include <BulletDynamics/ConstraintSolver/btHingeConstraint.h>
#include <BulletDynamics/ConstraintSolver/btPoint2PointConstraint.h>
#include <BulletDynamics/ConstraintSolver/btSliderConstraint.h>
#include <BulletDynamics/ConstraintSolver/btUniversalConstraint.h>

#include <cmath>
#include <string>

#include "bullet_conversions.hpp"
#include "constraint_motors.hpp"
#include "gcbridge/bridge/rigid_body_map.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace inference {

void fail(const std::string& what) { throw WorldError("inferModelFromWorld: " + what); }

namespace {

using detail::fromBullet;

constexpr double kInf = std::numeric_limits<double>::infinity();

/// `frame` with its axes made orthonormal, axis `a` kept in direction. Bullet's hinge
/// pivot/axis constructors build frames whose other two axes are orthogonal to it but not of
/// unit length (they cross the axis with the body's x axis); only their directions mean anything.
Transform orthonormalized(const btTransform& frame, int a) {
  const Transform X = fromBullet(frame);
  const int b = (a + 1) % 3, c = (a + 2) % 3;
  Matrix3 R;
  R.col(a) = X.rotation().col(a).normalized();
  R.col(b) = (X.rotation().col(b) - R.col(a) * R.col(a).dot(X.rotation().col(b))).normalized();
  R.col(c) = R.col(a).cross(R.col(b));
  return Transform(R, X.translation());
}

/// The site's constraint frames, Fp on the parent and Fc on the child, from its frames on its
/// bodies A and B, orthonormalized about their axis `a`.
void setFrames(const ReadSite& site, const btTransform& frame_a, const btTransform& frame_b,
               JointReading& r, int a = 2) {
  r.X_BpFp = orthonormalized(site.parent_is_a ? frame_a : frame_b, a);
  r.X_BcFc = orthonormalized(site.parent_is_a ? frame_b : frame_a, a);
}

/// Limits of the model coordinate q from Bullet's limits [lower, upper] on its own coordinate
/// s = sign * q (both 0 where the constraint frames coincide). A bound at Bullet's "unreached"
/// magnitude (BT_LARGE_FLOAT, how a one-sided slider limit is written) is none.
JointLimits limitsOf(double lower, double upper, double sign) {
  const double unreached = 0.1 * BT_LARGE_FLOAT;
  if (lower <= -unreached) lower = -kInf;
  if (upper >= unreached) upper = kInf;
  JointLimits limits;
  if (sign > 0.0) {
    limits.lower = lower;
    limits.upper = upper;
  } else {
    limits.lower = -upper;
    limits.upper = -lower;
  }
  return limits;
}

/// R_WB of a body now.
Matrix3 rotationOf(const btRigidBody* body) {
  return fromBullet(body->getCenterOfMassTransform()).rotation();
}

/// A btGeneric6DofSpringConstraint's springs are part of the system, which the model leaves out.
void check6DofSprings(const ReadSite& site, btGeneric6DofConstraint* dof) {
  const auto* spring = dynamic_cast<const btGeneric6DofSpringConstraint*>(dof);
  if (spring == nullptr) return;
  for (int a = 0; a < 6; ++a) {
    if (spring->isSpringEnabled(a)) {
      fail(site.what + " has a spring enabled on axis " + std::to_string(a) +
           "; the model has no springs: disable it");
    }
  }
}

void checkSpring2Springs(const ReadSite& site, btGeneric6DofSpring2Constraint* dof) {
  for (int a = 0; a < 3; ++a) {
    if (dof->getTranslationalLimitMotor()->m_enableSpring[a] ||
        dof->getRotationalLimitMotor(a)->m_enableSpring) {
      fail(site.what + " has a spring enabled on axis " +
           std::to_string(dof->getRotationalLimitMotor(a)->m_enableSpring ? a + 3 : a) +
           "; the model has no springs: disable it");
    }
  }
}

/// Hinge: about the z axis of its frames.
JointReading readHinge(const ReadSite& site, btHingeConstraint* hinge) {
  if (hinge->getAngularOnly()) fail(site.what + " is angular-only: not a revolute joint");
  JointReading r;
  r.type = JointType::Revolute;
  setFrames(site, hinge->getAFrame(), hinge->getBFrame(), r);
  const double lower = hinge->getLowerLimit(), upper = hinge->getUpperLimit();
  // A limit whose normalized bounds are out of order wraps through +-pi or is no limit at all;
  // the two cannot be told apart from the getters, so neither is recorded.
  if (hinge->hasLimit() && lower <= upper) {
    // Bullet's angle is minus the rotation of B's frame relative to A's about the axis, or plus
    // it with useReferenceFrameA (bullet-facts.md); q is the rotation of Fc relative to Fp.
    const double sign_ab = hinge->getUseReferenceFrameA() ? 1.0 : -1.0;
    r.limits = limitsOf(lower, upper, site.parent_is_a ? sign_ab : -sign_ab);
  }
  return r;
}

/// Slider: translation along the x axis of its frames, rotation locked.
JointReading readSlider(const ReadSite& site, btSliderConstraint* slider) {
  if (slider->getLowerAngLimit() != slider->getUpperAngLimit()) {
    fail(site.what + " lets the bodies rotate about its axis (angular limits " +
         std::to_string(slider->getLowerAngLimit()) + " .. " +
         std::to_string(slider->getUpperAngLimit()) + "): not a prismatic joint");
  }
  JointReading r;
  r.type = JointType::Prismatic;
  setFrames(site, slider->getFrameOffsetA(), slider->getFrameOffsetB(), r, 0);
  r.axis_F = Vector3::UnitX();
  const double lower = slider->getLowerLinLimit(), upper = slider->getUpperLinLimit();
  // Bullet's position is B's frame origin minus A's along A's axis.
  if (lower <= upper) r.limits = limitsOf(lower, upper, site.parent_is_a ? 1.0 : -1.0);
  return r;
}

/// Point-to-point: a ball joint at the pivots. The constraint has no frame axes: Fp's are the
/// child body's axes as the bodies are now, so that the joint is at the identity rotation now.
JointReading readPoint2Point(const ReadSite& site, btPoint2PointConstraint* p2p) {
  JointReading r;
  r.type = JointType::Ball;
  const Vector3 p_Bp = fromBullet(site.parent_is_a ? p2p->getPivotInA() : p2p->getPivotInB());
  const Vector3 p_Bc = fromBullet(site.parent_is_a ? p2p->getPivotInB() : p2p->getPivotInA());
  r.X_BpFp = Transform(rotationOf(site.parent_body).transpose() * rotationOf(site.body), p_Bp);
  r.X_BcFc = Transform(Matrix3::Identity(), p_Bc);
  return r;
}

/// Cone-twist: a ball joint at the frames' origin, the cone about the frames' x axis.
JointReading readConeTwist(const ReadSite& site, btConeTwistConstraint* cone) {
  if (cone->getAngularOnly()) fail(site.what + " is angular-only: not a ball joint");
  JointReading r;
  r.type = JointType::Ball;
  setFrames(site, cone->getAFrame(), cone->getBFrame(), r, 0);
  r.axis_F = Vector3::UnitX();
  // Bullet's "no limit" is BT_LARGE_FLOAT (1e30 in double, 1e18 in single precision).
  const auto span = [](double s) { return s < 0.1 * BT_LARGE_FLOAT ? s : kInf; };
  r.swing1 = span(cone->getSwingSpan1());
  r.swing2 = span(cone->getSwingSpan2());
  r.twist = span(cone->getTwistSpan());
  return r;
}

/// Universal: 6-DOF with x rotation and translation locked. Measured (Bullet 3.24): the frame's
/// z axis (axis1) stays fixed in body A and its y axis (axis2) in body B.
JointReading readUniversal(const ReadSite& site, btUniversalConstraint* universal) {
  btVector3 lin_lo, lin_hi, ang_lo, ang_hi;
  universal->getLinearLowerLimit(lin_lo);
  universal->getLinearUpperLimit(lin_hi);
  universal->getAngularLowerLimit(ang_lo);
  universal->getAngularUpperLimit(ang_hi);
  if (lin_lo != lin_hi || ang_lo.x() != ang_hi.x() || ang_lo.y() == ang_hi.y() ||
      ang_lo.z() == ang_hi.z()) {
    fail(site.what + " has limits that lock other axes than a universal joint's");
  }
  JointReading r;
  r.type = JointType::Revolute;
  r.universal = true;
  setFrames(site, universal->getFrameOffsetA(), universal->getFrameOffsetB(), r);
  r.axis_parent_F = site.parent_is_a ? Vector3::UnitZ() : Vector3::UnitY();
  r.axis_F = site.parent_is_a ? Vector3::UnitY() : Vector3::UnitZ();
  return r;
}

/// 6-DOF constraints: the joint is read from which axes are locked (lower == upper), free
/// (lower > upper) or limited (lower < upper).
JointReading readGeneric6Dof(const ReadSite& site, const btTransform& frame_a,
                             const btTransform& frame_b, const btVector3& lin_lo,
                             const btVector3& lin_hi, const btVector3& ang_lo,
                             const btVector3& ang_hi) {
  int linear_locked = 0, angular_locked = 0, linear_moving = -1, angular_moving = -1;
  int linear_locked_axis = -1;
  for (int a = 0; a < 3; ++a) {
    if (lin_lo[a] == lin_hi[a]) {
      ++linear_locked;
      linear_locked_axis = a;
    } else {
      linear_moving = a;
    }
    if (ang_lo[a] == ang_hi[a]) {
      ++angular_locked;
    } else {
      angular_moving = a;
    }
  }
  const double sign = site.parent_is_a ? 1.0 : -1.0;
  JointReading r;
  setFrames(site, frame_a, frame_b, r);
  if (linear_locked == 3 && angular_locked == 3) {
    r.type = JointType::Fixed;
  } else if (linear_locked == 3 && angular_locked == 2) {
    const int a = angular_moving;
    r.type = JointType::Revolute;
    r.axis_F = Vector3::Unit(a);
    // Measured (Bullet 3.24, both 6-DOF classes): getAngle(a) is minus the rotation of B's
    // frame relative to A's about axis a.
    if (ang_lo[a] < ang_hi[a]) r.limits = limitsOf(ang_lo[a], ang_hi[a], -sign);
  } else if (angular_locked == 3 && linear_locked == 2) {
    const int a = linear_moving;
    r.type = JointType::Prismatic;
    r.axis_F = Vector3::Unit(a);
    // The linear position: B's frame origin minus A's along A's axis.
    if (lin_lo[a] < lin_hi[a]) r.limits = limitsOf(lin_lo[a], lin_hi[a], sign);
  } else if (linear_locked == 3 && angular_locked == 0) {
    r.type = JointType::Ball;
  } else if (linear_locked == 1 && angular_locked == 2 && angular_moving == linear_locked_axis) {
    // Planar: translation in the plane normal to the free rotation's axis.
    const int a = angular_moving;
    const int b = (a + 1) % 3, c = (a + 2) % 3;
    if (!(lin_lo[b] > lin_hi[b]) || !(lin_lo[c] > lin_hi[c]) || !(ang_lo[a] > ang_hi[a])) {
      fail(site.what +
           " is a planar joint with limits on its free axes; a planar joint has "
           "no position limits here: make them free (lower > upper)");
    }
    r.type = JointType::Planar;
    r.axis_F = Vector3::Unit(a);
  } else {
    fail(site.what + " locks " + std::to_string(linear_locked) + " translations and " +
         std::to_string(angular_locked) +
         " rotations: only fixed, revolute, prismatic, planar and ball configurations are "
         "supported");
  }
  return r;
}

/// The 6-DOF classes' limits, then readGeneric6Dof.
template <typename Dof>
JointReading readSixDof(const ReadSite& site, Dof* dof) {
  btVector3 lin_lo, lin_hi, ang_lo, ang_hi;
  dof->getLinearLowerLimit(lin_lo);
  dof->getLinearUpperLimit(lin_hi);
  dof->getAngularLowerLimit(ang_lo);
  dof->getAngularUpperLimit(ang_hi);
  return readGeneric6Dof(site, dof->getFrameOffsetA(), dof->getFrameOffsetB(), lin_lo, lin_hi,
                         ang_lo, ang_hi);
}

/// One constraint class: its name, whether a constraint is one, and its reader (none for a class
/// that is never a tree joint).
struct ConstraintReader {
  const char* class_name;
  bool (*is)(const btTypedConstraint*);
  JointReading (*read)(const ReadSite&);
};

template <typename T>
bool isA(const btTypedConstraint* c) {
  return dynamic_cast<const T*>(c) != nullptr;
}

/// The readers, most derived classes first (the first that matches is the constraint's class).
const ConstraintReader kReaders[] = {
    {"btGearConstraint", isA<btGearConstraint>, nullptr},
    {"btHinge2Constraint", isA<btHinge2Constraint>, nullptr},
    {"btFixedConstraint", isA<btFixedConstraint>,
     [](const ReadSite& s) {
       auto* dof = static_cast<btGeneric6DofSpring2Constraint*>(s.constraint);
       checkSpring2Springs(s, dof);
       return readSixDof(s, dof);
     }},
    {"btGeneric6DofSpring2Constraint", isA<btGeneric6DofSpring2Constraint>,
     [](const ReadSite& s) {
       auto* dof = static_cast<btGeneric6DofSpring2Constraint*>(s.constraint);
       checkSpring2Springs(s, dof);
       return readSixDof(s, dof);
     }},
    {"btUniversalConstraint", isA<btUniversalConstraint>,
     [](const ReadSite& s) {
       return readUniversal(s, static_cast<btUniversalConstraint*>(s.constraint));
     }},
    {"btGeneric6DofSpringConstraint", isA<btGeneric6DofSpringConstraint>,
     [](const ReadSite& s) {
       auto* dof = static_cast<btGeneric6DofConstraint*>(s.constraint);
       check6DofSprings(s, dof);
       return readSixDof(s, dof);
     }},
    {"btGeneric6DofConstraint", isA<btGeneric6DofConstraint>,
     [](const ReadSite& s) {
       auto* dof = static_cast<btGeneric6DofConstraint*>(s.constraint);
       check6DofSprings(s, dof);
       return readSixDof(s, dof);
     }},
    {"btHingeAccumulatedAngleConstraint", isA<btHingeAccumulatedAngleConstraint>,
     [](const ReadSite& s) { return readHinge(s, static_cast<btHingeConstraint*>(s.constraint)); }},
    {"btHingeConstraint", isA<btHingeConstraint>,
     [](const ReadSite& s) { return readHinge(s, static_cast<btHingeConstraint*>(s.constraint)); }},
    {"btSliderConstraint", isA<btSliderConstraint>,
     [](const ReadSite& s) {
       return readSlider(s, static_cast<btSliderConstraint*>(s.constraint));
     }},
    {"btPoint2PointConstraint", isA<btPoint2PointConstraint>,
     [](const ReadSite& s) {
       return readPoint2Point(s, static_cast<btPoint2PointConstraint*>(s.constraint));
     }},
    {"btConeTwistConstraint", isA<btConeTwistConstraint>,
     [](const ReadSite& s) {
       return readConeTwist(s, static_cast<btConeTwistConstraint*>(s.constraint));
     }},
};

/// The reader of c's class, or nullptr for a class Bullet's own that has none here.
const ConstraintReader* readerOf(const btTypedConstraint* c) {
  for (const ConstraintReader& reader : kReaders) {
    if (reader.is(c)) return &reader;
  }
  return nullptr;
}

}  // namespace

const char* constraintClassName(const btTypedConstraint* c) {
  const ConstraintReader* reader = readerOf(c);
  return reader != nullptr ? reader->class_name : "btTypedConstraint";
}

bool hasNoTreeJoint(const btTypedConstraint* c) {
  const ConstraintReader* reader = readerOf(c);
  return reader != nullptr && reader->read == nullptr;
}

JointReading readConstraint(const ReadSite& site) {
  const ConstraintReader* reader = readerOf(site.constraint);
  if (reader == nullptr || reader->read == nullptr) {
    fail(site.what + " is of a constraint type the bridge does not support (type " +
         std::to_string(static_cast<int>(site.constraint->getConstraintType())) + ")");
  }
  if (!site.motors_allowed) {
    const std::string motors = enabledMotors(site.constraint);
    if (!motors.empty()) {
      fail(site.what + " has " + motors +
           " enabled; disable it (the controller drives the joint), or have inference switch it "
           "off (options.switch_motors_off)");
    }
  }
  return reader->read(site);
}

}  // namespace inference
GCBRIDGE_BULLET_NAMESPACE_END
