#pragma once
/// @file
/// Guards against mixing Bullet precisions. Bullet's single (`bullet`) and double
/// (`bullet-float64`, -DBT_USE_DOUBLE_PRECISION) builds have different btScalar sizes; code
/// compiled against one and linked with the other corrupts memory silently wherever a symbol takes
/// no btScalar (btRigidBody's and btTransform's layouts change size with it). gcbridge makes that
/// mistake loud twice over:
/// - at compile time, a static_assert compares sizeof(btScalar) in the including translation unit
///   with the size gcbridge was built with (gcbridge/config.hpp);
/// - at link time, everything in gcbridge that touches Bullet lives in an inline namespace named
///   after the precision (gcbridge::bt_f64 or gcbridge::bt_f32), so its symbols differ per
///   precision and a mismatched object file cannot link against the library.

#include <LinearMath/btScalar.h>

#include "gcbridge/config.hpp"

#if defined(BT_USE_DOUBLE_PRECISION)
#define GCBRIDGE_BULLET_ABI bt_f64
#else
#define GCBRIDGE_BULLET_ABI bt_f32
#endif

static_assert(sizeof(btScalar) == GCBRIDGE_BULLET_SCALAR_SIZE,
              "gcbridge: this code is compiled with a Bullet precision (sizeof(btScalar)) other "
              "than the one gcbridge was built with. Use the same pkg-config module for both "
              "(bullet-float64 for double, bullet for single), or rebuild gcbridge with "
              "-DGCBRIDGE_BULLET_DOUBLE=ON/OFF.");

/// Opens and closes the precision-tagged namespace for code that uses Bullet types.
#define GCBRIDGE_BULLET_NAMESPACE_BEGIN \
  namespace gcbridge {                  \
  inline namespace GCBRIDGE_BULLET_ABI {
#define GCBRIDGE_BULLET_NAMESPACE_END \
  }                                   \
  }

GCBRIDGE_BULLET_NAMESPACE_BEGIN

/// sizeof(btScalar) of the Bullet build the gcbridge bridge library was compiled against (8 or 4).
int bulletScalarSize();

/// "double" or "single": the Bullet precision of the gcbridge bridge library.
const char* bulletPrecisionName();

GCBRIDGE_BULLET_NAMESPACE_END
