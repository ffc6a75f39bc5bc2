#pragma once
// Private to the bridge: the part of BridgeData the conversions keep for themselves (what they
// precompute per joint and the scratch they work in).

#include "gcbridge/bridge/rigid_body_map.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

/// The conversions' way into a BridgeData's private part.
struct BridgeInternals {
  using Internals = BridgeData::Internals;
  using StagedAngle = Internals::StagedAngle;
  using StagedRotation = Internals::StagedRotation;
  static Internals& of(BridgeData& bdata) { return bdata.internals_; }
};

/// bdata's private part.
inline BridgeInternals::Internals& internals(BridgeData& bdata) {
  return BridgeInternals::of(bdata);
}

GCBRIDGE_BULLET_NAMESPACE_END
