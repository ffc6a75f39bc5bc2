#include "gcbridge/dynamics/energy.hpp"

#include "gcbridge/dynamics/kinematics.hpp"

namespace gcbridge {

double computeKineticEnergy(const Model& model, Data& data, const ConstVectorRef& q,
                            const ConstVectorRef& v) {
  checkData(model, data, "computeKineticEnergy");
  forwardKinematics(model, data, q, v);
  double T = 0.0;
  for (int k = 0; k < model.numLinks(); ++k) {
    T += 0.5 * (model.inertias[k] * data.V_WB_B[k]).dot(data.V_WB_B[k]);
  }
  return T;
}

double computePotentialEnergy(const Model& model, Data& data, const ConstVectorRef& q) {
  checkData(model, data, "computePotentialEnergy");
  forwardKinematics(model, data, q);
  double V = 0.0;
  for (int k = 0; k < model.numLinks(); ++k) {
    V -= model.inertias[k].mass() * model.gravity_W.dot(data.p_WBcm[k]);
  }
  return V;
}

double computeMechanicalEnergy(const Model& model, Data& data, const ConstVectorRef& q,
                               const ConstVectorRef& v) {
  checkData(model, data, "computeMechanicalEnergy");
  const double T = computeKineticEnergy(model, data, q, v);
  double V = 0.0;
  for (int k = 0; k < model.numLinks(); ++k) {
    V -= model.inertias[k].mass() * model.gravity_W.dot(data.p_WBcm[k]);
  }
  return T + V;
}

Force computeSpatialMomentum(const Model& model, Data& data, const ConstVectorRef& q,
                             const ConstVectorRef& v) {
  checkData(model, data, "computeSpatialMomentum");
  forwardKinematics(model, data, q, v);
  Force h = Force::Zero();
  for (int k = 0; k < model.numLinks(); ++k) {
    h += data.X_WB[k].act(model.inertias[k] * data.V_WB_B[k]);
  }
  return h;
}

Vector3 centerOfMassVelocity(const Model& model, Data& data, const ConstVectorRef& q,
                             const ConstVectorRef& v) {
  checkData(model, data, "centerOfMassVelocity");
  const double mass = model.totalMass();
  if (mass <= 0.0) return Vector3::Zero();
  return computeSpatialMomentum(model, data, q, v).linear() / mass;
}

}  // namespace gcbridge
