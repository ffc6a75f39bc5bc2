// FloatingBaseController (projected and QP) on the DeepMimic humanoid standing on its declared
// sole corners, with no simulator: the torques and contact forces it returns, fed to ABA (an
// algorithm it does not use), give back its accelerations; the root gets no force; the QP's forces
// stay in their friction pyramids and its torques within their limits; at rest on the reference
// it holds the body still on forces that sum to the weight. Then its fallbacks, the support
// polygon and the declared contact frames.

#include "gcbridge/controllers/floating_base_controller.hpp"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <initializer_list>
#include <utility>
#include <vector>

#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/contacts.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/lie_group.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using Standing = test::StandingHumanoid;

/// A controller of `solver` holding the standing pose on the soles.
FloatingBaseController standingController(const Standing& s, FloatingBaseSolver solver,
                                          const FloatingBaseGains& gains = {}) {
  FloatingBaseController controller(s.model, solver, gains);
  controller.setSetPoint(s.q);
  controller.setContacts(s.soles);
  return controller;
}

/// A state near the standing one: joints and root off by up to 0.05, moving.
Eigen::VectorXd perturbed(const Model& model, const Eigen::VectorXd& q, std::uint64_t seed) {
  return integrate(model, q, randomVector(model.nv, seed, 0.05), 1.0);
}

/// ABA with the controller's torques and its contact forces as generalized forces.
Eigen::VectorXd forwardDynamics(const Model& model, const Eigen::VectorXd& q,
                                const Eigen::VectorXd& v, const FloatingBaseController& c) {
  Data data(model);
  Eigen::MatrixXd J_c(3 * c.contacts().size(), model.nv);
  contactJacobian(model, data, q, c.contacts(), J_c);
  return aba(model, data, q, v, c.torque() + J_c.transpose() * c.contactForces());
}

TEST(FloatingBaseController, TorquesAndForcesRealizeItsAccelerationsWithNoRootForce) {
  const Standing s;
  const double weight = s.model.totalMass() * 9.81;
  for (FloatingBaseSolver solver : {FloatingBaseSolver::Projected, FloatingBaseSolver::Qp}) {
    FloatingBaseController controller = standingController(s, solver);
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      const Eigen::VectorXd q = perturbed(s.model, s.q, seed);
      const Eigen::VectorXd v = randomVector(s.model.nv, 100 + seed, 0.2);
      const Eigen::VectorXd& tau = controller.compute(0.0, q, v);
      SCOPED_TRACE(std::string(toString(solver)) + ", seed " + std::to_string(seed));
      EXPECT_EQ(controller.status(), FloatingBaseStatus::Ok) << controller.message();
      EXPECT_TRUE(tau.head<6>().isZero(0.0));
      // Two feet (rank 12 > 6): the contacts can carry any root wrench.
      EXPECT_LT(controller.rootResidual().norm(), 1e-9 * weight);
      const Eigen::VectorXd a = forwardDynamics(s.model, q, v, controller);
      EXPECT_LT((a - controller.acceleration()).cwiseAbs().maxCoeff(), 1e-8);
      if (solver == FloatingBaseSolver::Qp) {
        EXPECT_LT(controller.contactForceViolation(), 1e-9 * weight);
      }
    }
  }
}

TEST(FloatingBaseController, AtRestOnTheReferenceItHoldsStillOnTheWeight) {
  const Standing s;
  const double weight = s.model.totalMass() * 9.81;
  for (FloatingBaseSolver solver : {FloatingBaseSolver::Projected, FloatingBaseSolver::Qp}) {
    FloatingBaseController controller = standingController(s, solver);
    controller.compute(0.0, s.q, Eigen::VectorXd::Zero(s.model.nv));
    SCOPED_TRACE(toString(solver));
    // Every task is met by a = 0 (statics), which the contacts allow; the QP's small weight on
    // the forces' size trades a little of it (measured 7e-6).
    EXPECT_LT(controller.acceleration().cwiseAbs().maxCoeff(),
              solver == FloatingBaseSolver::Qp ? 1e-4 : 1e-9);
    Vector3 total = Vector3::Zero();
    for (std::size_t i = 0; i < s.soles.size(); ++i) {
      total += controller.contactForces().segment<3>(3 * i);
    }
    EXPECT_NEAR(total.z(), weight, 1e-6 * weight);
    EXPECT_LT(total.head<2>().norm(), 1e-6 * weight);
    EXPECT_LT(controller.contactForceViolation(), 1e-6 * weight);
  }
}

TEST(FloatingBaseController, QpKeepsTheTorquesWithinTheirLimits) {
  const Standing s;
  FloatingBaseController controller = standingController(s, FloatingBaseSolver::Qp);
  const Eigen::VectorXd q = perturbed(s.model, s.q, 7);
  const Eigen::VectorXd v = randomVector(s.model.nv, 8, 0.5);
  const Eigen::VectorXd free_tau = controller.compute(0.0, q, v);
  // Limits at half of what the unlimited solution uses: the QP meets them (no clamping needed).
  Eigen::VectorXd limits = Eigen::VectorXd::Constant(s.model.nv, INFINITY);
  limits.tail(s.model.nv - 6) = (0.5 * free_tau.tail(s.model.nv - 6).cwiseAbs()).cwiseMax(1.0);
  controller.setTorqueLimits(TorqueLimits(s.model, limits));
  controller.compute(0.0, q, v);
  EXPECT_EQ(controller.status(), FloatingBaseStatus::TorqueLimited) << controller.message();
  EXPECT_NE(controller.message().find("joint torques at their limits"), std::string::npos);
  EXPECT_EQ(controller.numSaturated(), 0);
  EXPECT_TRUE(
      (controller.unsaturatedTorque().cwiseAbs().array() <= limits.array() * (1.0 + 1e-9) + 1e-9)
          .all());
  const Eigen::VectorXd a = forwardDynamics(s.model, q, v, controller);
  EXPECT_LT((a - controller.acceleration()).cwiseAbs().maxCoeff(), 1e-8);
}

TEST(FloatingBaseController, ReportsAndFallsBack) {
  const Standing s;
  const int nv = s.model.nv;
  FloatingBaseController controller(s.model, FloatingBaseSolver::Qp);
  controller.setSetPoint(s.q);
  // No contacts: the joints' computed torque, no root force, a message.
  const Eigen::VectorXd& tau = controller.compute(0.0, s.q, Eigen::VectorXd::Zero(nv));
  EXPECT_EQ(controller.status(), FloatingBaseStatus::NoContacts);
  EXPECT_NE(controller.message().find("no contacts"), std::string::npos);
  EXPECT_TRUE(tau.allFinite());
  EXPECT_TRUE(tau.head<6>().isZero(0.0));
  // A reference leaning 0.5 rad forward puts its COM outside its own feet: the target moves onto
  // the support polygon's edge.
  controller.setContacts(s.soles);
  Eigen::VectorXd leaning = s.q;
  Eigen::VectorXd turn = Eigen::VectorXd::Zero(nv);
  turn(0) = 0.5;  // about the root's x axis (the file's), the humanoid's forward direction
  leaning = integrate(s.model, s.q, turn, 1.0);
  controller.setSetPoint(leaning);
  controller.compute(0.0, s.q, Eigen::VectorXd::Zero(nv));
  EXPECT_EQ(controller.status(), FloatingBaseStatus::TargetMoved);
  EXPECT_NE(controller.message().find("mm outside the support polygon"), std::string::npos);
  EXPECT_NEAR(controller.supportPolygon().distanceOutside(controller.comTarget()), 0.0, 1e-12);
  // A point so far out that the terms overflow: the last finite torques, never a NaN.
  controller.setSetPoint(s.q);
  const Eigen::VectorXd last = controller.compute(0.0, s.q, Eigen::VectorXd::Zero(nv));
  std::vector<ContactPoint> absurd = s.soles;
  absurd[0].p_LC = Vector3(1e300, 0.0, 0.0);
  controller.setContacts(absurd);
  const Eigen::VectorXd& fallback = controller.compute(0.0, s.q, Eigen::VectorXd::Zero(nv));
  EXPECT_EQ(controller.status(), FloatingBaseStatus::NotFinite);
  EXPECT_EQ(fallback, last);
}

// The QP over the forces alone against the QP over accelerations and forces: limits a millionth
// below the unlimited torques make the controller solve the second; its solution must be the
// first one's, to the order of that change (an independent check of the elimination's cost).
TEST(FloatingBaseController, QpOverForcesAgreesWithTheWholeQp) {
  const Standing s;
  FloatingBaseController controller = standingController(s, FloatingBaseSolver::Qp);
  const Eigen::VectorXd q = perturbed(s.model, s.q, 21);
  const Eigen::VectorXd v = randomVector(s.model.nv, 22, 0.3);
  controller.compute(0.0, q, v);
  const Eigen::VectorXd a = controller.acceleration(), f = controller.contactForces();
  const Eigen::VectorXd tau = controller.torque();
  Eigen::VectorXd limits = (tau.cwiseAbs() * (1.0 - 1e-6)).cwiseMax(1e-3);
  limits.head<6>().setConstant(INFINITY);
  controller.setTorqueLimits(TorqueLimits(s.model, limits));
  controller.compute(0.0, q, v);
  ASSERT_EQ(controller.status(), FloatingBaseStatus::TorqueLimited) << controller.message();
  EXPECT_LT((controller.torque() - tau).cwiseAbs().maxCoeff(), 1e-4 * tau.cwiseAbs().maxCoeff());
  EXPECT_LT((controller.acceleration() - a).cwiseAbs().maxCoeff(), 1e-4 * a.cwiseAbs().maxCoeff());
  EXPECT_LT((controller.contactForces() - f).cwiseAbs().maxCoeff(), 1e-4 * f.cwiseAbs().maxCoeff());
}

/// A free box (nv = 6: no joint) lying on the ground, its box turned in its link frame.
Model lyingBox() {
  ModelBuilder b("box");
  LinkDescription link;
  link.name = "box";
  link.mass = 2.0;
  link.I_Lcm_L = Vector3(0.03, 0.01, 0.035).asDiagonal();
  GeometryInstance shape;
  shape.geometry.type = Geometry::Type::Box;
  shape.geometry.box_size = Vector3(0.2, 0.1, 0.4);  // turned: 0.2 x 0.4 x 0.1 in the link frame
  shape.X_LG.rotation() = Eigen::AngleAxisd(M_PI_2, Vector3::UnitX()).toRotationMatrix();
  link.collisions.push_back(shape);
  b.addLink(link);
  ModelOptions options;
  options.floating_base = true;
  return b.build(options);
}

// Contacts that reach every dof (a box on its four corners: rank 6 = nv): no joint torque to
// find, the weight on the corners; the sole found through the box's own turned frame.
TEST(FloatingBaseController, ContactsThatReachEveryDof) {
  const Model box = lyingBox();
  Eigen::VectorXd q = neutralConfiguration(box);
  q(2) = 0.05;
  Data data(box);
  const std::vector<ContactPoint> corners = boxSoleCorners(box, data, q, 0, Vector3::UnitZ(), 0.5);
  ASSERT_EQ(corners.size(), 4u);
  for (const ContactPoint& c : corners) {
    EXPECT_NEAR(c.p_LC.z(), -0.05, 1e-15);
    EXPECT_NEAR(std::abs(c.p_LC.x()), 0.1, 1e-15);
    EXPECT_NEAR(std::abs(c.p_LC.y()), 0.2, 1e-15);
  }
  for (FloatingBaseSolver solver : {FloatingBaseSolver::Projected, FloatingBaseSolver::Qp}) {
    SCOPED_TRACE(toString(solver));
    FloatingBaseController controller(box, solver);
    controller.setSetPoint(q);
    controller.setContacts(corners);
    const Eigen::VectorXd& tau = controller.compute(0.0, q, Eigen::VectorXd::Zero(6));
    EXPECT_EQ(controller.status(), FloatingBaseStatus::Ok) << controller.message();
    EXPECT_TRUE(tau.isZero(0.0));
    EXPECT_LT(controller.acceleration().cwiseAbs().maxCoeff(), 1e-6);
    double total = 0.0;
    for (int i = 0; i < 4; ++i) total += controller.contactForces()(3 * i + 2);
    EXPECT_NEAR(total, 2.0 * 9.81, 1e-6);
  }
}

// A sole on a fixed child link merged into its parent: found through the child's frame.
TEST(ContactFrames, SoleOfAMergedLink) {
  ModelBuilder b("foot");
  b.addLink("shin", 1.0, Vector3::Zero(), Matrix3::Identity() * 0.01);
  LinkDescription sole;
  sole.name = "sole";
  GeometryInstance box;
  box.geometry.type = Geometry::Type::Box;
  box.geometry.box_size = Vector3(0.3, 0.1, 0.02);
  sole.collisions.push_back(box);
  b.addLink(sole);
  Transform X_PJ = Transform::Identity();
  X_PJ.translation() = Vector3(0.05, 0.0, -0.4);
  b.addFixed("ankle", "shin", "sole", X_PJ);
  ModelOptions options;
  options.floating_base = true;
  const Model model = b.build(options);
  ASSERT_EQ(model.numLinks(), 1);
  Data data(model);
  const std::vector<ContactPoint> corners =
      boxSoleCorners(model, data, neutralConfiguration(model), 0, Vector3::UnitZ(), 0.5);
  ASSERT_EQ(corners.size(), 4u);
  for (const ContactPoint& c : corners) {
    EXPECT_NEAR(c.p_LC.z(), -0.41, 1e-15);
    EXPECT_NEAR(std::abs(c.p_LC.x() - 0.05), 0.15, 1e-15);
    EXPECT_NEAR(std::abs(c.p_LC.y()), 0.05, 1e-15);
  }
}

// What the last compute() reports stays with its contacts when new ones are set.
TEST(FloatingBaseController, ReportsTheContactsItSolvedFor) {
  const Standing s;
  FloatingBaseController controller = standingController(s, FloatingBaseSolver::Qp);
  controller.compute(0.0, s.q, Eigen::VectorXd::Zero(s.model.nv));
  const double violation = controller.contactForceViolation();
  std::vector<ContactPoint> more = s.soles;
  more.insert(more.end(), s.soles.begin(), s.soles.end());
  controller.setContacts(more);
  EXPECT_EQ(controller.contactForces().size(), 24);
  EXPECT_EQ(controller.contactForceViolation(), violation);
}

// An end-effector task: the right wrist toward a pose 10 cm away. With a heavy weight the
// accelerations realize the task's desired acceleration (J a + dJ v = xdd*) where without the
// task they do not; ABA still gives back the accelerations from the torques and forces.
TEST(FloatingBaseController, EndEffectorTask) {
  const Standing s;
  const Frame& wrist = s.model.frames[s.model.frameIndex("right_wrist")];
  const Eigen::VectorXd q = perturbed(s.model, s.q, 31);
  const Eigen::VectorXd v = randomVector(s.model.nv, 32, 0.2);
  Data data(s.model);
  forwardKinematics(s.model, data, q);
  TaskReference target;
  target.X_WF = framePose(s.model, data, wrist.link, wrist.X_BF);
  target.X_WF.translation() += Vector3(0.0, 0.1, 0.1);
  // The desired acceleration of the frame at (q, v), computed here as the task defines it.
  computeJointJacobians(s.model, data, q);
  Eigen::MatrixXd J(6, s.model.nv);
  frameJacobian(s.model, data, wrist.link, wrist.X_BF, ReferenceFrame::LocalWorldAligned, J);
  const Transform X_WF = framePose(s.model, data, wrist.link, wrist.X_BF);
  Vector6 e;
  e.head<3>() = rotationToExpMap(target.X_WF.rotation() * X_WF.rotation().transpose());
  e.tail<3>() = target.X_WF.translation() - X_WF.translation();
  const Vector6 xdd = 100.0 * e - 20.0 * (J * v);
  const Vector6 dJ_v = frameJacobianDotTimesV(s.model, data, q, v, wrist.link, wrist.X_BF,
                                              ReferenceFrame::LocalWorldAligned)
                           .vector();
  double residual[2];
  for (int with_task = 0; with_task < 2; ++with_task) {
    FloatingBaseController controller = standingController(s, FloatingBaseSolver::Qp);
    if (with_task == 1) {
      controller.setFrameTarget(controller.addFrameTask(wrist.link, wrist.X_BF, 1e4), target);
    }
    controller.compute(0.0, q, v);
    ASSERT_EQ(controller.status(), FloatingBaseStatus::Ok) << controller.message();
    residual[with_task] = (J * controller.acceleration() + dJ_v - xdd).norm() / xdd.norm();
    const Eigen::VectorXd a = forwardDynamics(s.model, q, v, controller);
    EXPECT_LT((a - controller.acceleration()).cwiseAbs().maxCoeff(), 1e-8);
  }
  EXPECT_GT(residual[0], 0.5);
  EXPECT_LT(residual[1], 1e-2);
  FloatingBaseController controller(s.model, FloatingBaseSolver::Qp);
  EXPECT_THROW(controller.addFrameTask(-1, wrist.X_BF, 1.0), InvalidArgumentError);
  EXPECT_THROW(controller.addFrameTask(wrist.link, wrist.X_BF, -1.0), InvalidArgumentError);
  const int task = controller.addFrameTask(wrist.link, wrist.X_BF, 1.0);
  TaskReference bad = target;
  bad.X_WF.rotation() *= 2.0;
  EXPECT_THROW(controller.setFrameTarget(task, bad), InvalidArgumentError);
  EXPECT_THROW(controller.setFrameTarget(task + 1, target), InvalidArgumentError);
}

// Friction too low for what the tasks ask (none at all): the QP stays feasible, its forces
// exactly normal, the torques finite and consistent.
TEST(FloatingBaseController, FrictionlessContactsGiveNormalForces) {
  const Standing s(0.0);
  const double weight = s.model.totalMass() * 9.81;
  FloatingBaseController controller = standingController(s, FloatingBaseSolver::Qp);
  const Eigen::VectorXd q = perturbed(s.model, s.q, 41);
  const Eigen::VectorXd v = randomVector(s.model.nv, 42, 0.3);
  controller.compute(0.0, q, v);
  EXPECT_EQ(controller.status(), FloatingBaseStatus::Ok) << controller.message();
  EXPECT_TRUE(controller.torque().allFinite());
  for (std::size_t i = 0; i < s.soles.size(); ++i) {
    const Vector3 f = controller.contactForces().segment<3>(3 * i);
    EXPECT_LT((f - f.dot(s.soles[i].n_W) * s.soles[i].n_W).norm(), 1e-9 * weight);
    EXPECT_GT(f.dot(s.soles[i].n_W), -1e-9 * weight);
  }
  const Eigen::VectorXd a = forwardDynamics(s.model, q, v, controller);
  EXPECT_LT((a - controller.acceleration()).cwiseAbs().maxCoeff(), 1e-8);
}

// A QP stopped by its step bound: the projected solver's torques, with the QP's message.
TEST(FloatingBaseController, QpPastItsStepBoundFallsBackToTheProjectedSolver) {
  const Standing s;
  FloatingBaseGains gains;
  gains.qp_max_iterations = 1;
  FloatingBaseController bounded(s.model, FloatingBaseSolver::Qp, gains);
  FloatingBaseController projected(s.model, FloatingBaseSolver::Projected);
  const Eigen::VectorXd q = perturbed(s.model, s.q, 11);
  const Eigen::VectorXd v = randomVector(s.model.nv, 12, 0.3);
  for (FloatingBaseController* c : {&bounded, &projected}) {
    c->setSetPoint(s.q);
    c->setContacts(s.soles);
    c->compute(0.0, q, v);
  }
  EXPECT_EQ(bounded.status(), FloatingBaseStatus::QpFailed);
  EXPECT_NE(bounded.message().find("iteration limit"), std::string::npos) << bounded.message();
  EXPECT_NE(bounded.message().find("projected solver's torques"), std::string::npos);
  EXPECT_EQ(projected.status(), FloatingBaseStatus::Ok);
  EXPECT_LT((bounded.torque() - projected.torque()).cwiseAbs().maxCoeff(),
            1e-12 * projected.torque().cwiseAbs().maxCoeff());
  EXPECT_TRUE(bounded.contactForces().isApprox(projected.contactForces(), 1e-12));
}

TEST(FloatingBaseController, RejectsBadInput) {
  const Standing s;
  const Model fixed = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  EXPECT_THROW(FloatingBaseController(fixed, FloatingBaseSolver::Qp), InvalidArgumentError);
  FloatingBaseGains gains;
  gains.pyramid_sides = 6;
  EXPECT_THROW(FloatingBaseController(s.model, FloatingBaseSolver::Qp, gains),
               InvalidArgumentError);
  gains = {};
  gains.force_weight = 0.0;
  EXPECT_THROW(FloatingBaseController(s.model, FloatingBaseSolver::Qp, gains),
               InvalidArgumentError);
  gains = {};
  gains.qp_max_iterations = -1;
  EXPECT_THROW(FloatingBaseController(s.model, FloatingBaseSolver::Qp, gains),
               InvalidArgumentError);
  gains = {};
  gains.com_stiffness = -1.0;
  EXPECT_THROW(FloatingBaseController(s.model, FloatingBaseSolver::Qp, gains),
               InvalidArgumentError);
  FloatingBaseController controller(s.model, FloatingBaseSolver::Qp);
  controller.setContacts(s.soles);
  using Spoil = void (*)(ContactPoint&);
  for (Spoil bad : std::initializer_list<Spoil>{
           [](ContactPoint& c) { c.link = 99; }, [](ContactPoint& c) { c.n_W = Vector3(0, 0, 2); },
           [](ContactPoint& c) { c.friction = -0.1; }, [](ContactPoint& c) { c.p_LC.x() = NAN; }}) {
    std::vector<ContactPoint> contacts = s.soles;
    bad(contacts[3]);
    try {
      controller.setContacts(contacts);
      ADD_FAILURE() << "accepted a bad contact";
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("contact 3"), std::string::npos) << e.what();
    }
    EXPECT_EQ(controller.contacts().size(), s.soles.size());  // unchanged
  }
}

/// The joint dofs that belong to revolute joints, where q and v add as numbers.
std::vector<int> revoluteDofs(const Model& model) {
  std::vector<int> dofs;
  for (const Joint& joint : model.joints) {
    if (joint.type == JointType::Revolute) dofs.push_back(joint.idx_v);
  }
  return dofs;
}

TEST(FloatingBaseController, AimAtStepEndAccumulatesWhatTheSimulatorLeftUndone) {
  const Standing s;
  const double h = 1.0 / 240.0;
  FloatingBaseController controller = standingController(s, FloatingBaseSolver::Qp);
  EXPECT_EQ(controller.stepAim(), 0.0);
  const Eigen::VectorXd q = perturbed(s.model, s.q, 3);
  const Eigen::VectorXd v = randomVector(s.model.nv, 103, 0.2);
  // Without the aim, no target accelerations (the plugin's motors aim at ABA of the torques).
  controller.compute(0.0, q, v);
  EXPECT_EQ(controller.targetAcceleration(), nullptr);
  EXPECT_TRUE(controller.planLag().isZero(0.0));

  controller.aimAtStepEnd(h);
  EXPECT_EQ(controller.stepAim(), h);
  EXPECT_EQ(controller.maxPlanLag(), FloatingBaseController::kDefaultMaxPlanLag);
  // First run: the plan starts at q and advances one substep, so the aim is the plan's own
  // acceleration. Round-off: a configuration's (1e-16) over h^2 (1.7e-5 s^2).
  controller.compute(0.0, q, v);
  const Eigen::VectorXd a1 = controller.acceleration();
  const Eigen::VectorXd& target = *controller.targetAcceleration();
  EXPECT_TRUE(target.head<6>().isApprox(a1.head<6>(), 0.0));
  EXPECT_TRUE(controller.planLag().head<6>().isZero(0.0));
  EXPECT_LT((target - a1).cwiseAbs().maxCoeff(), 1e-8);
  // Second run from the same state (the simulator moved nothing): the lag holds both substeps'
  // planned motion, and the aim asks for all of it, on revolute joints as plain sums.
  controller.compute(h, q, v);
  const Eigen::VectorXd a2 = controller.acceleration();
  const std::vector<int> revolute = revoluteDofs(s.model);
  ASSERT_FALSE(revolute.empty());
  for (int i : revolute) {
    const double lag = h * (v(i) + h * a1(i)) + h * (v(i) + h * a2(i));
    EXPECT_NEAR(controller.planLag()(i), lag, 1e-14) << "dof " << i;
    EXPECT_NEAR(target(i), lag / (h * h) - v(i) / h, 1e-8) << "dof " << i;
  }
  // On every joint, balls included: the lag is where two planned substeps put q.
  const Eigen::VectorXd q_plan =
      integrate(s.model, integrate(s.model, q, v + h * a1, h), v + h * a2, h);
  Eigen::VectorXd lag = difference(s.model, q, q_plan);
  lag.head<6>().setZero();
  EXPECT_LT((controller.planLag() - lag).cwiseAbs().maxCoeff(), 1e-12);

  // Time that does not advance starts the plan again at the measured q.
  controller.compute(h, q, v);
  EXPECT_LT((*controller.targetAcceleration() - controller.acceleration()).cwiseAbs().maxCoeff(),
            1e-8);
  // The lag bound: runs that the simulator never follows end at the bound, not beyond.
  const double bound = 1e-4;
  controller.aimAtStepEnd(h, bound);
  for (int k = 0; k < 20; ++k) controller.compute(k * h, q, v);
  EXPECT_LE(controller.planLag().cwiseAbs().maxCoeff(), bound * (1.0 + 1e-12));
  EXPECT_NEAR(controller.planLag().cwiseAbs().maxCoeff(), bound, 1e-12);
  // h = 0: no aim again.
  controller.aimAtStepEnd(0.0);
  controller.compute(21 * h, q, v);
  EXPECT_EQ(controller.targetAcceleration(), nullptr);
  EXPECT_TRUE(controller.planLag().isZero(0.0));
}

TEST(FloatingBaseController, AimAtStepEndRejectsBadSteps) {
  const Standing s;
  FloatingBaseController controller = standingController(s, FloatingBaseSolver::Qp);
  controller.aimAtStepEnd(0.01, 0.1);
  for (const auto& [h, max_lag] : {std::pair{-1.0, 0.1}, std::pair{double(NAN), 0.1},
                                   std::pair{0.01, -0.1}, std::pair{0.01, double(INFINITY)}}) {
    EXPECT_THROW(controller.aimAtStepEnd(h, max_lag), InvalidArgumentError);
    EXPECT_EQ(controller.stepAim(), 0.01);
    EXPECT_EQ(controller.maxPlanLag(), 0.1);
  }
}

TEST(SupportPolygon, HullDistanceAndNearestPoint) {
  SupportPolygon polygon;
  // A 2 x 1 rectangle seen from above (z up), with points inside and repeated.
  polygon.fit({{0, 0, 0}, {2, 0, 0.1}, {2, 1, 0}, {0, 1, 0}, {1, 0.5, 0}, {2, 1, 0}},
              Vector3::UnitZ());
  EXPECT_EQ(polygon.vertices().size(), 4u);
  EXPECT_EQ(polygon.distanceOutside({1.0, 0.5, 3.0}), 0.0);
  EXPECT_NEAR(polygon.distanceOutside({3.0, 0.5, 0.0}), 1.0, 1e-15);
  EXPECT_NEAR(polygon.distanceOutside({3.0, 2.0, 0.0}), std::sqrt(2.0), 1e-15);
  EXPECT_TRUE(polygon.nearest({3.0, 2.0, 5.0}).isApprox(Vector3(2.0, 1.0, 5.0), 1e-15));
  EXPECT_TRUE(polygon.nearest({1.5, 0.2, 0.0}).isApprox(Vector3(1.5, 0.2, 0.0), 1e-15));
  // The corners in world coordinates: the rectangle's, counter-clockwise seen from above.
  const std::vector<Vector3> corners = polygon.verticesInWorld();
  ASSERT_EQ(corners.size(), 4u);
  double twice_area = 0.0;
  for (std::size_t i = 0; i < corners.size(); ++i) {
    const Vector3& a = corners[i];
    const Vector3& b = corners[(i + 1) % corners.size()];
    twice_area += a.x() * b.y() - b.x() * a.y();
    EXPECT_EQ(a.z(), 0.0);
    EXPECT_NEAR(std::min(std::abs(a.x()), std::abs(a.x() - 2.0)), 0.0, 1e-15);
    EXPECT_NEAR(std::min(std::abs(a.y()), std::abs(a.y() - 1.0)), 0.0, 1e-15);
  }
  EXPECT_NEAR(twice_area, 4.0, 1e-14);
  // y up: the plane is x-z.
  polygon.fit({{0, 5, 0}, {1, 0, 0}, {0, 0, 1}}, Vector3::UnitY());
  EXPECT_EQ(polygon.vertices().size(), 3u);
  EXPECT_EQ(polygon.distanceOutside({0.2, -3.0, 0.2}), 0.0);
  EXPECT_NEAR(polygon.distanceOutside({-1.0, 0.0, 0.5}), 1.0, 1e-15);
  // A segment and a point.
  polygon.fit({{0, 0, 0}, {1, 0, 0}, {0.5, 0, 0}}, Vector3::UnitZ());
  EXPECT_EQ(polygon.vertices().size(), 2u);
  EXPECT_NEAR(polygon.distanceOutside({0.5, 0.3, 0.0}), 0.3, 1e-15);
  polygon.fit({{1, 2, 3}, {1, 2, 3}}, Vector3::UnitZ());
  EXPECT_EQ(polygon.vertices().size(), 1u);
  EXPECT_NEAR(polygon.distanceOutside({1, 3, 0}), 1.0, 1e-15);
  polygon.fit({}, Vector3::UnitZ());
  EXPECT_TRUE(polygon.empty());
  EXPECT_THROW(polygon.fit({{0, 0, 0}}, Vector3(0, 0, 2)), InvalidArgumentError);
  EXPECT_THROW(polygon.fit({{NAN, 0, 0}}, Vector3::UnitZ()), InvalidArgumentError);
}

TEST(ContactFrames, DeclaredPointsSwitchedOnAndOff) {
  const Standing s(0.6);
  // The soles' corners lie on the ground.
  Data data(s.model);
  forwardKinematics(s.model, data, s.q);
  for (const ContactPoint& c : s.soles) {
    EXPECT_NEAR(data.X_WB[c.link].actPoint(c.p_LC).z(), 0.0, 1e-4);
    EXPECT_EQ(c.friction, 0.6);
  }
  ContactFrames frames(s.model);
  for (std::size_t i = 0; i < s.soles.size(); ++i) {
    EXPECT_EQ(frames.add("corner" + std::to_string(i), s.soles[i]), static_cast<int>(i));
  }
  EXPECT_EQ(frames.active().size(), 8u);
  const int left = s.model.linkIndex("left_ankle");
  frames.setLinkActive(left, false);
  EXPECT_EQ(frames.active().size(), 4u);
  for (const ContactPoint& c : frames.active()) EXPECT_NE(c.link, left);
  frames.setActive("corner0", true);
  frames.setActive(7, false);
  EXPECT_EQ(frames.active().size(), 4u);
  EXPECT_TRUE(frames.isActive(0));
  EXPECT_FALSE(frames.isActive(7));
  EXPECT_TRUE(frames.declares(left));
  EXPECT_FALSE(frames.declares(0));
  EXPECT_THROW(frames.add("corner0", s.soles[0]), InvalidArgumentError);
  EXPECT_THROW(frames.setActive("heel", true), InvalidArgumentError);
  EXPECT_THROW(frames.setActive(8, true), InvalidArgumentError);
  using Spoil = void (*)(ContactPoint&);
  for (Spoil spoil : std::initializer_list<Spoil>{[](ContactPoint& c) { c.n_W = Vector3(1, 1, 0); },
                                                  [](ContactPoint& c) { c.link = -1; },
                                                  [](ContactPoint& c) { c.p_LC.y() = NAN; },
                                                  [](ContactPoint& c) { c.friction = INFINITY; }}) {
    ContactPoint bad = s.soles[0];
    spoil(bad);
    EXPECT_THROW(frames.add("bad", bad), InvalidArgumentError);
  }
  EXPECT_THROW(frames.setLinkActive(s.model.numLinks(), true), InvalidArgumentError);
  EXPECT_EQ(frames.size(), 8);
  EXPECT_EQ(frames.active().size(), 4u);
  // A link without a box shape has no sole.
  EXPECT_THROW(
      boxSoleCorners(s.model, data, s.q, s.model.linkIndex("chest"), Vector3::UnitZ(), 0.5),
      InvalidArgumentError);
}

}  // namespace
}  // namespace gcbridge
