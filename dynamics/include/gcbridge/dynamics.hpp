#pragma once
/// @file
/// Everything of gcbridge::dynamics: every public header of the library (a test checks that none
/// is left out).

#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/centroidal.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/contacts.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/derivatives.hpp"
#include "gcbridge/dynamics/description.hpp"
#include "gcbridge/dynamics/energy.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/integrators.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/joint.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/lie_group.hpp"
#include "gcbridge/dynamics/model.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/reference_dynamics.hpp"
#include "gcbridge/dynamics/rnea.hpp"
#include "gcbridge/dynamics/spatial.hpp"
#include "gcbridge/dynamics/task_space.hpp"
#include "gcbridge/dynamics/urdf.hpp"
