#pragma once
// A Bullet world as an application writes it, for the bridge and plugin programs: a 1 kg box
// hinged to the fixed world about z, gravity along -y.

#include <btBulletDynamicsCommon.h>

struct DoorWorld {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher{&configuration};
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &configuration};
  btBoxShape shape{btVector3(0.5, 0.1, 0.05)};
  btDefaultMotionState motion_state{btTransform(btQuaternion::getIdentity(), btVector3(0.5, 0, 0))};
  btRigidBody door{1.0, &motion_state, &shape, btVector3(0.01, 0.08, 0.09)};
  btHingeConstraint hinge{door, btVector3(-0.5, 0, 0), btVector3(0, 0, 1)};

  DoorWorld() {
    world.addRigidBody(&door);
    world.addConstraint(&hinge, true);
  }
  ~DoorWorld() {
    world.removeConstraint(&hinge);
    world.removeRigidBody(&door);
  }
};
