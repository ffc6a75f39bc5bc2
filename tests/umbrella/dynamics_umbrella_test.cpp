// gcbridge/dynamics.hpp alone gives the whole library: this file includes nothing else of
// gcbridge and calls one function of every public header behind it, on the KUKA iiwa.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <gcbridge/dynamics.hpp>

namespace gcbridge {
namespace {

Model iiwa() { return loadUrdf(std::string(GCBRIDGE_MODELS_DIR) + "/kuka_iiwa/model.urdf"); }

// The algorithms (rnea.hpp, crba.hpp, aba.hpp) agree: M a + h = tau and ABA gives a back.
TEST(DynamicsUmbrella, AlgorithmsAgree) {
  const Model model = iiwa();  // urdf.hpp, model.hpp
  Data data(model);
  const Eigen::VectorXd q = randomConfiguration(model, 1);  // configuration.hpp
  const Eigen::VectorXd v = randomVector(model.nv, 2);
  const Eigen::VectorXd a = randomVector(model.nv, 3);
  const Eigen::VectorXd tau = rnea(model, data, q, v, a);
  const Eigen::MatrixXd M = crba(model, data, q);
  const Eigen::VectorXd h = nonLinearEffects(model, data, q, v);
  EXPECT_LT((M * a + h - tau).norm(), 1e-9 * (1.0 + tau.norm()));
  EXPECT_LT((aba(model, data, q, v, tau) - a).norm(), 1e-9 * (1.0 + a.norm()));
  // reference_dynamics.hpp: the literal formula gives the same M.
  EXPECT_LT((reference::massMatrix(model, q) - M).norm(), 1e-9 * M.norm());
}

// One call into each remaining header.
TEST(DynamicsUmbrella, EveryHeaderIsReachable) {
  ModelBuilder builder("pendulum");  // model_builder.hpp, description.hpp
  builder.addLink("base", 0.0, Vector3::Zero(), Matrix3::Zero());
  builder.addLink("bob", 1.0, Vector3(0, 0, -1), 0.01 * Matrix3::Identity());
  builder.addRevolute("hinge", "base", "bob", Transform::Identity(), Vector3::UnitY());
  EXPECT_EQ(builder.build().nv, 1);

  const Model model = iiwa();
  Data data(model);
  const Eigen::VectorXd q = randomConfiguration(model, 4);
  const Eigen::VectorXd v = randomVector(model.nv, 5);
  forwardKinematics(model, data, q);                                   // kinematics.hpp
  computeJointJacobians(model, data, q);                               // jacobians.hpp
  Eigen::MatrixXd J(6, model.nv);
  frameJacobian(model, data, model.numLinks() - 1, Transform::Identity(), ReferenceFrame::World, J);
  Eigen::MatrixXd A_G(6, model.nv);
  centroidalMomentumMatrix(model, data, q, A_G);                       // centroidal.hpp
  rneaDerivatives(model, data, q, v, Eigen::VectorXd::Zero(model.nv));  // derivatives.hpp
  EXPECT_TRUE(data.dtau_dq.allFinite());
  EXPECT_GT(computeKineticEnergy(model, data, q, v), 0.0);             // energy.hpp
  const TaskSpaceTerms terms = computeTaskSpaceTerms(                  // task_space.hpp
      model, data, q, v, model.numLinks() - 1, Transform::Identity(), 1e-6);
  EXPECT_TRUE(terms.Lambda.allFinite());
  const std::vector<ContactPoint> contacts{{model.numLinks() - 1, Vector3::Zero(), Vector3::UnitZ(),
                                            0.5}};
  Eigen::MatrixXd J_c(3, model.nv);
  contactJacobian(model, data, q, contacts, J_c);                      // contacts.hpp
  IntegratorWorkspace ws(model);                                       // integrators.hpp
  Eigen::VectorXd q1 = q, v1 = v;
  semiImplicitEulerStep(model, ws, 0.0, q1, v1, 1e-3);
  EXPECT_TRUE(q1.allFinite());
  EXPECT_NEAR(quaternionLog(quaternionExp(Vector3(0.1, 0.2, 0.3))).norm(),  // lie_group.hpp
              Vector3(0.1, 0.2, 0.3).norm(), 1e-15);
  EXPECT_STREQ(toString(JointType::Revolute), "revolute");            // joint.hpp
  EXPECT_DOUBLE_EQ(skew(Vector3(1, 2, 3))(0, 1), -3.0);                // spatial.hpp
  EXPECT_THROW(validateVelocity(model, Eigen::VectorXd::Zero(1)), InvalidArgumentError);  // errors.hpp
}

}  // namespace
}  // namespace gcbridge
