#include "gcbridge/bridge/bullet_precision.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

int bulletScalarSize() { return static_cast<int>(sizeof(btScalar)); }

const char* bulletPrecisionName() { return sizeof(btScalar) == 8 ? "double" : "single"; }

GCBRIDGE_BULLET_NAMESPACE_END
