#pragma once
// Bullet worlds rebuilt the way Bullet's own example programs build them (bulletphysics/bullet3,
// examples/): the same bodies, masses, frames, per-body settings and solver settings, spawned as
// the examples spawn them, with their constraints violated. The code is ours; the numbers are the
// examples'.

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletDynamics/ConstraintSolver/btGeneric6DofSpring2Constraint.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>
#include <btBulletDynamicsCommon.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "bullet_test_world.hpp"
#include "gcbridge/bridge/multibody_builder.hpp"

namespace gcbridge::test {

/// An application's per-body settings: damping and sleeping, and deactivation left on (the test
/// world's default disables it).
inline void applyAppSettings(btRigidBody* body, double linear_damping, double angular_damping,
                             double deactivation_time, double linear_sleep, double angular_sleep) {
  body->setDamping(linear_damping, angular_damping);
  body->setDeactivationTime(deactivation_time);
  body->setSleepingThresholds(linear_sleep, angular_sleep);
  body->forceActivationState(ACTIVE_TAG);
}

/// The ragdoll of examples/Benchmarks/BenchmarkDemo.cpp (class RagDoll) at scale 1, at the
/// position offset (0, 1, 0) of its third benchmark (pelvis 2 m up, feet 1 m above the ground): 11
/// capsules of 1 kg, y up, gravity (0, -10, 0), 5 solver iterations, damping 0.05 / 0.85,
/// deactivation after 0.8 s below 1.6 m/s and 2.5 rad/s, on a 500 x 100 x 500 m ground box. Its
/// child-side constraint frames miss the parent-side ones by up to 10 cm at spawn.
struct BenchmarkRagdoll {
  TestWorld w;
  btRigidBody* pelvis = nullptr;

  BenchmarkRagdoll() {
    btDynamicsWorld& world = w.world();
    world.setGravity(btVector3(0, -10, 0));
    world.getSolverInfo().m_solverMode |= SOLVER_ENABLE_FRICTION_DIRECTION_CACHING;
    world.getSolverInfo().m_numIterations = 5;
    w.addBox("ground", 0.0, Vector3(500, 100, 500),
             Transform(Matrix3::Identity(), Vector3(0, -50, 0)));
    const Vector3 offset(0, 1, 0);
    const auto capsule = [&](const char* name, double r, double height, const Vector3& p,
                             double about_z) {
      btRigidBody* body =
          w.addCapsule(name, 1.0, r, height,
                       Transform(rotationAboutAxis(Vector3::UnitZ(), about_z), offset + p));
      applyAppSettings(body, 0.05, 0.85, 0.8, 1.6, 2.5);
      return body;
    };
    pelvis = capsule("pelvis", 0.15, 0.20, Vector3(0, 1, 0), 0);
    btRigidBody* spine = capsule("spine", 0.15, 0.28, Vector3(0, 1.2, 0), 0);
    btRigidBody* head = capsule("head", 0.10, 0.05, Vector3(0, 1.6, 0), 0);
    btRigidBody* lul = capsule("left_upper_leg", 0.07, 0.45, Vector3(-0.18, 0.65, 0), 0);
    btRigidBody* lll = capsule("left_lower_leg", 0.05, 0.37, Vector3(-0.18, 0.2, 0), 0);
    btRigidBody* rul = capsule("right_upper_leg", 0.07, 0.45, Vector3(0.18, 0.65, 0), 0);
    btRigidBody* rll = capsule("right_lower_leg", 0.05, 0.37, Vector3(0.18, 0.2, 0), 0);
    btRigidBody* lua = capsule("left_upper_arm", 0.05, 0.33, Vector3(-0.35, 1.45, 0), M_PI_2);
    btRigidBody* lla = capsule("left_lower_arm", 0.04, 0.25, Vector3(-0.7, 1.45, 0), M_PI_2);
    btRigidBody* rua = capsule("right_upper_arm", 0.05, 0.33, Vector3(0.35, 1.45, 0), -M_PI_2);
    btRigidBody* rla = capsule("right_lower_arm", 0.04, 0.25, Vector3(0.7, 1.45, 0), -M_PI_2);
    hinge(pelvis, spine, btVector3(0, 0.15, 0), btVector3(0, -0.15, 0), -M_PI_4, M_PI_2);
    cone(spine, head, M_PI_2, btVector3(0, 0.30, 0), M_PI_2, btVector3(0, -0.14, 0), M_PI_4, M_PI_4,
         M_PI_2);
    cone(pelvis, lul, -M_PI_4 * 5, btVector3(-0.18, -0.10, 0), -M_PI_4 * 5, btVector3(0, 0.225, 0),
         M_PI_4, M_PI_4, 0);
    hinge(lul, lll, btVector3(0, -0.225, 0), btVector3(0, 0.185, 0), 0, M_PI_2);
    cone(pelvis, rul, M_PI_4, btVector3(0.18, -0.10, 0), M_PI_4, btVector3(0, 0.225, 0), M_PI_4,
         M_PI_4, 0);
    hinge(rul, rll, btVector3(0, -0.225, 0), btVector3(0, 0.185, 0), 0, M_PI_2);
    cone(spine, lua, M_PI, btVector3(-0.2, 0.15, 0), M_PI_2, btVector3(0, -0.18, 0), M_PI_2, M_PI_2,
         0);
    hinge(lua, lla, btVector3(0, 0.18, 0), btVector3(0, -0.14, 0), -M_PI_2, 0);
    cone(spine, rua, 0, btVector3(0.2, 0.15, 0), M_PI_2, btVector3(0, -0.18, 0), M_PI_2, M_PI_2, 0);
    hinge(rua, rla, btVector3(0, 0.18, 0), btVector3(0, -0.14, 0), -M_PI_2, 0);
  }

  /// The example's frames: btMatrix3x3::setEulerZYX(about x, about y, about z) and an origin.
  static btTransform frame(double x, double y, double z, const btVector3& origin) {
    btTransform X;
    X.setIdentity();
    X.getBasis().setEulerZYX(x, y, z);
    X.setOrigin(origin);
    return X;
  }
  void hinge(btRigidBody* a, btRigidBody* b, const btVector3& oa, const btVector3& ob, double lo,
             double hi) {
    auto* h = w.add<btHingeConstraint>(*a, *b, frame(0, M_PI_2, 0, oa), frame(0, M_PI_2, 0, ob));
    h->setLimit(lo, hi);
  }
  void cone(btRigidBody* a, btRigidBody* b, double za, const btVector3& oa, double zb,
            const btVector3& ob, double s1, double s2, double t) {
    auto* c = w.add<btConeTwistConstraint>(*a, *b, frame(0, 0, za, oa), frame(0, 0, zb, ob));
    c->setLimit(s1, s2, t);
  }
};

/// The door of examples/Constraints/TestHingeTorque.cpp: a static box, a 1 kg box hinged to it
/// about x (pivot/axis constructor, useReferenceFrameA), and a 1 kg sphere of radius 0.2 welded
/// to the box by a btGeneric6DofSpring2Constraint with every limit 0 whose pivots are 0.34 m
/// apart at spawn; gravity (0, 0, -10), split impulse off, no damping; a static ground box below.
struct HingeTorqueDoor {
  TestWorld w;
  btRigidBody* base = nullptr;
  btRigidBody* door = nullptr;
  btRigidBody* sphere = nullptr;
  btHingeConstraint* hinge = nullptr;

  HingeTorqueDoor() {
    btDynamicsWorld& world = w.world();
    world.getSolverInfo().m_splitImpulse = false;
    world.setGravity(btVector3(0, 0, -10));
    const Vector3 base_position(-0.4, 3.0, 0.0);
    const Vector3 half(0.05, 0.37, 0.1);
    base = w.addBox("base", 0.0, 2.0 * half, Transform(Matrix3::Identity(), base_position));
    door = w.addBox("door", 1.0, 2.0 * half,
                    Transform(Matrix3::Identity(), base_position - Vector3(0, 2 * half.y(), 0)));
    sphere =
        w.addSphere("sphere", 1.0, 0.2,
                    Transform(Matrix3::Identity(), base_position - Vector3(0, 4 * half.y(), 0)));
    for (btRigidBody* body : {door, sphere}) applyAppSettings(body, 0, 0, 2.0, 0.8, 1.0);
    hinge = w.add<btHingeConstraint>(*base, *door, btVector3(0, -0.37, 0), btVector3(0, 0.37, 0),
                                     btVector3(1, 0, 0), btVector3(1, 0, 0), true);
    auto* weld = w.add<btGeneric6DofSpring2Constraint>(
        *door, *sphere, btTransform(btQuaternion::getIdentity(), btVector3(0, -0.2, 0)),
        btTransform(btQuaternion::getIdentity(), btVector3(0, 0.2, 0)));
    weld->setLinearLowerLimit(btVector3(0, 0, 0));
    weld->setLinearUpperLimit(btVector3(0, 0, 0));
    weld->setAngularLowerLimit(btVector3(0, 0, 0));
    weld->setAngularUpperLimit(btVector3(0, 0, 0));
    w.addBox("ground", 0.0, Vector3(2, 2, 0.4),
             Transform(Matrix3::Identity(), Vector3(-0.4, 2.5, -0.6)));
  }
};

/// Pieces of examples/Constraints/ConstraintDemo.cpp (y up, gravity (0, -10, 0), 1 kg boxes of
/// half extent 1 unless said): its active point-to-point (a box at (0, 20, 0) hung from the world
/// at its corner (1, -1, -1)), and the door and the slider of its disabled blocks: a 2 x 5 x 0.2
/// half-extent door at (-5, -2, 0) hinged to the world about y at (12.1, -2, 0) in the door's
/// frame, limits +-pi/4; two boxes at (-20, 0, 30) and (-30, 0, 30) on a slider with identity
/// frames, linear limits [-15, -5] and angular limits +-pi/3 (free to turn: no prismatic joint);
/// the cone-twist pair: a box at (-10, 5, 0) balanced on a static box at (-10, -5, 0) by a
/// cone-twist at the point between them, both frames turned by pi/2 about z (the twist axis
/// vertical), swing spans 0.6 pi/4 and pi/4, twist span 0.8 pi, softness 0.5.
struct ConstraintDemoPieces {
  TestWorld w;
  btRigidBody* ball_box = nullptr;
  btRigidBody* door = nullptr;
  btRigidBody* slider_a = nullptr;
  btRigidBody* cone_box = nullptr;

  ConstraintDemoPieces() {
    w.world().setGravity(btVector3(0, -10, 0));
    const auto at = [](double x, double y, double z) {
      return Transform(Matrix3::Identity(), Vector3(x, y, z));
    };
    ball_box = w.addBox("ball_box", 1.0, Vector3(2, 2, 2), at(0, 20, 0));
    w.add<btPoint2PointConstraint>(*ball_box, btVector3(1, -1, -1));
    door = w.addBox("door", 1.0, Vector3(4, 10, 0.4), at(-5, -2, 0));
    auto* hinge = w.add<btHingeConstraint>(*door, btVector3(12.1, -2, 0), btVector3(0, 1, 0));
    hinge->setLimit(-M_PI_4, M_PI_4);
    slider_a = w.addBox("slider_a", 1.0, Vector3(2, 2, 2), at(-20, 0, 30));
    btRigidBody* slider_b = w.addBox("slider_b", 1.0, Vector3(2, 2, 2), at(-30, 0, 30));
    auto* slider = w.add<btSliderConstraint>(*slider_a, *slider_b, btTransform::getIdentity(),
                                             btTransform::getIdentity(), true);
    slider->setLowerLinLimit(-15);
    slider->setUpperLinLimit(-5);
    slider->setLowerAngLimit(-M_PI / 3);
    slider->setUpperAngLimit(M_PI / 3);
    cone_box = w.addBox("cone_box", 1.0, Vector3(2, 2, 2), at(-10, 5, 0));
    btRigidBody* cone_base = w.addBox("cone_base", 0.0, Vector3(2, 2, 2), at(-10, -5, 0));
    btTransform frame_in_box = btTransform::getIdentity(), frame_in_base = frame_in_box;
    frame_in_box.getBasis().setEulerZYX(0, 0, M_PI_2);
    frame_in_box.setOrigin(btVector3(0, -5, 0));
    frame_in_base.getBasis().setEulerZYX(0, 0, M_PI_2);
    frame_in_base.setOrigin(btVector3(0, 5, 0));
    auto* cone = w.add<btConeTwistConstraint>(*cone_box, *cone_base, frame_in_box, frame_in_base);
    cone->setLimit(0.6 * M_PI_4, M_PI_4, 0.8 * M_PI, 0.5);
  }
};

/// The two test rigs of examples/DynamicControlDemo/MotorDemo.cpp (class TestRig) in one world,
/// y up, gravity Bullet's default (0, -10, 0), on a static 400 x 20 x 400 m ground box whose top
/// is at y = 0: a body capsule (radius 0.25, height 0.1) with six legs, each a thigh capsule
/// (radius 0.1, length 0.45) hinged to the body and a shin capsule (radius 0.08, length 0.75)
/// hinged to the thigh, every part 1 kg, damping 0.05 / 0.85, deactivation after 0.8 s below
/// 0.5 m/s and 0.5 rad/s; hip limits [-0.75 pi/4, pi/8], knee limits [-pi/8, 0.2]. The walker's
/// body is dynamic (offset (1, 0.5, 0)); the stand's is static (mass 0, offset (-2, 0.5, 0)), its
/// six legs hanging from it. Bodies are named "<rig>_body", "<rig>_thigh<i>", "<rig>_shin<i>".
/// drive(t, h) is the example's motor law at time t for a substep h.
struct MotorDemoRigs {
  static constexpr int kLegs = 6;
  TestWorld w;
  btRigidBody* ground = nullptr;
  btRigidBody* body[2] = {};                     ///< the walker's, the stand's
  btHingeConstraint* hinges[2][2 * kLegs] = {};  ///< per rig: hip i at 2i, knee i at 2i + 1

  MotorDemoRigs() {
    w.world().setGravity(btVector3(0, -10, 0));
    ground = w.addBox("ground", 0.0, Vector3(400, 20, 400),
                      Transform(Matrix3::Identity(), Vector3(0, -10, 0)));
    addRig(0, "walker", Vector3(1, 0.5, 0), false);
    addRig(1, "stand", Vector3(-2, 0.5, 0), true);
  }

  /// MotorDemo's setMotorTargets: each hinge's motor gets the velocity that closes the error to a
  /// sinusoid between its limits (period 2 s, the time in whole milliseconds) in one substep h
  /// (at most 1/60 s), with a max impulse of 0.5.
  void drive(double t, double h) {
    const double ms = std::min(h * 1e3, 1e3 / 60.0);
    const double phase = std::fmod(std::floor(t * 1e3), 2000.0) / 2000.0;
    const double s = 0.5 * (1.0 + std::sin(2.0 * M_PI * phase));
    for (auto& rig : hinges) {
      for (btHingeConstraint* hinge : rig) {
        const double target =
            hinge->getLowerLimit() + s * (hinge->getUpperLimit() - hinge->getLowerLimit());
        const double velocity = 1e3 * (target - hinge->getHingeAngle()) / ms;
        hinge->enableAngularMotor(true, velocity, 0.5);
      }
    }
  }

 private:
  void addRig(int r, const std::string& name, const Vector3& offset, bool fixed) {
    const double body_size = 0.25, leg = 0.45, fore_leg = 0.75, height = 0.5;
    const auto at = [&](const Vector3& p, const Matrix3& R) { return Transform(R, offset + p); };
    body[r] = w.addCapsule(name + "_body", fixed ? 0.0 : 1.0, body_size, 0.1,
                           at(Vector3(0, height, 0), Matrix3::Identity()));
    btRigidBody* thigh[kLegs];
    btRigidBody* shin[kLegs];
    for (int i = 0; i < kLegs; ++i) {
      const double angle = 2.0 * M_PI * i / kLegs;
      const Vector3 out(std::cos(angle), 0.0, std::sin(angle));
      const Vector3 axis = out.cross(Vector3::UnitY());
      thigh[i] = w.addCapsule(name + "_thigh" + std::to_string(i), 1.0, 0.1, leg,
                              at((body_size + 0.5 * leg) * out + Vector3(0, height, 0),
                                 Eigen::AngleAxisd(M_PI_2, axis).toRotationMatrix()));
      shin[i] = w.addCapsule(name + "_shin" + std::to_string(i), 1.0, 0.08, fore_leg,
                             at((body_size + leg) * out + Vector3(0, height - 0.5 * fore_leg, 0),
                                Matrix3::Identity()));
    }
    applyAppSettings(body[r], 0.05, 0.85, 0.8, 0.5, 0.5);
    for (int i = 0; i < kLegs; ++i) {
      applyAppSettings(thigh[i], 0.05, 0.85, 0.8, 0.5, 0.5);
      applyAppSettings(shin[i], 0.05, 0.85, 0.8, 0.5, 0.5);
      const double angle = 2.0 * M_PI * i / kLegs;
      const Vector3 out(std::cos(angle), 0.0, std::sin(angle));
      // The hip's and knee's frames: turned -angle about y, at the leg's root and knee, given in
      // the body's frame and carried into the parts' as the example does.
      btTransform hip = btTransform::getIdentity();
      hip.getBasis().setEulerZYX(0, -angle, 0);
      hip.setOrigin(toBt(body_size * out));
      btTransform knee = hip;
      knee.setOrigin(toBt((body_size + leg) * out));
      const btTransform X_W0 = body[r]->getWorldTransform();
      const btTransform X_W1 = thigh[i]->getWorldTransform();
      const btTransform X_W2 = shin[i]->getWorldTransform();
      hinges[r][2 * i] =
          w.add<btHingeConstraint>(*body[r], *thigh[i], hip, X_W1.inverse() * X_W0 * hip);
      hinges[r][2 * i]->setLimit(-0.75 * M_PI_4, M_PI_4 / 2);
      hinges[r][2 * i + 1] = w.add<btHingeConstraint>(
          *thigh[i], *shin[i], X_W1.inverse() * X_W0 * knee, X_W2.inverse() * X_W0 * knee);
      hinges[r][2 * i + 1]->setLimit(-M_PI_4 / 2, 0.2);
    }
  }
};

/// A chain as pybullet's loadURDF(useMaximalCoordinates=True) builds one: each link a body at
/// its inertial frame, each revolute joint a btGeneric6DofSpring2Constraint between the parent's
/// and the child's bodies, its frames the joint frame in each body, every translation and the
/// two other rotations locked, the joint axis the frames' x with the URDF limits. Here a static
/// base and three 1 kg links of 0.3 m hanging along -z, their axes y, y and x, limits +-2 rad.
struct MaximalCoordinateChain {
  TestWorld w;
  btRigidBody* link[3] = {nullptr, nullptr, nullptr};

  MaximalCoordinateChain() {
    btRigidBody* base = w.addBox("base", 0.0, Vector3(0.2, 0.2, 0.2),
                                 Transform(Matrix3::Identity(), Vector3(0, 0, 1)));
    btRigidBody* parent = base;
    const Vector3 axes[3] = {Vector3::UnitY(), Vector3::UnitY(), Vector3::UnitX()};
    for (int i = 0; i < 3; ++i) {
      // The joint at the parent's bottom, the child's COM 0.15 m below it.
      const Vector3 joint_W(0, 0, 0.9 - 0.3 * i);
      link[i] = w.addBox("link" + std::to_string(i + 1), 1.0, Vector3(0.05, 0.05, 0.3),
                         Transform(Matrix3::Identity(), joint_W - Vector3(0, 0, 0.15)));
      // The frames' x along the joint axis.
      const Transform X_WJ = frameWithAxis(joint_W, axes[i], 0);
      auto* dof = w.add<btGeneric6DofSpring2Constraint>(*parent, *link[i], inBody(parent, X_WJ),
                                                        inBody(link[i], X_WJ));
      dof->setLinearLowerLimit(btVector3(0, 0, 0));
      dof->setLinearUpperLimit(btVector3(0, 0, 0));
      dof->setAngularLowerLimit(btVector3(-2, 0, 0));
      dof->setAngularUpperLimit(btVector3(2, 0, 0));
      parent = link[i];
    }
  }
};

/// A btMultiBody in a world of its own, built the way Bullet's examples build one
/// (examples/MultiBody/MultiDofDemo.cpp, TestJointTorqueSetup.cpp): box links of half extents
/// (0.05, 0.37, 0.1) and 1 kg with btBoxShape's inertia, pivots half a link from each COM, a base
/// at (-0.4, 3, 0) turned 0.2 rad about z, gravity (0, -10, 0); here links 0-6: spherical,
/// revolute about x below a turned zero rotation ("upper_arm" on "shoulder"), prismatic, fixed,
/// revolute about z, spherical (branching at link 0) and planar (left out with `links` = 6);
/// the base is "torso", the other links unnamed. Damping off and no velocity clamp.
struct MultiDofExample {
  std::unique_ptr<MultiBodyWorld> w = std::make_unique<MultiBodyWorld>();
  btMultiBody* body = nullptr;
  std::vector<std::unique_ptr<btMultiBodyConstraint>> constraints;
  std::vector<std::unique_ptr<btCollisionShape>> shapes;
  std::vector<std::unique_ptr<btMultiBodyLinkCollider>> colliders;

  explicit MultiDofExample(bool fixed_base, int links = 7) {
    w->collision_configuration = std::make_unique<btDefaultCollisionConfiguration>();
    w->dispatcher = std::make_unique<btCollisionDispatcher>(w->collision_configuration.get());
    w->broadphase = std::make_unique<btDbvtBroadphase>();
    w->solver = std::make_unique<btMultiBodyConstraintSolver>();
    w->world = std::make_unique<btMultiBodyDynamicsWorld>(w->dispatcher.get(), w->broadphase.get(),
                                                          w->solver.get(),
                                                          w->collision_configuration.get());
    w->world->setGravity(btVector3(0, -10, 0));
    const btVector3 half(0.05, 0.37, 0.1);
    btVector3 inertia;
    btBoxShape(half).calculateLocalInertia(1.0, inertia);
    w->body = std::make_unique<btMultiBody>(links, 1.0, inertia, fixed_base, false);
    body = w->body.get();
    body->setBasePos(btVector3(-0.4, 3, 0));
    body->setWorldToBaseRot(btQuaternion(btVector3(0, 0, 1), 0.2));
    body->setBaseName("torso");
    const btVector3 down(0, -half.y(), 0);
    const btQuaternion none(0, 0, 0, 1), turned(btVector3(1, 1, 0).normalized(), 0.4);
    body->setupSpherical(0, 1.0, inertia, -1, none, down, down, true);
    body->setupRevolute(1, 1.0, inertia, 0, turned, btVector3(1, 0, 0), down, down, true);
    body->getLink(1).m_linkName = "upper_arm";
    body->getLink(1).m_jointName = "shoulder";
    body->setupPrismatic(2, 1.0, inertia, 1, none, btVector3(0, 1, 0), down, down, true);
    body->setupFixed(3, 1.0, inertia, 2, turned, down, down, true);
    body->setupRevolute(4, 1.0, inertia, 3, none, btVector3(0, 0, 1), down, down, true);
    body->setupSpherical(5, 1.0, inertia, 0, turned, btVector3(0.05, 0, 0), btVector3(0.1, -0.2, 0),
                         true);
    if (links > 6) {
      body->setupPlanar(6, 1.0, inertia, 4, none, btVector3(0, 0, 1), btVector3(0.1, -0.6, 0),
                        true);
    }
    body->finalizeMultiDof();
    body->setLinearDamping(0.0);
    body->setAngularDamping(0.0);
    body->setMaxCoordinateVelocity(1e30);
    w->world->addMultiBody(body);
  }
  ~MultiDofExample() {
    for (auto& c : constraints) w->world->removeMultiBodyConstraint(c.get());
    for (auto& c : colliders) w->world->removeCollisionObject(c.get());
  }
  void add(btMultiBodyConstraint* c) {
    constraints.emplace_back(c);
    w->world->addMultiBodyConstraint(c);
  }
  void removeConstraints() {
    for (auto& c : constraints) w->world->removeMultiBodyConstraint(c.get());
    constraints.clear();
  }
  // A box collider on Bullet link b (-1: the base), at the link's COM frame.
  void addBoxCollider(int b, const btVector3& half) {
    shapes.push_back(std::make_unique<btBoxShape>(half));
    colliders.push_back(std::make_unique<btMultiBodyLinkCollider>(body, b));
    colliders.back()->setCollisionShape(shapes.back().get());
    if (b < 0) {
      body->setBaseCollider(colliders.back().get());
    } else {
      body->getLink(b).m_collider = colliders.back().get();
    }
    w->world->addCollisionObject(colliders.back().get());
  }
};

}  // namespace gcbridge::test
