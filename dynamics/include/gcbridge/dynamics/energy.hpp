#pragma once
/// @file
/// Energy, momentum and centre of mass of the whole system.

#include <Eigen/Core>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

/// Kinetic energy 1/2 sum_k V_k . I_k V_k = 1/2 v^T M v [J]. Runs forwardKinematics(q, v).
double computeKineticEnergy(const Model& model, Data& data, const ConstVectorRef& q,
                            const ConstVectorRef& v);
/// Potential energy of gravity -sum_k m_k g . p_k [J], zero at the world origin.
/// Runs forwardKinematics(q).
double computePotentialEnergy(const Model& model, Data& data, const ConstVectorRef& q);
/// Kinetic plus potential energy [J].
double computeMechanicalEnergy(const Model& model, Data& data, const ConstVectorRef& q,
                               const ConstVectorRef& v);

/// Spatial momentum of the whole system in world axes, moment about the world origin
/// (angular [kg m^2/s], linear [kg m/s]). Runs forwardKinematics(q, v).
Force computeSpatialMomentum(const Model& model, Data& data, const ConstVectorRef& q,
                             const ConstVectorRef& v);

/// Velocity of the system's centre of mass in the world [m/s]: linear momentum over mass.
/// Runs forwardKinematics(q, v). (Its position: centerOfMass() after forward kinematics.)
Vector3 centerOfMassVelocity(const Model& model, Data& data, const ConstVectorRef& q,
                             const ConstVectorRef& v);

}  // namespace gcbridge
