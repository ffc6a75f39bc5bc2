// World inference on worlds spawned with their constraints violated, the way Bullet's own
// examples spawn theirs (bodies placed roughly, the solver left to snap them together): for every
// constraint class the bridge reads, the inferred joints are the constraints Bullet enforces.
// Checked against Bullet's own constraint frames (an independent measure of where each joint is),
// against the model inferred from the same system spawned consistently, and after Bullet's
// solver has pulled the bodies together.
#include <BulletDynamics/ConstraintSolver/btFixedConstraint.h>
#include <BulletDynamics/ConstraintSolver/btGeneric6DofSpring2Constraint.h>
#include <BulletDynamics/ConstraintSolver/btUniversalConstraint.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bullet_test_world.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/bridge/world_inference.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/rnea.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::fromBt;
using test::inBody;
using test::pointInBody;
using test::TestWorld;
using test::toBt;

constexpr bool kDouble = sizeof(btScalar) == 8;
// The model's joint errors and Bullet's, both computed in double from the same Bullet poses and
// frames: they agree to round-off of a few transform products (in single precision, of the
// frames and poses Bullet stores in floats: a few 1e-8 on half a metre).
constexpr double kSameGeometry = kDouble ? 1e-9 : 1e-6;
// Bodies written by writeState sit on the constraints to the round-off of the Bullet precision.
constexpr double kWritten = kDouble ? 1e-12 : 2e-6;
// M, h and g of two models of one system: a few hundred operations in double (in single
// precision the two worlds' frames were stored in floats from different poses).
constexpr double kDynamics = kDouble ? 1e-12 : 1e-5;

/// The constraint classes, with the joint each is read as.
enum class Kind {
  HingeFrames,
  HingePivotAxis,
  Slider,
  PointToPoint,
  ConeTwist,
  Fixed,
  Generic6DofRevolute,
  Spring2Prismatic,
  Spring2Ball,
  Spring2Planar,
  Universal,
};

/// What Bullet's constraint frames say about one constraint: the part of B's frame's placement
/// relative to A's that the constraint forbids, as a distance [m] and an angle [rad].
struct BulletError {
  double position = 0.0;
  double rotation = 0.0;
};

/// `X` with orthonormal axes, axis `a` kept (Bullet's pivot/axis hinge frames have orthogonal
/// but not unit axes).
Transform orthonormalized(const Transform& X, int a) {
  const int b = (a + 1) % 3, c = (a + 2) % 3;
  Matrix3 R;
  R.col(a) = X.rotation().col(a).normalized();
  R.col(b) = (X.rotation().col(b) - R.col(a) * R.col(a).dot(X.rotation().col(b))).normalized();
  R.col(c) = R.col(a).cross(R.col(b));
  return Transform(R, X.translation());
}

/// The angle of a rotation [rad].
double angleOf(const Matrix3& R) { return Eigen::AngleAxisd(R).angle(); }

/// The angle between two unit vectors [rad].
double angleBetween(const Vector3& a, const Vector3& b) {
  return std::atan2(a.cross(b).norm(), a.dot(b));
}

/// The constraint's frames on its bodies, in the world now.
void worldFrames(btTypedConstraint* c, Transform& X_WFa, Transform& X_WFb) {
  const Transform X_WA = fromBt(c->getRigidBodyA().getCenterOfMassTransform());
  const Transform X_WB = fromBt(c->getRigidBodyB().getCenterOfMassTransform());
  Transform frame_a, frame_b;
  if (auto* hinge = dynamic_cast<btHingeConstraint*>(c)) {
    frame_a = orthonormalized(fromBt(hinge->getAFrame()), 2);
    frame_b = orthonormalized(fromBt(hinge->getBFrame()), 2);
  } else if (auto* cone = dynamic_cast<btConeTwistConstraint*>(c)) {
    frame_a = fromBt(cone->getAFrame());
    frame_b = fromBt(cone->getBFrame());
  } else if (auto* slider = dynamic_cast<btSliderConstraint*>(c)) {
    frame_a = fromBt(slider->getFrameOffsetA());
    frame_b = fromBt(slider->getFrameOffsetB());
  } else if (auto* dof = dynamic_cast<btGeneric6DofConstraint*>(c)) {
    frame_a = fromBt(dof->getFrameOffsetA());
    frame_b = fromBt(dof->getFrameOffsetB());
  } else if (auto* spring2 = dynamic_cast<btGeneric6DofSpring2Constraint*>(c)) {
    frame_a = fromBt(spring2->getFrameOffsetA());
    frame_b = fromBt(spring2->getFrameOffsetB());
  } else if (auto* p2p = dynamic_cast<btPoint2PointConstraint*>(c)) {
    frame_a = Transform(Matrix3::Identity(), fromBt(p2p->getPivotInA()));
    frame_b = Transform(Matrix3::Identity(), fromBt(p2p->getPivotInB()));
  }
  X_WFa = X_WA * frame_a;
  X_WFb = X_WB * frame_b;
}

/// Bullet's own error of constraint `c` of class `kind`, from its frames and the bodies now: the
/// child's frame Fc relative to the parent's Fp (the parent is body A when `parent_is_a`).
BulletError bulletError(Kind kind, btTypedConstraint* c, bool parent_is_a) {
  Transform X_WFa, X_WFb;
  worldFrames(c, X_WFa, X_WFb);
  const Transform& X_WFp = parent_is_a ? X_WFa : X_WFb;
  const Transform& X_WFc = parent_is_a ? X_WFb : X_WFa;
  const Transform X_FpFc = X_WFp.inverse() * X_WFc;
  const Vector3& p = X_FpFc.translation();
  const Matrix3& R = X_FpFc.rotation();
  // The free axis e in Fp.
  const auto revolute = [&](const Vector3& e) {
    return BulletError{p.norm(), angleBetween(e, R * e)};
  };
  switch (kind) {
    case Kind::HingeFrames:
    case Kind::HingePivotAxis:
      return revolute(Vector3::UnitZ());
    case Kind::Generic6DofRevolute:
      return revolute(Vector3::UnitY());
    case Kind::Slider:
    case Kind::Spring2Prismatic:
      return {(p - p.x() * Vector3::UnitX()).norm(), angleOf(R)};
    case Kind::PointToPoint:
    case Kind::ConeTwist:
    case Kind::Spring2Ball:
      return {p.norm(), 0.0};
    case Kind::Fixed:
      return {p.norm(), angleOf(R)};
    case Kind::Spring2Planar:
      return {std::abs(p.z()), angleBetween(Vector3::UnitZ(), R * Vector3::UnitZ())};
    case Kind::Universal: {
      // Axis 1 (z) fixed in A and axis 2 (y) fixed in B stay orthogonal.
      const Vector3 z_A = X_WFa.rotation().col(2), y_B = X_WFb.rotation().col(1);
      return {p.norm(), std::asin(std::min(1.0, std::abs(z_A.dot(y_B))))};
    }
  }
  return {};
}

/// The model's error of the joint(s) built from constraint `c`: the largest over its links.
BulletError modelError(const InferredModel& inferred, const std::vector<JointError>& errors,
                       const btTypedConstraint* c) {
  BulletError e;
  for (int k = 0; k < inferred.model.numLinks(); ++k) {
    if (inferred.map->constraint(k) != c) continue;
    e.position = std::max(e.position, errors[k].position_error);
    e.rotation = std::max(e.rotation, errors[k].rotation_error);
  }
  return e;
}

/// The axis index of a frame for each class (hinge z, slider and cone x, the 6-DOF classes'
/// chosen free axis), for building the frames.
int frameAxis(Kind kind) {
  switch (kind) {
    case Kind::Slider:
    case Kind::ConeTwist:
    case Kind::Spring2Prismatic:
      return 0;
    case Kind::Generic6DofRevolute:
      return 1;
    default:
      return 2;
  }
}

/// ground (static) -c[0]- upper -c[1]- lower, both constraints of one class, built at a
/// consistent pose (the frames from joint frames given in the world); a violated chain then
/// moves the bodies off their constraints (0.5 m and 0.3 rad for the lower body) before anything
/// reads the world.
struct Chain {
  TestWorld w;
  btRigidBody* ground = nullptr;
  btRigidBody* body[2] = {nullptr, nullptr};
  btTypedConstraint* c[2] = {nullptr, nullptr};
  Transform X_WB_consistent[2];

  Chain(Kind kind, bool violated) {
    ground = w.addBox("ground", 0.0, Vector3(1, 1, 0.1), Transform::Identity());
    X_WB_consistent[0] = test::pose(Vector3(0.1, 0.2, 0.3), Vector3(0.0, 0.0, 1.0));
    X_WB_consistent[1] = test::pose(Vector3(0.3, -0.2, 0.1), Vector3(0.2, 0.1, 0.55));
    body[0] = w.addBox("upper", 1.3, Vector3(0.1, 0.12, 0.5), X_WB_consistent[0]);
    body[1] = w.addCapsule("lower", 0.9, 0.04, 0.3, X_WB_consistent[1]);
    const int a = frameAxis(kind);
    const Transform F0 =
        test::frameWithAxis(Vector3(0, 0, 1.3), Vector3(1, 0.2, 0).normalized(), a);
    const Transform F1 =
        test::frameWithAxis(Vector3(0.1, 0.05, 0.8), Vector3(0.1, 1, 0.2).normalized(), a);
    // The parent is body A of c[0] and body B of c[1].
    c[0] = make(kind, ground, body[0], F0);
    c[1] = make(kind, body[1], body[0], F1);
    if (!violated) return;
    const Transform d0(rotationAboutAxis(Vector3(1, 1, 0).normalized(), 0.2),
                       Vector3(0.2, -0.1, 0.15));
    const Transform d1(rotationAboutAxis(Vector3(0, 1, 1).normalized(), 0.3),
                       Vector3(0.3, 0.25, -0.3));
    body[0]->setCenterOfMassTransform(toBt(X_WB_consistent[0] * d0));
    body[1]->setCenterOfMassTransform(toBt(X_WB_consistent[1] * d1));
  }

  /// A constraint of class `kind` between a and b whose frames are F (in W) on both bodies now.
  btTypedConstraint* make(Kind kind, btRigidBody* a, btRigidBody* b, const Transform& F) {
    const btTransform fa = inBody(a, F), fb = inBody(b, F);
    const Vector3 axis_W = F.rotation().col(2);
    switch (kind) {
      case Kind::HingeFrames:
        return w.add<btHingeConstraint>(*a, *b, fa, fb);
      case Kind::HingePivotAxis:
        return w.add<btHingeConstraint>(*a, *b, pointInBody(a, F.translation()),
                                        pointInBody(b, F.translation()),
                                        test::axisInBody(a, axis_W), test::axisInBody(b, axis_W));
      case Kind::Slider:
        return w.add<btSliderConstraint>(*a, *b, fa, fb, true);
      case Kind::PointToPoint:
        return w.add<btPoint2PointConstraint>(*a, *b, pointInBody(a, F.translation()),
                                              pointInBody(b, F.translation()));
      case Kind::ConeTwist:
        return w.add<btConeTwistConstraint>(*a, *b, fa, fb);
      case Kind::Fixed:
        return w.add<btFixedConstraint>(*a, *b, fa, fb);
      case Kind::Generic6DofRevolute: {
        auto* dof = w.add<btGeneric6DofConstraint>(*a, *b, fa, fb, true);
        dof->setLinearLowerLimit(btVector3(0, 0, 0));
        dof->setLinearUpperLimit(btVector3(0, 0, 0));
        dof->setAngularLowerLimit(btVector3(0, 1, 0));
        dof->setAngularUpperLimit(btVector3(0, -1, 0));
        return dof;
      }
      case Kind::Spring2Prismatic:
        return spring2(a, b, fa, fb, btVector3(1, 0, 0), btVector3(-1, 0, 0), btVector3(0, 0, 0),
                       btVector3(0, 0, 0));
      case Kind::Spring2Ball:
        return spring2(a, b, fa, fb, btVector3(0, 0, 0), btVector3(0, 0, 0), btVector3(1, 1, 1),
                       btVector3(-1, -1, -1));
      case Kind::Spring2Planar:
        return spring2(a, b, fa, fb, btVector3(1, 1, 0), btVector3(-1, -1, 0), btVector3(0, 0, 1),
                       btVector3(0, 0, -1));
      case Kind::Universal:
        // Axis 1 fixed in A, axis 2 fixed in B, orthogonal.
        return w.add<btUniversalConstraint>(*a, *b, toBt(F.translation()), toBt(axis_W),
                                            toBt(F.rotation().col(1)));
    }
    return nullptr;
  }

  btTypedConstraint* spring2(btRigidBody* a, btRigidBody* b, const btTransform& fa,
                             const btTransform& fb, const btVector3& lin_lo,
                             const btVector3& lin_hi, const btVector3& ang_lo,
                             const btVector3& ang_hi) {
    auto* dof = w.add<btGeneric6DofSpring2Constraint>(*a, *b, fa, fb);
    dof->setLinearLowerLimit(lin_lo);
    dof->setLinearUpperLimit(lin_hi);
    dof->setAngularLowerLimit(ang_lo);
    dof->setAngularUpperLimit(ang_hi);
    return dof;
  }
};

struct Case {
  const char* name;
  Kind kind;
  /// Whether Bullet's solver pulls this chain onto its constraints within 2 s (pivot separation
  /// below 5 mm). Measured: btGeneric6DofConstraint as a revolute, a spring2 planar and a
  /// universal constraint do not recover from this violation (errors of 0.03 to 4 m after 10 s).
  bool settles = true;
};

class SpawnViolation : public ::testing::TestWithParam<Case> {};

// At spawn the model measures exactly the violation Bullet's own frames show (so its joints are
// Bullet's constraints), and the violation is really there.
TEST_P(SpawnViolation, SpawnErrorsAreBulletsOwnConstraintErrors) {
  Chain chain(GetParam().kind, /*violated=*/true);
  const InferredModel inferred = inferModelFromWorld(chain.w.world(), chain.w.options());
  double largest = 0.0;
  for (int i = 0; i < 2; ++i) {
    btTypedConstraint* c = chain.c[i];
    const BulletError bullet = bulletError(GetParam().kind, c, i == 0);
    const BulletError model = modelError(inferred, inferred.spawn_errors, c);
    EXPECT_NEAR(model.position, bullet.position, kSameGeometry);
    EXPECT_NEAR(model.rotation, bullet.rotation, kSameGeometry);
    largest = std::max({largest, bullet.position, bullet.rotation});
  }
  EXPECT_GT(largest, 0.05) << "the spawn pose does not violate the constraints";
}

// The bodies written at the configuration read from the violated spawn pose satisfy every
// constraint by Bullet's own measure.
TEST_P(SpawnViolation, WrittenStateSatisfiesBulletsConstraints) {
  Chain chain(GetParam().kind, /*violated=*/true);
  const InferredModel inferred = inferModelFromWorld(chain.w.world(), chain.w.options());
  BridgeData bdata(inferred.model);
  writeState(inferred.model, *inferred.map, bdata, inferred.q,
             Eigen::VectorXd::Zero(inferred.model.nv));
  for (int i = 0; i < 2; ++i) {
    btTypedConstraint* c = chain.c[i];
    const BulletError bullet = bulletError(GetParam().kind, c, i == 0);
    EXPECT_LT(bullet.position, kWritten);
    EXPECT_LT(bullet.rotation, kWritten);
  }
}

// The model of the violated world is the model of the same system spawned consistently: at the
// same physical state, equal M, h and g.
TEST_P(SpawnViolation, SameDynamicsAsTheConsistentlySpawnedSystem) {
  Chain consistent(GetParam().kind, false), violated(GetParam().kind, true);
  const InferredModel a = inferModelFromWorld(consistent.w.world(), consistent.w.options());
  const InferredModel b = inferModelFromWorld(violated.w.world(), violated.w.options());
  ASSERT_EQ(a.model.nq, b.model.nq);
  ASSERT_EQ(a.model.nv, b.model.nv);
  BridgeData bdata_a(a.model), bdata_b(b.model);
  Data data_a(a.model), data_b(b.model);
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    // A state of the consistent model, written into both worlds' bodies and read by each model.
    const Eigen::VectorXd q = integrate(a.model, a.q, randomVector(a.model.nv, seed), 0.3);
    const Eigen::VectorXd v = randomVector(a.model.nv, seed + 10);
    writeState(a.model, *a.map, bdata_a, q, v);
    for (int i = 0; i < 2; ++i) {
      violated.body[i]->setCenterOfMassTransform(consistent.body[i]->getCenterOfMassTransform());
      violated.body[i]->setLinearVelocity(consistent.body[i]->getLinearVelocity());
      violated.body[i]->setAngularVelocity(consistent.body[i]->getAngularVelocity());
    }
    Eigen::VectorXd q_b, v_b;
    readState(b.model, *b.map, bdata_b, q_b, v_b);
    // Every class but the point-to-point (whose q = identity is the spawn orientation) shares the
    // charts: the same q.
    if (GetParam().kind != Kind::PointToPoint) {
      EXPECT_TRUE(test::matricesNear(q_b, q, kDynamics))
          << q_b.transpose() << " vs " << q.transpose();
    }
    const Eigen::MatrixXd M_a = crba(a.model, data_a, q);
    EXPECT_TRUE(test::matricesNear(crba(b.model, data_b, q_b), M_a, kDynamics));
    const Eigen::VectorXd h_a = nonLinearEffects(a.model, data_a, q, v);
    EXPECT_TRUE(test::matricesNear(nonLinearEffects(b.model, data_b, q_b, v_b), h_a, kDynamics));
    const Eigen::VectorXd g_a = computeGeneralizedGravity(a.model, data_a, q);
    EXPECT_TRUE(
        test::matricesNear(computeGeneralizedGravity(b.model, data_b, q_b), g_a, kDynamics));
  }
}

// Bullet's solver pulls the violated spawn pose onto its constraints (gravity off, 2 s), where it
// can: the model and Bullet measure the same residual whatever the solver did, so the model's
// joints coincide with Bullet's constraints.
TEST_P(SpawnViolation, JointsCoincideWithBulletsConstraintsOnceSettled) {
  Chain chain(GetParam().kind, /*violated=*/true);
  const InferredModel inferred = inferModelFromWorld(chain.w.world(), chain.w.options());
  chain.w.world().setGravity(btVector3(0, 0, 0));
  chain.w.step(480);
  BridgeData bdata(inferred.model);
  computeJointErrors(inferred.model, *inferred.map, bdata);
  for (int i = 0; i < 2; ++i) {
    btTypedConstraint* c = chain.c[i];
    const BulletError bullet = bulletError(GetParam().kind, c, i == 0);
    const BulletError model = modelError(inferred, bdata.joint_errors, c);
    if (GetParam().settles) {
      EXPECT_LT(model.position, 5e-3);
    }
    EXPECT_NEAR(model.position, bullet.position, kSameGeometry);
    EXPECT_NEAR(model.rotation, bullet.rotation, kSameGeometry);
  }
}

// Frames 5 m apart on bodies a few decimetres large are no spawn slop but wrong frames: refused,
// naming the constraint, the world untouched.
TEST_P(SpawnViolation, FramesFurtherApartThanTheBodiesAreRefused) {
  Chain chain(GetParam().kind, /*violated=*/false);
  // 5 m off: along x, across every joint's motion but the planar joint's (whose plane holds x
  // nearly): along its normal there.
  const btVector3 away = GetParam().kind == Kind::Spring2Planar
                             ? 5.0 * btVector3(0.1, 1, 0.2).normalized()
                             : btVector3(5, 0, 0);
  const btTransform far(chain.body[1]->getCenterOfMassTransform().getBasis(),
                        chain.body[1]->getCenterOfMassPosition() + away);
  chain.body[1]->setCenterOfMassTransform(far);
  try {
    inferModelFromWorld(chain.w.world(), chain.w.options());
    ADD_FAILURE() << "no WorldError";
  } catch (const WorldError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("constraint 1 ("), std::string::npos) << message;
    EXPECT_NE(message.find("m apart"), std::string::npos) << message;
  }
  EXPECT_TRUE(fromBt(chain.body[1]->getCenterOfMassTransform()).isApprox(fromBt(far), 0.0));
}

INSTANTIATE_TEST_SUITE_P(
    EveryConstraintClass, SpawnViolation,
    ::testing::Values(Case{"HingeFrames", Kind::HingeFrames},
                      Case{"HingePivotAxis", Kind::HingePivotAxis}, Case{"Slider", Kind::Slider},
                      Case{"PointToPoint", Kind::PointToPoint}, Case{"ConeTwist", Kind::ConeTwist},
                      Case{"Fixed", Kind::Fixed},
                      Case{"Generic6DofRevolute", Kind::Generic6DofRevolute, false},
                      Case{"Spring2Prismatic", Kind::Spring2Prismatic},
                      Case{"Spring2Ball", Kind::Spring2Ball},
                      Case{"Spring2Planar", Kind::Spring2Planar, false},
                      Case{"Universal", Kind::Universal, false}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace gcbridge
