#pragma once
/// @file
/// Forward kinematics: poses, COM positions, spatial velocities and accelerations of every link,
/// and velocities/accelerations of frames fixed on links.
///
/// Recursion (body-frame, Featherstone): X_WB = X_WP X_PB, V_B = X_PB^-1 V_P + S v,
/// A_B = X_PB^-1 A_P + S a + S_dot v + V_B x (S v). The world does not move or accelerate (gravity
/// is not an acceleration here; the dynamics algorithms add it).

#include <Eigen/Core>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

/// In which frame, and about which point, a spatial quantity is expressed.
enum class ReferenceFrame {
  World,              ///< world axes, about the world origin (Featherstone's spatial vector in W)
  LocalWorldAligned,  ///< world axes, about the frame's origin (angular; velocity of that point)
  Local,              ///< the frame's own axes, about its origin
};

/// Poses: fills data.X_PB, data.X_WB, data.p_WBcm and data.S_B.
/// @param[in] q joint positions (size model.nq). @throws InvalidArgumentError on bad q.
void forwardKinematics(const Model& model, Data& data, const ConstVectorRef& q);
/// Poses and velocities: also data.V_WB_B. @param[in] v joint velocities (size model.nv).
void forwardKinematics(const Model& model, Data& data, const ConstVectorRef& q,
                       const ConstVectorRef& v);
/// Poses, velocities and accelerations: also data.A_spatial_WB_B and data.A_classical_WB_B.
/// @param[in] a joint accelerations (size model.nv).
void forwardKinematics(const Model& model, Data& data, const ConstVectorRef& q,
                       const ConstVectorRef& v, const ConstVectorRef& a);

/// Pose X_WF of frame F, fixed on `link` at X_BF. @pre forwardKinematics ran.
Transform framePose(const Model& model, const Data& data, int link, const Transform& X_BF);
/// Pose X_WF of a model frame (a description link). @pre forwardKinematics ran.
Transform framePose(const Model& model, const Data& data, int frame);

/// Spatial velocity of frame F (fixed on `link` at X_BF) in W, expressed as `rf` says.
/// @pre forwardKinematics(q, v) ran.
Motion frameVelocity(const Model& model, const Data& data, int link, const Transform& X_BF,
                     ReferenceFrame rf);
/// Classical acceleration of frame F: (angular acceleration, acceleration of the material point
/// at F's origin), in world axes for World/LocalWorldAligned, F axes for Local.
/// @pre forwardKinematics(q, v, a) ran.
Motion frameClassicalAcceleration(const Model& model, const Data& data, int link,
                                  const Transform& X_BF, ReferenceFrame rf);

/// World position of the whole system's centre of mass [m]. @pre forwardKinematics ran.
Vector3 centerOfMass(const Model& model, const Data& data);

}  // namespace gcbridge
