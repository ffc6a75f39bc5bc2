#pragma once
/// @file
/// Everything of gcbridge::dynamics.

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/description.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/joint.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/lie_group.hpp"
#include "gcbridge/dynamics/model.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/spatial.hpp"
#include "gcbridge/dynamics/urdf.hpp"
