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
#include "gcbridge/bridge/rigid_body_map.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace inference {

void fail(const std::string& what) { throw WorldError("inferModelFromWorld: " + what); }

namespace {

using detail::fromBullet;

constexpr double kInf = std::numeric_limits<double>::infinity();

/// A constraint's frames: in their bodies' COM frames (frame_a in A's, frame_b in B's) and in
/// the world now.
struct ConstraintFrames {
  Transform frame_a;
  Transform frame_b;
  Transform X_WFa;
  Transform X_WFb;
};

ConstraintFrames framesOf(const btTypedConstraint& c, const btTransform& frame_a,
                          const btTransform& frame_b) {
  ConstraintFrames f;
  f.frame_a = fromBullet(frame_a);
  f.frame_b = fromBullet(frame_b);
  f.X_WFa = fromBullet(c.getRigidBodyA().getCenterOfMassTransform()) * f.frame_a;
  f.X_WFb = fromBullet(c.getRigidBodyB().getCenterOfMassTransform()) * f.frame_b;
  return f;
}

/// The angle of R = rotation about coordinate axis i (its other two axes' block) [rad].
double angleAboutAxis(const Matrix3& R, int i) {
  const int j = (i + 1) % 3, k = (i + 2) % 3;
  return std::atan2(R(k, j), R(j, j));
}

/// Limits of the model coordinate q from Bullet's limits [lower, upper] on its own coordinate
/// s = s0 + sign * q (s0 its value now, at q = 0). A bound at Bullet's "unreached" magnitude
/// (BT_LARGE_FLOAT, how a one-sided slider limit is written) is none.
JointLimits shiftedLimits(double lower, double upper, double s0, double sign) {
  const double unreached = 0.1 * BT_LARGE_FLOAT;
  if (lower <= -unreached) lower = -kInf;
  if (upper >= unreached) upper = kInf;
  JointLimits limits;
  if (sign > 0.0) {
    limits.lower = lower - s0;
    limits.upper = upper - s0;
  } else {
    limits.lower = s0 - upper;
    limits.upper = s0 - lower;
  }
  return limits;
}

/// R_WB of a body now.
Matrix3 rotationOf(const btRigidBody* body) {
  return fromBullet(body->getCenterOfMassTransform()).rotation();
}

/// Displacement of B's frame origin from A's along A's frame axis a, now [m] (the slider's and
/// the 6-DOF constraints' linear position).
double linearPosition(const ConstraintFrames& frames, int a) {
  return (frames.X_WFb.translation() - frames.X_WFa.translation())
      .dot(frames.X_WFa.rotation().col(a));
}

void check6DofMotors(const ReadSite& site, btGeneric6DofConstraint* dof) {
  bool enabled = false;
  for (int a = 0; a < 3; ++a) {
    enabled = enabled || dof->getRotationalLimitMotor(a)->m_enableMotor ||
              dof->getTranslationalLimitMotor()->m_enableMotor[a];
  }
  if (const auto* spring = dynamic_cast<const btGeneric6DofSpringConstraint*>(dof)) {
    for (int a = 0; a < 6; ++a) enabled = enabled || spring->isSpringEnabled(a);
  }
  if (enabled) {
    fail(site.what +
         " has a motor or spring enabled; disable it (the controller drives the "
         "joint)");
  }
}

void checkSpring2Motors(const ReadSite& site, btGeneric6DofSpring2Constraint* dof) {
  bool enabled = false;
  for (int a = 0; a < 3; ++a) {
    const btRotationalLimitMotor2* rotational = dof->getRotationalLimitMotor(a);
    const btTranslationalLimitMotor2* translational = dof->getTranslationalLimitMotor();
    enabled = enabled || rotational->m_enableMotor || rotational->m_enableSpring ||
              translational->m_enableMotor[a] || translational->m_enableSpring[a];
  }
  if (enabled) {
    fail(site.what +
         " has a motor or spring enabled; disable it (the controller drives the "
         "joint)");
  }
}

/// Hinge: the z axis of its frames.
JointReading readHinge(const ReadSite& site, btHingeConstraint* hinge) {
  if (hinge->getAngularOnly()) fail(site.what + " is angular-only: not a revolute joint");
  if (hinge->getEnableAngularMotor()) {
    fail(site.what + " has its motor enabled; disable it (the controller drives the joint)");
  }
  JointReading r;
  r.type = JointType::Revolute;
  const Transform frame = fromBullet(site.parent_is_a ? hinge->getBFrame() : hinge->getAFrame());
  r.p_BoLo_B = frame.translation();
  r.axis_B = frame.rotation().col(2);
  const double lower = hinge->getLowerLimit(), upper = hinge->getUpperLimit();
  // A limit whose normalized bounds are out of order wraps through +-pi or is no limit at all;
  // the two cannot be told apart from the getters, so neither is recorded.
  if (hinge->hasLimit() && lower <= upper) {
    // Bullet's angle is minus the rotation of B relative to A about the axis, or plus it with
    // useReferenceFrameA (bullet-facts.md); q is the rotation of the child relative to the
    // parent.
    const double angle_now =
        hinge->getHingeAngle(hinge->getRigidBodyA().getCenterOfMassTransform(),
                             hinge->getRigidBodyB().getCenterOfMassTransform());
    const double sign_ab = hinge->getUseReferenceFrameA() ? 1.0 : -1.0;
    r.limits = shiftedLimits(lower, upper, angle_now, site.parent_is_a ? sign_ab : -sign_ab);
  }
  return r;
}

/// Slider: translation along the x axis of its frames, rotation locked.
JointReading readSlider(const ReadSite& site, btSliderConstraint* slider,
                        const ConstraintFrames& frames) {
  if (slider->getLowerAngLimit() != slider->getUpperAngLimit()) {
    fail(site.what + " lets the bodies rotate about its axis (angular limits " +
         std::to_string(slider->getLowerAngLimit()) + " .. " +
         std::to_string(slider->getUpperAngLimit()) + "): not a prismatic joint");
  }
  if (slider->getPoweredLinMotor() || slider->getPoweredAngMotor()) {
    fail(site.what + " has a motor enabled; disable it (the controller drives the joint)");
  }
  JointReading r;
  r.type = JointType::Prismatic;
  r.axis_B = (site.parent_is_a ? frames.frame_b : frames.frame_a).rotation().col(0);
  const double lower = slider->getLowerLinLimit(), upper = slider->getUpperLinLimit();
  if (lower <= upper) {
    r.limits =
        shiftedLimits(lower, upper, linearPosition(frames, 0), site.parent_is_a ? 1.0 : -1.0);
  }
  return r;
}

/// Point-to-point: a ball joint at the pivot.
JointReading readPoint2Point(const ReadSite& site, btPoint2PointConstraint* p2p) {
  JointReading r;
  r.type = JointType::Ball;
  r.p_BoLo_B = fromBullet(site.parent_is_a ? p2p->getPivotInB() : p2p->getPivotInA());
  return r;
}

/// Cone-twist: a ball joint at the frames' origin, the cone about the parent frame's x axis.
JointReading readConeTwist(const ReadSite& site, btConeTwistConstraint* cone,
                           const ConstraintFrames& frames) {
  if (cone->getAngularOnly()) fail(site.what + " is angular-only: not a ball joint");
  if (cone->isMotorEnabled()) {
    fail(site.what + " has its motor enabled; disable it (the controller drives the joint)");
  }
  JointReading r;
  r.type = JointType::Ball;
  const Transform& parent_frame = site.parent_is_a ? frames.frame_a : frames.frame_b;
  const Transform& child_frame = site.parent_is_a ? frames.frame_b : frames.frame_a;
  r.p_BoLo_B = child_frame.translation();
  // The cone's axis in the child's frame B, now: R_BW R_WP x_F.
  r.axis_B = rotationOf(site.body).transpose() * rotationOf(site.parent_body) *
             parent_frame.rotation().col(0);
  // Bullet's "no limit" is BT_LARGE_FLOAT (1e30 in double, 1e18 in single precision).
  const auto span = [](double s) { return s < 0.1 * BT_LARGE_FLOAT ? s : kInf; };
  r.swing1 = span(cone->getSwingSpan1());
  r.swing2 = span(cone->getSwingSpan2());
  r.twist = span(cone->getTwistSpan());
  return r;
}

/// Universal: 6-DOF with x rotation and translation locked. Measured (Bullet 3.24): the frame's
/// z axis (axis1) stays fixed in body A and its y axis (axis2) in body B.
JointReading readUniversal(const ReadSite& site, btUniversalConstraint* universal,
                           const ConstraintFrames& frames) {
  btVector3 lin_lo, lin_hi, ang_lo, ang_hi;
  universal->getLinearLowerLimit(lin_lo);
  universal->getLinearUpperLimit(lin_hi);
  universal->getAngularLowerLimit(ang_lo);
  universal->getAngularUpperLimit(ang_hi);
  if (lin_lo != lin_hi || ang_lo.x() != ang_hi.x() || ang_lo.y() == ang_hi.y() ||
      ang_lo.z() == ang_hi.z()) {
    fail(site.what + " has limits that lock other axes than a universal joint's");
  }
  check6DofMotors(site, universal);
  JointReading r;
  r.type = JointType::Revolute;
  r.universal = true;
  const Transform& parent_frame = site.parent_is_a ? frames.frame_a : frames.frame_b;
  const Transform& child_frame = site.parent_is_a ? frames.frame_b : frames.frame_a;
  const int parent_axis = site.parent_is_a ? 2 : 1, child_axis = site.parent_is_a ? 1 : 2;
  r.p_BoLo_B = child_frame.translation();
  r.axis_B = child_frame.rotation().col(child_axis);
  r.axis_parent_W = rotationOf(site.parent_body) * parent_frame.rotation().col(parent_axis);
  return r;
}

/// 6-DOF constraints: the joint is read from which axes are locked (lower == upper), free
/// (lower > upper) or limited (lower < upper).
JointReading readGeneric6Dof(const ReadSite& site, const ConstraintFrames& frames,
                             const btVector3& lin_lo, const btVector3& lin_hi,
                             const btVector3& ang_lo, const btVector3& ang_hi) {
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
  const Transform& child_frame = site.parent_is_a ? frames.frame_b : frames.frame_a;
  const double sign = site.parent_is_a ? 1.0 : -1.0;
  JointReading r;
  if (linear_locked == 3 && angular_locked == 3) {
    r.type = JointType::Fixed;
  } else if (linear_locked == 3 && angular_locked == 2) {
    r.type = JointType::Revolute;
    r.p_BoLo_B = child_frame.translation();
    r.axis_B = child_frame.rotation().col(angular_moving);
    const int a = angular_moving;
    if (ang_lo[a] < ang_hi[a]) {
      // Measured (Bullet 3.24, both 6-DOF classes): getAngle(a) is minus the rotation of B's
      // frame relative to A's about axis a.
      const Matrix3 R_FaFb = frames.X_WFa.rotation().transpose() * frames.X_WFb.rotation();
      r.limits = shiftedLimits(ang_lo[a], ang_hi[a], -angleAboutAxis(R_FaFb, a), -sign);
    }
  } else if (angular_locked == 3 && linear_locked == 2) {
    r.type = JointType::Prismatic;
    r.axis_B = child_frame.rotation().col(linear_moving);
    const int a = linear_moving;
    if (lin_lo[a] < lin_hi[a]) {
      r.limits = shiftedLimits(lin_lo[a], lin_hi[a], linearPosition(frames, a), sign);
    }
  } else if (linear_locked == 3 && angular_locked == 0) {
    r.type = JointType::Ball;
    r.p_BoLo_B = child_frame.translation();
  } else if (linear_locked == 1 && angular_locked == 2 && angular_moving == linear_locked_axis) {
    // Planar: translation in the plane normal to the free rotation's axis.
    const int a = angular_moving;
    const int b = (a + 1) % 3, c = (a + 2) % 3;
    if (!(lin_lo[b] > lin_hi[b]) || !(lin_lo[c] > lin_hi[c]) || !(ang_lo[a] > ang_hi[a])) {
      fail(site.what + " is a planar joint with limits on its free axes; a planar joint has "
                         "no position limits here: make them free (lower > upper)");
    }
    r.type = JointType::Planar;
    r.p_BoLo_B = child_frame.translation();
    r.axis_B = child_frame.rotation().col(a);
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
  return readGeneric6Dof(site, framesOf(*dof, dof->getFrameOffsetA(), dof->getFrameOffsetB()),
                         lin_lo, lin_hi, ang_lo, ang_hi);
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
       checkSpring2Motors(s, dof);
       return readSixDof(s, dof);
     }},
    {"btGeneric6DofSpring2Constraint", isA<btGeneric6DofSpring2Constraint>,
     [](const ReadSite& s) {
       auto* dof = static_cast<btGeneric6DofSpring2Constraint*>(s.constraint);
       checkSpring2Motors(s, dof);
       return readSixDof(s, dof);
     }},
    {"btUniversalConstraint", isA<btUniversalConstraint>,
     [](const ReadSite& s) {
       auto* universal = static_cast<btUniversalConstraint*>(s.constraint);
       return readUniversal(
           s, universal,
           framesOf(*universal, universal->getFrameOffsetA(), universal->getFrameOffsetB()));
     }},
    {"btGeneric6DofSpringConstraint", isA<btGeneric6DofSpringConstraint>,
     [](const ReadSite& s) {
       auto* dof = static_cast<btGeneric6DofConstraint*>(s.constraint);
       check6DofMotors(s, dof);
       return readSixDof(s, dof);
     }},
    {"btGeneric6DofConstraint", isA<btGeneric6DofConstraint>,
     [](const ReadSite& s) {
       auto* dof = static_cast<btGeneric6DofConstraint*>(s.constraint);
       check6DofMotors(s, dof);
       return readSixDof(s, dof);
     }},
    {"btHingeAccumulatedAngleConstraint", isA<btHingeAccumulatedAngleConstraint>,
     [](const ReadSite& s) { return readHinge(s, static_cast<btHingeConstraint*>(s.constraint)); }},
    {"btHingeConstraint", isA<btHingeConstraint>,
     [](const ReadSite& s) { return readHinge(s, static_cast<btHingeConstraint*>(s.constraint)); }},
    {"btSliderConstraint", isA<btSliderConstraint>,
     [](const ReadSite& s) {
       auto* slider = static_cast<btSliderConstraint*>(s.constraint);
       return readSlider(s, slider,
                         framesOf(*slider, slider->getFrameOffsetA(), slider->getFrameOffsetB()));
     }},
    {"btPoint2PointConstraint", isA<btPoint2PointConstraint>,
     [](const ReadSite& s) {
       return readPoint2Point(s, static_cast<btPoint2PointConstraint*>(s.constraint));
     }},
    {"btConeTwistConstraint", isA<btConeTwistConstraint>,
     [](const ReadSite& s) {
       auto* cone = static_cast<btConeTwistConstraint*>(s.constraint);
       return readConeTwist(s, cone, framesOf(*cone, cone->getAFrame(), cone->getBFrame()));
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
  return reader->read(site);
}

}  // namespace inference
GCBRIDGE_BULLET_NAMESPACE_END
