#include "file_importer.hpp"

#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace detail {
namespace {

btVector3 fromData(const btVector3DoubleData& data) {
  btVector3 v;
  v.deSerializeDouble(data);
  return v;
}
btVector3 fromData(const btVector3FloatData& data) {
  btVector3 v;
  v.deSerializeFloat(data);
  return v;
}

/// Gives a moving body what the file holds of it that Bullet's importer leaves out or recomputes.
template <typename RigidBodyData>
void restoreBody(btRigidBody& body, const RigidBodyData& data) {
  // The inertia as stored, not recomputed from the shape.
  const btVector3 inverse_inertia = fromData(data.m_invInertiaLocal);
  btVector3 inertia(0, 0, 0);
  for (int axis = 0; axis < 3; ++axis) {
    if (inverse_inertia[axis] != 0) inertia[axis] = 1 / inverse_inertia[axis];
  }
  body.setMassProps(body.getMass(), inertia);
  body.updateInertiaTensor();
  body.setLinearVelocity(fromData(data.m_linearVelocity));
  body.setAngularVelocity(fromData(data.m_angularVelocity));
  body.setGravity(fromData(data.m_gravity_acceleration));
  body.setDamping(btScalar(data.m_linearDamping), btScalar(data.m_angularDamping));
  body.setSleepingThresholds(btScalar(data.m_linearSleepingThreshold),
                             btScalar(data.m_angularSleepingThreshold));
  body.setDeactivationTime(btScalar(data.m_collisionObjectData.m_deactivationTime));
  const int activation = data.m_collisionObjectData.m_activationState1;
  if (activation >= ACTIVE_TAG && activation <= DISABLE_SIMULATION) {
    body.forceActivationState(activation);
  }
}

/// "multibody i's link 'name' (link j)" for messages.
template <typename MultiBodyData>
std::string planarRefusal(const MultiBodyData& data, int i, int j) {
  const char* name = data.m_links[j].m_linkName;
  return "multibody " + std::to_string(i) + "'s link " +
         (name != nullptr ? "'" + std::string(name) + "' " : std::string()) + "(link " +
         std::to_string(j) + ") has a planar joint, which Bullet's importer does not read";
}

/// Why Bullet's importer cannot read the file's multibodies ("" when it can).
template <typename MultiBodyData>
std::string multiBodyRefusal(bParse::btBulletFile* file) {
  for (int i = 0; i < file->m_multiBodies.size(); ++i) {
    const auto& data = *reinterpret_cast<const MultiBodyData*>(file->m_multiBodies[i]);
    for (int j = 0; j < data.m_numLinks; ++j) {
      if (data.m_links[j].m_jointType == btMultibodyLink::ePlanar) {
        return planarRefusal(data, i, j);
      }
    }
  }
  return "";
}

}  // namespace

bool KeepingImporter::convertAllObjects(bParse::btBulletFile* file) {
  const bool double_data = (file->getFlags() & bParse::FD_DOUBLE_PRECISION) != 0;
  refusal_ = double_data ? multiBodyRefusal<btMultiBodyDoubleData>(file)
                         : multiBodyRefusal<btMultiBodyFloatData>(file);
  if (!refusal_.empty()) return false;
  const int before = world_->getNumMultibodies();
  if (!btMultiBodyWorldImporter::convertAllObjects(file)) return false;
  restoreRigidBodies(file, double_data);
  // The file's multibody i is the world's before + i (the importer adds them in file order).
  for (int i = 0; i < file->m_multiBodies.size(); ++i) {
    btMultiBody& body = *world_->getMultiBody(before + i);
    multibodies_.push_back(&body);
    if (double_data) {
      restoreMultiBody(body, *reinterpret_cast<btMultiBodyDoubleData*>(file->m_multiBodies[i]));
    } else {
      restoreMultiBody(body, *reinterpret_cast<btMultiBodyFloatData*>(file->m_multiBodies[i]));
    }
  }
  return true;
}

void KeepingImporter::restoreRigidBodies(bParse::btBulletFile* file, bool double_data) {
  for (int i = 0; i < file->m_rigidBodies.size(); ++i) {
    btCollisionObject** made = m_bodyMap.find(file->m_rigidBodies[i]);
    btRigidBody* body = made != nullptr ? btRigidBody::upcast(*made) : nullptr;
    if (body == nullptr || body->getInvMass() == 0) continue;
    // The file's record of the body (bParse hands it back as an opaque handle).
    if (double_data) {
      restoreBody(*body, *reinterpret_cast<btRigidBodyDoubleData*>(file->m_rigidBodies[i]));
    } else {
      restoreBody(*body, *reinterpret_cast<btRigidBodyFloatData*>(file->m_rigidBodies[i]));
    }
  }
}

template <typename MultiBodyData>
void KeepingImporter::restoreMultiBody(btMultiBody& body, const MultiBodyData& data) {
  body.setBaseName(keep(data.m_baseName));
  if (!body.hasFixedBase()) {
    body.setBaseVel(fromData(data.m_baseLinearVelocity));
    body.setBaseOmega(fromData(data.m_baseAngularVelocity));
  }
  for (int j = 0; j < body.getNumLinks() && j < data.m_numLinks; ++j) {
    const auto& link_data = data.m_links[j];
    btMultibodyLink& link = body.getLink(j);
    link.m_linkName = keep(link_data.m_linkName);
    link.m_jointName = keep(link_data.m_jointName);
    link.m_jointDamping = btScalar(link_data.m_jointDamping);
    link.m_jointFriction = btScalar(link_data.m_jointFriction);
    link.m_jointLowerLimit = btScalar(link_data.m_jointLowerLimit);
    link.m_jointUpperLimit = btScalar(link_data.m_jointUpperLimit);
    link.m_jointMaxForce = btScalar(link_data.m_jointMaxForce);
    link.m_jointMaxVelocity = btScalar(link_data.m_jointMaxVelocity);
  }
}

const char* KeepingImporter::keep(const char* name) {
  if (name == nullptr) return nullptr;
  names_.emplace_back(name);
  return names_.back().c_str();
}

}  // namespace detail
GCBRIDGE_BULLET_NAMESPACE_END
