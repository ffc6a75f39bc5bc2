// Contact Jacobians: J_c's rows against the point frames' Jacobians and against the points'
// motion along q (+) t v; dJ_c/dt v against frameJacobianDotTimesV and a finite difference of
// J_c v along the motion; both from a pass already run; bad contacts refused.

#include "gcbridge/dynamics/contacts.hpp"

#include <gtest/gtest.h>

#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;

// Three contacts on a random floating tree: two on one link, one on another.
std::vector<ContactPoint> someContacts(const Model& model) {
  const int last = model.numLinks() - 1;
  return {{last, Vector3(0.1, -0.2, 0.3), Vector3::UnitZ(), 0.8},
          {last, Vector3(-0.1, 0.05, 0.0), Vector3::UnitZ(), 0.8},
          {last / 2, Vector3(0.02, 0.0, -0.15), Vector3::UnitX(), 0.5}};
}

TEST(Contacts, JacobianRowsAreThePointsVelocities) {
  for (bool floating : {false, true}) {
    const Model model = test::randomTreeModel(95, 10, BallParametrization::Quaternion, floating);
    const std::vector<ContactPoint> contacts = someContacts(model);
    Data data(model);
    const Eigen::VectorXd q = randomConfiguration(model, 1), v = randomVector(model.nv, 2);
    Eigen::MatrixXd J_c(9, model.nv), J(6, model.nv);
    contactJacobian(model, data, q, contacts, J_c);
    for (int i = 0; i < 3; ++i) {
      const Transform X_BC(Matrix3::Identity(), contacts[i].p_LC);
      frameJacobian(model, data, contacts[i].link, X_BC, ReferenceFrame::LocalWorldAligned, J);
      EXPECT_TRUE(matricesNear(J_c.middleRows<3>(3 * i), J.bottomRows<3>(), 1e-14)) << i;
    }
    // J_c v is d/dt of the points' world positions along q (+) t v.
    const Eigen::VectorXd fd = test::fdDerivative(
        [&](double t) -> Eigen::VectorXd {
          forwardKinematics(model, data, integrate(model, q, v, t));
          Eigen::VectorXd p(9);
          for (int i = 0; i < 3; ++i) {
            p.segment<3>(3 * i) = data.X_WB[contacts[i].link].actPoint(contacts[i].p_LC);
          }
          return p;
        },
        1e-4);
    contactJacobian(model, data, q, contacts, J_c);
    EXPECT_TRUE(matricesNear(J_c * v, fd, 1e-9 * std::max(1.0, fd.norm())));
  }
}

TEST(Contacts, TimeVariationIsTheDerivativeOfJcV) {
  const Model model = test::randomTreeModel(96, 10, BallParametrization::Quaternion, true);
  const std::vector<ContactPoint> contacts = someContacts(model);
  Data data(model);
  const Eigen::VectorXd q = randomConfiguration(model, 3), v = randomVector(model.nv, 4);
  Eigen::VectorXd dJv(9);
  contactJacobianTimeVariation(model, data, q, v, contacts, dJv);
  for (int i = 0; i < 3; ++i) {
    const Transform X_BC(Matrix3::Identity(), contacts[i].p_LC);
    const Motion expected = frameJacobianDotTimesV(model, data, q, v, contacts[i].link, X_BC,
                                                   ReferenceFrame::LocalWorldAligned);
    EXPECT_TRUE(matricesNear(dJv.segment<3>(3 * i), Vector3(expected.linear()), 1e-12)) << i;
  }
  Eigen::MatrixXd J_c(9, model.nv);
  const Eigen::VectorXd fd = test::fdDerivative(
      [&](double t) -> Eigen::VectorXd {
        contactJacobian(model, data, integrate(model, q, v, t), contacts, J_c);
        return J_c * v;
      },
      1e-4);
  EXPECT_TRUE(matricesNear(dJv, fd, 1e-8 * std::max(1.0, fd.norm())));
}

// The overloads that read a pass already run give what the ones that run it give, bit for bit:
// J_c after computeJointJacobians(q), dJ_c v after forwardKinematics(q, v, 0); after a pass at
// another state they give that state's terms (they run no pass of their own).
TEST(Contacts, TermsFromAPassAlreadyRun) {
  const Model model = test::randomTreeModel(96, 10, BallParametrization::Quaternion, true);
  const std::vector<ContactPoint> contacts = someContacts(model);
  Data data(model), fresh(model);
  const Eigen::VectorXd q = randomConfiguration(model, 7), v = randomVector(model.nv, 8, 1.0);
  const Eigen::VectorXd q2 = randomConfiguration(model, 9);
  Eigen::MatrixXd J(9, model.nv), J_pass(9, model.nv), J2(9, model.nv);
  Eigen::VectorXd dJv(9), dJv_pass(9);
  contactJacobian(model, fresh, q, contacts, J);
  contactJacobianTimeVariation(model, fresh, q, v, contacts, dJv);
  computeJointJacobians(model, data, q);
  contactJacobian(model, data, contacts, J_pass);
  EXPECT_EQ(J_pass, J);
  forwardKinematics(model, data, q, v, data.zero_v);
  contactJacobianTimeVariation(model, data, contacts, dJv_pass);
  EXPECT_EQ(dJv_pass, dJv);
  computeJointJacobians(model, data, q2);
  contactJacobian(model, data, contacts, J_pass);
  contactJacobian(model, fresh, q2, contacts, J2);
  EXPECT_EQ(J_pass, J2);
  EXPECT_FALSE(matricesNear(J2, J, 1e-3));
  EXPECT_THROW(contactJacobian(model, data, contacts, J_pass.topRows(3)), InvalidArgumentError);
  EXPECT_THROW(contactJacobianTimeVariation(model, data, contacts, dJv_pass.head(3)),
               InvalidArgumentError);
}

TEST(Contacts, RefusesBadContactsAndSizes) {
  const Model model = test::randomTreeModel(97, 4, BallParametrization::Quaternion, false);
  Data data(model);
  const Eigen::VectorXd q = randomConfiguration(model, 1);
  Eigen::MatrixXd J_c(3, model.nv);
  EXPECT_THROW(contactJacobian(model, data, q, {{model.numLinks(), Vector3::Zero()}}, J_c),
               InvalidArgumentError);
  EXPECT_THROW(contactJacobian(model, data, q, {{0, Vector3(NAN, 0, 0)}}, J_c),
               InvalidArgumentError);
  Eigen::MatrixXd wrong(6, model.nv);
  EXPECT_THROW(contactJacobian(model, data, q, {{0, Vector3::Zero()}}, wrong),
               InvalidArgumentError);
  Eigen::VectorXd dJv(2);
  EXPECT_THROW(contactJacobianTimeVariation(model, data, q, Eigen::VectorXd::Zero(model.nv),
                                            {{0, Vector3::Zero()}}, dJv),
               InvalidArgumentError);
}

}  // namespace
}  // namespace gcbridge
