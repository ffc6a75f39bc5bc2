#include "gcbridge/dynamics/contacts.hpp"

#include <algorithm>
#include <cmath>
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

/// @throws InvalidArgumentError unless J_c is 3 contacts x nv.
void checkContactJacobianSize(const Model& model, const std::vector<ContactPoint>& contacts,
                              const Eigen::Ref<Eigen::MatrixXd>& J_c) {
  const Eigen::Index rows = 3 * static_cast<Eigen::Index>(contacts.size());
  if (J_c.rows() != rows || J_c.cols() != model.nv) {
    throw InvalidArgumentError("contactJacobian: J_c is " + std::to_string(J_c.rows()) + " x " +
                               std::to_string(J_c.cols()) + ", expected " + std::to_string(rows) +
                               " x " + std::to_string(model.nv));
  }
}

/// @throws InvalidArgumentError unless dJ_c_v has 3 entries per contact.
void checkTimeVariationSize(const std::vector<ContactPoint>& contacts,
                            const Eigen::Ref<Eigen::VectorXd>& dJ_c_v) {
  if (dJ_c_v.size() != 3 * static_cast<Eigen::Index>(contacts.size())) {
    throw InvalidArgumentError("contactJacobianTimeVariation: dJ_c_v has " +
                               std::to_string(dJ_c_v.size()) + " entries, expected " +
                               std::to_string(3 * contacts.size()));
  }
}

/// A contact normal: a unit vector to 1e-6 (as single-precision Bullet gives them).
bool isUnitNormal(const Vector3& n_W) {
  return n_W.allFinite() && std::abs(n_W.norm() - 1.0) <= 1e-6;
}

/// A Coulomb coefficient: finite and not negative.
bool isFriction(double friction) { return std::isfinite(friction) && friction >= 0.0; }

/// "(x, y, z)".
std::string text(const Vector3& v) {
  return "(" + std::to_string(v.x()) + ", " + std::to_string(v.y()) + ", " + std::to_string(v.z()) +
         ")";
}

/// @throws InvalidArgumentError naming `where` for a normal that is not a unit vector or a
///   friction that is negative or not finite.
void checkNormalAndFriction(const Vector3& n_W, double friction, const std::string& where) {
  if (!isUnitNormal(n_W)) {
    throw InvalidArgumentError(where + ": the normal " + text(n_W) + " is not a unit vector");
  }
  if (!isFriction(friction)) {
    throw InvalidArgumentError(where + ": friction " + std::to_string(friction) +
                               " is negative or not finite");
  }
}

}  // namespace

int ContactFrames::add(const std::string& name, const ContactPoint& point) {
  if (std::find(names_.begin(), names_.end(), name) != names_.end()) {
    throw InvalidArgumentError("ContactFrames::add: '" + name + "' is already declared");
  }
  checkContactPoint(*model_, point, ("ContactFrames::add: '" + name + "'").c_str());
  names_.push_back(name);
  points_.push_back(point);
  active_.push_back(1);
  collectActive();
  return size() - 1;
}

void ContactFrames::setActive(int index, bool active) {
  if (index < 0 || index >= size()) {
    throw InvalidArgumentError("ContactFrames::setActive: no point " + std::to_string(index) +
                               " (there are " + std::to_string(size()) + ")");
  }
  if ((active_[index] != 0) == active) return;
  active_[index] = active ? 1 : 0;
  collectActive();
}

void ContactFrames::setActive(const std::string& name, bool active) {
  const auto it = std::find(names_.begin(), names_.end(), name);
  if (it == names_.end()) {
    throw InvalidArgumentError("ContactFrames::setActive: no point is named '" + name + "'");
  }
  setActive(static_cast<int>(it - names_.begin()), active);
}

void ContactFrames::setLinkActive(int link, bool active) {
  if (link < 0 || link >= model_->numLinks()) {
    throw InvalidArgumentError("ContactFrames::setLinkActive: link " + std::to_string(link) +
                               " is not a link of the model (it has " +
                               std::to_string(model_->numLinks()) + ")");
  }
  bool changed = false;
  for (int i = 0; i < size(); ++i) {
    if (points_[i].link != link || (active_[i] != 0) == active) continue;
    active_[i] = active ? 1 : 0;
    changed = true;
  }
  if (changed) collectActive();
}

bool ContactFrames::declares(int link) const {
  return std::any_of(points_.begin(), points_.end(),
                     [link](const ContactPoint& p) { return p.link == link; });
}

void ContactFrames::collectActive() {
  active_points_.clear();
  for (int i = 0; i < size(); ++i) {
    if (active_[i] != 0) active_points_.push_back(points_[i]);
  }
}

std::vector<ContactPoint> boxSoleCorners(const Model& model, Data& data, const ConstVectorRef& q,
                                         int link, const Vector3& n_W, double friction) {
  if (link < 0 || link >= model.numLinks()) {
    throw InvalidArgumentError("boxSoleCorners: link " + std::to_string(link) +
                               " is not a link of the model (it has " +
                               std::to_string(model.numLinks()) + ")");
  }
  checkNormalAndFriction(n_W, friction, "boxSoleCorners");
  // The link's first box, in its own description link or one merged into it (frame X_BF).
  const GeometryInstance* box = nullptr;
  Transform X_LG = Transform::Identity();
  for (std::size_t i = 0; model.description && box == nullptr && i < model.frames.size(); ++i) {
    if (model.frames[i].link != link) continue;
    for (const GeometryInstance& g : model.description->links[i].collisions) {
      if (g.geometry.type != Geometry::Type::Box) continue;
      box = &g;
      X_LG = model.frames[i].X_BF * g.X_LG;
      break;
    }
  }
  if (box == nullptr) {
    throw InvalidArgumentError("boxSoleCorners: link '" + model.link_names[link] +
                               "' has no box collision shape");
  }
  forwardKinematics(model, data, q);
  // The ground's normal in the box's frame G: the sole is the face along -n.
  const Matrix3 R_WG = data.X_WB[link].rotation() * X_LG.rotation();
  const Vector3 n_G = R_WG.transpose() * n_W;
  int axis = 0;
  n_G.cwiseAbs().maxCoeff(&axis);
  const Vector3 half = 0.5 * box->geometry.box_size;
  const double side = n_G(axis) > 0.0 ? -1.0 : 1.0;
  const int u = (axis + 1) % 3, w = (axis + 2) % 3;
  std::vector<ContactPoint> corners;
  for (double su : {-1.0, 1.0}) {
    for (double sw : {-1.0, 1.0}) {
      Vector3 p_G;
      p_G(axis) = side * half(axis);
      p_G(u) = su * half(u);
      p_G(w) = sw * half(w);
      corners.push_back({link, X_LG.actPoint(p_G), n_W, friction});
    }
  }
  return corners;
}

void checkContactPoint(const Model& model, const ContactPoint& point, const char* where) {
  if (point.link < 0 || point.link >= model.numLinks()) {
    throw InvalidArgumentError(std::string(where) + ": link " + std::to_string(point.link) +
                               " is not a link of the model (it has " +
                               std::to_string(model.numLinks()) + ")");
  }
  if (point.p_LC.allFinite() && isUnitNormal(point.n_W) && isFriction(point.friction)) return;
  const std::string on_link =
      std::string(where) + " on link '" + model.link_names[point.link] + "'";
  if (!point.p_LC.allFinite()) throw InvalidArgumentError(on_link + ": the point is not finite");
  checkNormalAndFriction(point.n_W, point.friction, on_link);
}

void contactJacobian(const Model& model, Data& data, const ConstVectorRef& q,
                     const std::vector<ContactPoint>& contacts, Eigen::Ref<Eigen::MatrixXd> J_c) {
  checkData(model, data, "contactJacobian");
  checkContacts(model, contacts, "contactJacobian");
  checkContactJacobianSize(model, contacts, J_c);
  computeJointJacobians(model, data, q);
  contactJacobian(model, static_cast<const Data&>(data), contacts, J_c);
}

void contactJacobian(const Model& model, const Data& data,
                     const std::vector<ContactPoint>& contacts, Eigen::Ref<Eigen::MatrixXd> J_c) {
  checkData(model, data, "contactJacobian");
  checkContacts(model, contacts, "contactJacobian");
  checkContactJacobianSize(model, contacts, J_c);
  J_c.setZero();
  for (std::size_t i = 0; i < contacts.size(); ++i) {
    const ContactPoint& c = contacts[i];
    const Vector3 p_WC = data.X_WB[c.link].actPoint(c.p_LC);
    // The dofs that move the link: those of its ancestors (and its own), whose subtree holds it.
    for (int j = 0; j < model.nv; ++j) {
      const int k = model.dof_link[j];
      if (c.link < k || c.link >= model.subtree_end[k]) continue;
      // The point's velocity from dof j at unit rate: v_O + omega x p (J_W is about the origin).
      J_c.block<3, 1>(3 * i, j) = data.J_W.col(j).tail<3>() + data.J_W.col(j).head<3>().cross(p_WC);
    }
  }
}

void contactJacobianTimeVariation(const Model& model, Data& data, const ConstVectorRef& q,
                                  const ConstVectorRef& v,
                                  const std::vector<ContactPoint>& contacts,
                                  Eigen::Ref<Eigen::VectorXd> dJ_c_v) {
  checkData(model, data, "contactJacobianTimeVariation");
  checkContacts(model, contacts, "contactJacobianTimeVariation");
  checkTimeVariationSize(contacts, dJ_c_v);
  forwardKinematics(model, data, q, v, data.zero_v);
  contactJacobianTimeVariation(model, static_cast<const Data&>(data), contacts, dJ_c_v);
}

void contactJacobianTimeVariation(const Model& model, const Data& data,
                                  const std::vector<ContactPoint>& contacts,
                                  Eigen::Ref<Eigen::VectorXd> dJ_c_v) {
  checkData(model, data, "contactJacobianTimeVariation");
  checkContacts(model, contacts, "contactJacobianTimeVariation");
  checkTimeVariationSize(contacts, dJ_c_v);
  for (std::size_t i = 0; i < contacts.size(); ++i) {
    const ContactPoint& c = contacts[i];
    const Transform X_BC(Matrix3::Identity(), c.p_LC);
    dJ_c_v.segment<3>(3 * i) =
        frameClassicalAcceleration(model, data, c.link, X_BC, ReferenceFrame::LocalWorldAligned)
            .linear();
  }
}

}  // namespace gcbridge
