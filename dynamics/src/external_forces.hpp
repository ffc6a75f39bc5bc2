#pragma once
// Private to gcbridge::dynamics: conversion of user-given external forces to link frames.

#include "gcbridge/dynamics/model.hpp"
#include "gcbridge/dynamics/rnea.hpp"

namespace gcbridge::detail {

/// Checks f_ext (one finite force per link) and writes each, expressed in its link frame B, into
/// data.fext_B. @pre forward kinematics ran for the current q (data.X_WB).
/// @throws InvalidArgumentError naming the link.
void externalForcesToLinkFrames(const Model& model, Data& data, const ExternalForces& f_ext);

}  // namespace gcbridge::detail
