#pragma once
/// @file
/// Everything of gcbridge::viewer: every public header of the library (a test checks that none
/// is left out).

#include "gcbridge/viewer/html_viewer.hpp"
#include "gcbridge/viewer/recorder.hpp"
#include "gcbridge/viewer/scene_geometry.hpp"
