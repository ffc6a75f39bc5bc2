#pragma once
/// @file
/// Point contacts in generalized coordinates: where a model link touches something, the stacked
/// contact Jacobian J_c (3 rows per point: the point's velocity in world axes is J_c v) and
/// dJ_c/dt v (the points' accelerations when a = 0), so that a contact that does not slip obeys
/// J_c a + dJ_c/dt v = 0 and its forces f_c enter the equations of motion as J_c^T f_c:
/// M a + h = S^T tau + J_c^T f_c. The contacts come from Bullet's contact manifolds through the
/// bridge (readContacts) or are declared on the links (contact frames on a foot's sole).

#include <Eigen/Core>
#include <vector>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

/// A point of a model link in contact with something else.
struct ContactPoint {
  int link = 0;                         ///< the model link
  Vector3 p_LC = Vector3::Zero();       ///< the point, fixed on the link, in the link frame [m]
  Vector3 n_W = Vector3::UnitZ();       ///< unit normal, world axes, the way the contact pushes
  double friction = 0.0;                ///< Coulomb coefficient mu (>= 0)
};

/// J_c (3 nc x nv): rows 3i to 3i + 2 map v to the velocity of contact i's point in world axes.
/// Runs computeJointJacobians(q).
/// @param[out] J_c 3 contacts.size() x nv.
/// @throws InvalidArgumentError on bad q, a wrong-sized J_c, a link out of range or a non-finite
///   point.
void contactJacobian(const Model& model, Data& data, const ConstVectorRef& q,
                     const std::vector<ContactPoint>& contacts, Eigen::Ref<Eigen::MatrixXd> J_c);

/// dJ_c/dt v (3 nc): the contact points' accelerations in world axes when a = 0. Runs
/// forwardKinematics(q, v, 0).
/// @param[out] dJ_c_v 3 contacts.size().
/// @throws as contactJacobian, and on bad v.
void contactJacobianTimeVariation(const Model& model, Data& data, const ConstVectorRef& q,
                                  const ConstVectorRef& v,
                                  const std::vector<ContactPoint>& contacts,
                                  Eigen::Ref<Eigen::VectorXd> dJ_c_v);

}  // namespace gcbridge
