#pragma once
/// @file
/// Point contacts in generalized coordinates: where a model link touches something, the stacked
/// contact Jacobian J_c (3 rows per point: the point's velocity in world axes is J_c v) and
/// dJ_c/dt v (the points' accelerations when a = 0), so that a contact that does not slip obeys
/// J_c a + dJ_c/dt v = 0 and its forces f_c enter the equations of motion as J_c^T f_c:
/// M a + h = S^T tau + J_c^T f_c. The contacts come from Bullet's contact manifolds through the
/// bridge (readContacts) or are declared on the links (contact frames on a foot's sole).

#include <Eigen/Core>
#include <string>
#include <vector>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

/// A point of a model link in contact with something else.
struct ContactPoint {
  int link = 0;                    ///< the model link
  Vector3 p_LC = Vector3::Zero();  ///< the point, fixed on the link, in the link frame [m]
  Vector3 n_W = Vector3::UnitZ();  ///< unit normal, world axes, the way the contact pushes
  double friction = 0.0;           ///< Coulomb coefficient mu (>= 0)
};

/// Checks a contact point on `model`: its link in range, its point finite, its normal a unit
/// vector (to 1e-6, as single-precision Bullet gives them), its friction finite and not negative.
/// Allocates nothing unless it throws.
/// @throws InvalidArgumentError "<where>[ on link 'L']: what is wrong".
void checkContactPoint(const Model& model, const ContactPoint& point, const char* where);

/// Contact points declared on a model's links (the corners of a foot's sole), each switched on and
/// off by the application, or by the plugin where the simulation reports a link touching: the
/// contact set a controller gets when the points themselves should not come from the simulation's
/// collision detection, whose points come and go as a foot rocks by a fraction of a millimetre.
class ContactFrames {
 public:
  /// Points on `model`'s links; the model must outlive the frames.
  explicit ContactFrames(const Model& model) : model_(&model) {}
  ContactFrames(Model&&) = delete;

  /// Declares a point (switched on) and @return its index.
  /// @throws InvalidArgumentError for a name already declared, a link out of range, a point not
  ///   finite, a normal not a unit vector (to 1e-6), or a friction negative or not finite
  ///   (nothing declared).
  int add(const std::string& name, const ContactPoint& point);
  /// Switches point `index`, or the one named `name`, on or off.
  /// @throws InvalidArgumentError for an index out of range or an unknown name.
  void setActive(int index, bool active);
  void setActive(const std::string& name, bool active);
  /// Switches every point declared on `link` on or off.
  /// @throws InvalidArgumentError for a link out of range.
  void setLinkActive(int link, bool active);

  int size() const { return static_cast<int>(points_.size()); }
  const Model& model() const { return *model_; }
  /// Point `index`, its name, whether it is on. @pre 0 <= index < size().
  const ContactPoint& point(int index) const { return points_[index]; }
  const std::string& name(int index) const { return names_[index]; }
  bool isActive(int index) const { return active_[index] != 0; }
  /// Whether any point is declared on `link`.
  bool declares(int link) const;
  /// The points switched on, in declaration order.
  const std::vector<ContactPoint>& active() const { return active_points_; }

 private:
  void collectActive();

  const Model* model_;
  std::vector<std::string> names_;
  std::vector<ContactPoint> points_;
  std::vector<char> active_;
  std::vector<ContactPoint> active_points_;
};

/// The four corners of a box foot's sole: the face of `link`'s first box collision shape (its own,
/// or of a link merged into it) whose outward normal points most against n_W (the ground's
/// normal, world axes) at configuration q,
/// as contact points with normal n_W and the given friction, for ContactFrames. Runs
/// forwardKinematics(q).
/// @throws InvalidArgumentError for a link out of range or without a box collision shape, bad q,
///   a normal that is not a unit vector (to 1e-6) or a friction negative or not finite.
std::vector<ContactPoint> boxSoleCorners(const Model& model, Data& data, const ConstVectorRef& q,
                                         int link, const Vector3& n_W, double friction);

/// J_c (3 nc x nv): rows 3i to 3i + 2 map v to the velocity of contact i's point in world axes.
/// Runs computeJointJacobians(q).
/// @param[out] J_c 3 contacts.size() x nv.
/// @throws InvalidArgumentError on bad q, a wrong-sized J_c, a link out of range or a non-finite
///   point.
void contactJacobian(const Model& model, Data& data, const ConstVectorRef& q,
                     const std::vector<ContactPoint>& contacts, Eigen::Ref<Eigen::MatrixXd> J_c);
/// As above, from the Jacobians of a computeJointJacobians(q) that already ran.
/// @pre computeJointJacobians(model, data, q).
void contactJacobian(const Model& model, const Data& data,
                     const std::vector<ContactPoint>& contacts, Eigen::Ref<Eigen::MatrixXd> J_c);

/// dJ_c/dt v (3 nc): the contact points' accelerations in world axes when a = 0. Runs
/// forwardKinematics(q, v, 0).
/// @param[out] dJ_c_v 3 contacts.size().
/// @throws as contactJacobian, and on bad v.
void contactJacobianTimeVariation(const Model& model, Data& data, const ConstVectorRef& q,
                                  const ConstVectorRef& v,
                                  const std::vector<ContactPoint>& contacts,
                                  Eigen::Ref<Eigen::VectorXd> dJ_c_v);
/// As above, from the kinematics of a forwardKinematics(q, v, 0) that already ran.
/// @pre forwardKinematics(model, data, q, v, data.zero_v).
void contactJacobianTimeVariation(const Model& model, const Data& data,
                                  const std::vector<ContactPoint>& contacts,
                                  Eigen::Ref<Eigen::VectorXd> dJ_c_v);

}  // namespace gcbridge
