#include "gcbridge/dynamics/contacts.hpp"

#include <string>

#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/kinematics.hpp"

namespace gcbridge {
namespace {

/// @throws InvalidArgumentError naming `function` for a contact whose link or point is bad.
void checkContacts(const Model& model, const std::vector<ContactPoint>& contacts,
                   const char* function) {
  for (std::size_t i = 0; i < contacts.size(); ++i) {
    const ContactPoint& c = contacts[i];
    if (c.link < 0 || c.link >= model.numLinks() || !c.p_LC.allFinite()) {
      throw InvalidArgumentError(std::string(function) + ": contact " + std::to_string(i) +
                                 " has link " + std::to_string(c.link) + " (the model has " +
                                 std::to_string(model.numLinks()) +
                                 ") or a point that is not finite");
    }
  }
}

}  // namespace

void contactJacobian(const Model& model, Data& data, const ConstVectorRef& q,
                     const std::vector<ContactPoint>& contacts, Eigen::Ref<Eigen::MatrixXd> J_c) {
  checkData(model, data, "contactJacobian");
  checkContacts(model, contacts, "contactJacobian");
  const Eigen::Index rows = 3 * static_cast<Eigen::Index>(contacts.size());
  if (J_c.rows() != rows || J_c.cols() != model.nv) {
    throw InvalidArgumentError("contactJacobian: J_c is " + std::to_string(J_c.rows()) + " x " +
                               std::to_string(J_c.cols()) + ", expected " +
                               std::to_string(rows) + " x " + std::to_string(model.nv));
  }
  computeJointJacobians(model, data, q);
  J_c.setZero();
  for (std::size_t i = 0; i < contacts.size(); ++i) {
    const ContactPoint& c = contacts[i];
    const Vector3 p_WC = data.X_WB[c.link].actPoint(c.p_LC);
    // The dofs that move the link: those of its ancestors (and its own), whose subtree holds it.
    for (int j = 0; j < model.nv; ++j) {
      const int k = model.dof_link[j];
      if (c.link < k || c.link >= model.subtree_end[k]) continue;
      // The point's velocity from dof j at unit rate: v_O + omega x p (J_W is about the origin).
      J_c.block<3, 1>(3 * i, j) =
          data.J_W.col(j).tail<3>() + data.J_W.col(j).head<3>().cross(p_WC);
    }
  }
}

void contactJacobianTimeVariation(const Model& model, Data& data, const ConstVectorRef& q,
                                  const ConstVectorRef& v,
                                  const std::vector<ContactPoint>& contacts,
                                  Eigen::Ref<Eigen::VectorXd> dJ_c_v) {
  checkData(model, data, "contactJacobianTimeVariation");
  checkContacts(model, contacts, "contactJacobianTimeVariation");
  if (dJ_c_v.size() != 3 * static_cast<Eigen::Index>(contacts.size())) {
    throw InvalidArgumentError("contactJacobianTimeVariation: dJ_c_v has " +
                               std::to_string(dJ_c_v.size()) + " entries, expected " +
                               std::to_string(3 * contacts.size()));
  }
  forwardKinematics(model, data, q, v, data.zero_v);
  for (std::size_t i = 0; i < contacts.size(); ++i) {
    const ContactPoint& c = contacts[i];
    const Transform X_BC(Matrix3::Identity(), c.p_LC);
    dJ_c_v.segment<3>(3 * i) =
        frameClassicalAcceleration(model, data, c.link, X_BC, ReferenceFrame::LocalWorldAligned)
            .linear();
  }
}

}  // namespace gcbridge
