#include "gcbridge/dynamics/derivatives.hpp"

#include <algorithm>

#include "detail.hpp"
#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/detail/unchecked.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "tree_lu.hpp"

// The derivation (Carpentier and Mansard 2018, here in one fixed frame R, the root link's at q).
// Moving q_j along its tangent column S_j (in R) moves every link of j's subtree rigidly by the
// twist S_j, so each quantity attached to those links changes by its transport under S_j (x for
// motions, x* for forces) plus a remainder. The transport cancels in tau_i = S_i . F_i for dofs i
// in the subtree, and contributes S_j x* F_j to the ancestors' forces. The remainders are, for
// every link of the subtree, the same velocity change dV/dq_j = V_p x S_j and acceleration change
// dA/dq_j = A_p x S_j + V_p x dV/dq_j (p the parent of j's link), plus the acceleration
// dV/dq_j x V_k that a link's own velocity V_k adds; the net force f = I A + V x* I V then changes
// by I dA/dq_j + B dV/dq_j with B u = V x* (I u) + u x* (I V) - I (V x u), whose subtree sums Ic,
// Bc give every entry in one 6-vector product. d/dv_j is the same with dV = S_j and
// dA = dV/dq_j + V_j x S_j. Joints whose S changes with q (planar, exp-map and Euler balls) add
// their dS/dq terms; the second derivative of S among them is taken by central differences of the
// joint's closed-form S_dot v.

namespace gcbridge {
namespace {

// The matrix of u -> u x* F: [-[n], -[f]; -[f], 0] for F = (n, f).
Matrix6 forceCrossMatrix(const Force& F) {
  Matrix6 X = Matrix6::Zero();
  X.topLeftCorner<3, 3>() = -skew(F.angular());
  X.topRightCorner<3, 3>() = -skew(F.linear());
  X.bottomLeftCorner<3, 3>() = -skew(F.linear());
  return X;
}

// The angular block of B = crf(V) I - I crm(V) + [u -> u x* (I V)] for a body of moments
// (m, h, I_o) moving with V = (w, v), momentum I V = (n, p): [w] I_o - I_o [w] - [v][h] - [h][v]
// - [n], as T + T^T - (h v^T + v h^T) + 2 (v . h) 1 - [n] with T = [w] I_o ([a][b] = b a^T -
// (a . b) 1). B's other blocks: -2 [p] below it, zeros on the right.
Matrix3 velocityProductBlock(const InertiaMoments& I, const Motion& V, const Force& IV) {
  const Vector3 w = spatialHalf(V.vector(), 0), v = spatialHalf(V.vector(), 3);
  const Vector3& h = I.firstMoment();
  const Matrix3 T = skew(w) * I.inertiaAboutOrigin();
  Matrix3 B =
      T + T.transpose() - h * v.transpose() - v * h.transpose() - skew(spatialHalf(IV.vector(), 0));
  B.diagonal().array() += 2.0 * v.dot(h);
  return B;
}

// dS/dq_i in C for a joint whose S depends on q (nq == nv): the joint's S_dot at the unit rate of
// q_i.
JointMatrix subspaceDerivative(const Joint& joint, const double* q, int i) {
  double unit[6] = {0, 0, 0, 0, 0, 0};
  unit[i] = 1.0;
  return jointMotionSubspaceDerivative(joint, q, unit);
}

// d(S_dot v)/dq_i in C for a joint whose S depends on q (nq == nv), by central differences.
Motion biasDerivative(const Joint& joint, const double* q, const double* v, int i) {
  double q_step[6];
  std::copy(q, q + joint.nq, q_step);
  const double h = 1e-5 * std::max(1.0, std::abs(q[i]));
  q_step[i] = q[i] + h;
  const Motion plus = jointBiasAcceleration(joint, q_step, v);
  q_step[i] = q[i] - h;
  const Motion minus = jointBiasAcceleration(joint, q_step, v);
  return (plus - minus) * (0.5 / h);
}

// The external force on link k in R and the matrix Dc_R starts from (derivatives.hpp's rules).
// @pre data.fext_B and data.X_RB at q.
Force externalForceInRootFrame(const Data& data, ReferenceFrame frame, int k, Matrix6& D) {
  const Force F = data.X_RB[k].act(data.fext_B[k]);
  if (frame == ReferenceFrame::Local) {
    D.setZero();
    return F;
  }
  // Held in the world: its change is minus its transport.
  D = -forceCrossMatrix(F);
  if (frame == ReferenceFrame::LocalWorldAligned) {
    // Its point of application, the link's origin p, moves by w x p + v_o.
    const Matrix3 f_x = skew(F.linear());
    D.topLeftCorner<3, 3>() += f_x * skew(data.X_RB[k].translation());
    D.topRightCorner<3, 3>() -= f_x;
  }
  return F;
}

// The remainders a joint whose S depends on q adds to its dofs' columns (see the file comment),
// with e_i = dS/dq_i v in R: dV/dq_i += e_i, dA/dq_i += dS/dq_i a + d(S_dot v)/dq_i +
// (V_p + V_k) x e_i, dA/dv_i += e_i + S_dot e_i; and S_dot v into the link's acceleration A.
// @pre data.X_RB[k], data.V_WB_R[k] at q, v.
void addSubspaceTerms(const Joint& joint, Data& data, int k, const Motion& V_p, const double* q,
                      const double* v, const double* a, Motion& A) {
  const Transform& X_RB = data.X_RB[k];
  const Motion V_sum = V_p + data.V_WB_R[k];
  const JointMatrix S_dot = jointMotionSubspaceDerivative(joint, q, v);
  A += X_RB.act(jointBiasAcceleration(joint, q, v));
  const Eigen::Map<const Eigen::VectorXd> v_joint(v, joint.nv), a_joint(a, joint.nv);
  for (int i = 0; i < joint.nv; ++i) {
    const JointMatrix dS_dqi = subspaceDerivative(joint, q, i);
    const Motion e_i = X_RB.act(Motion(Vector6(dS_dqi * v_joint)));
    const Motion dA = X_RB.act(Motion(Vector6(dS_dqi * a_joint)) + biasDerivative(joint, q, v, i));
    const int j = joint.idx_v + i;
    data.dV_dq_R.col(j) += e_i.vector();
    data.dA_dq_R.col(j) += (dA + V_sum.cross(e_i)).vector();
    data.dA_dv_R.col(j) += (e_i + X_RB.act(Motion(Vector6(S_dot.col(i))))).vector();
  }
}

// Link k's columns S_j = X_RB S_B (into data.S_R), then its velocity V = V_p + S v and
// acceleration A = A_p + S a + V_p x S v in R, half by half (spatialHalf says why); v and a
// point to the joint's entries. @pre data.X_RB[k] and data.S_B at q.
void jointMotionInRootFrame(const Joint& joint, Data& data, int k, const Motion& V_p,
                            const Motion& A_p, const double* v, const double* a) {
  const Matrix3& R = data.X_RB[k].rotation();
  const Vector3& p = data.X_RB[k].translation();
  Vector3 Sv_w = Vector3::Zero(), Sv_u = Vector3::Zero();
  Vector3 Sa_w = Vector3::Zero(), Sa_u = Vector3::Zero();
  for (int i = 0; i < joint.nv; ++i) {
    const int j = joint.idx_v + i;
    const Vector3 w = R * data.S_B.col(j).head<3>();
    const Vector3 u = R * data.S_B.col(j).tail<3>() + p.cross(w);
    data.S_R.col(j).head<3>() = w;
    data.S_R.col(j).tail<3>() = u;
    Sv_w += w * v[i];
    Sv_u += u * v[i];
    Sa_w += w * a[i];
    Sa_u += u * a[i];
  }
  const Vector3 Vp_w = V_p.angular(), Vp_u = V_p.linear();
  data.V_WB_R[k].angular() = Vp_w + Sv_w;
  data.V_WB_R[k].linear() = Vp_u + Sv_u;
  data.A_WB_R[k].angular() = A_p.angular() + Sa_w + Vp_w.cross(Sv_w);
  data.A_WB_R[k].linear() = A_p.linear() + Sa_u + (Vp_w.cross(Sv_u) + Vp_u.cross(Sv_w));
}

// Each dof's remainders of link k (the file comment): dV/dq_j = V_p x S_j, dA/dq_j = A_p x S_j +
// V_p x dV/dq_j and dA/dv_j = dV/dq_j + V x S_j, half by half. @pre jointMotionInRootFrame.
void columnRemainders(const Joint& joint, Data& data, int k, const Motion& V_p, const Motion& A_p) {
  const Vector3 Vp_w = V_p.angular(), Vp_u = V_p.linear();
  const Vector3 Ap_w = A_p.angular(), Ap_u = A_p.linear();
  const Vector3 V_w = data.V_WB_R[k].angular(), V_u = data.V_WB_R[k].linear();
  for (int j = joint.idx_v; j < joint.idx_v + joint.nv; ++j) {
    const Vector3 w = data.S_R.col(j).head<3>(), u = data.S_R.col(j).tail<3>();
    const Vector3 dV_w = Vp_w.cross(w), dV_u = Vp_w.cross(u) + Vp_u.cross(w);
    data.dV_dq_R.col(j).head<3>() = dV_w;
    data.dV_dq_R.col(j).tail<3>() = dV_u;
    data.dA_dq_R.col(j).head<3>() = Ap_w.cross(w) + Vp_w.cross(dV_w);
    data.dA_dq_R.col(j).tail<3>() =
        (Ap_w.cross(u) + Ap_u.cross(w)) + (Vp_w.cross(dV_u) + Vp_u.cross(dV_w));
    data.dA_dv_R.col(j).head<3>() = dV_w + V_w.cross(w);
    data.dA_dv_R.col(j).tail<3>() = dV_u + (V_w.cross(u) + V_u.cross(w));
  }
}

// Forward pass: each link's pose X_RB, velocity, acceleration and net force in R, its
// velocity-product matrix Bc_R, and each dof's column S_R and remainders dV/dq, dA/dq, dA/dv.
// With `with_external`, Dc_R and the forces data.fext_B (in link frames) of `frame`.
// @pre data.X_PB and data.S_B at q; q, v, a checked.
GCBRIDGE_FLATTEN void forwardPass(const Model& model, Data& data, const ConstVectorRef& q,
                                  const ConstVectorRef& v, const ConstVectorRef& a,
                                  bool with_external, ReferenceFrame frame) {
  const Transform X_RW = data.X_PB[0].inverse();
  const Motion A_world_R(Vector3::Zero(), -(X_RW.rotation() * model.gravity_W));
  const Motion at_rest;
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    const int p = model.parents[k];
    data.X_RB[k] = p >= 0 ? data.X_RB[p] * data.X_PB[k] : X_RW * data.X_PB[k];
    const Motion& V_p = p >= 0 ? data.V_WB_R[p] : at_rest;
    const Motion& A_p = p >= 0 ? data.A_WB_R[p] : A_world_R;
    jointMotionInRootFrame(joint, data, k, V_p, A_p, v.data() + joint.idx_v,
                           a.data() + joint.idx_v);
    columnRemainders(joint, data, k, V_p, A_p);
    const Motion& V = data.V_WB_R[k];
    if (motionSubspaceDependsOnQ(joint)) {
      addSubspaceTerms(joint, data, k, V_p, q.data() + joint.idx_q, v.data() + joint.idx_v,
                       a.data() + joint.idx_v, data.A_WB_R[k]);
    }
    // The link's inertia in R, its net force and velocity-product matrix.
    InertiaMoments I_R;
    model.inertia_moments[k].addTransformedTo(data.X_RB[k], I_R);
    // Sums of the products' halves, read entry by entry (spatialHalf says why).
    const Force IV = I_R * V, IA = I_R * data.A_WB_R[k], VxIV = V.cross(IV);
    data.F_R[k].angular() = spatialHalf(IA.vector(), 0) + spatialHalf(VxIV.vector(), 0);
    data.F_R[k].linear() = spatialHalf(IA.vector(), 3) + spatialHalf(VxIV.vector(), 3);
    data.Ic_R[k] = I_R;
    data.Bc_R[k] = velocityProductBlock(I_R, V, IV);
    data.P_R[k] = spatialHalf(IV.vector(), 3);
    if (with_external) data.F_R[k] -= externalForceInRootFrame(data, frame, k, data.Dc_R[k]);
  }
}

// What the rows r of link k's dofs need of k's subtree sums: with kMass, Ic S_r into
// data.IcS_R (which the derivatives read) and tau_r = S_r . F; with kDerivatives, (Bc^T S_r)'s
// angular half into data.BcS_R (its linear half is zero) and, with kExternal, Dc^T S_r into
// data.DcS_R. The rows' entries are written column by column once every link's are known
// (subtreeColumns).
template <bool kExternal, bool kDerivatives, bool kMass>
void rowTerms(const Model& model, Data& data, int k) {
  const Joint& joint = model.joints[k];
  for (int r = joint.idx_v; r < joint.idx_v + joint.nv; ++r) {
    if constexpr (kMass) {
      const Force IS_r = data.Ic_R[k] * Motion(Vector6(data.S_R.col(r)));
      data.IcS_R.col(r).head<3>() = spatialHalf(IS_r.vector(), 0);
      data.IcS_R.col(r).tail<3>() = spatialHalf(IS_r.vector(), 3);
      data.tau[r] = data.S_R.col(r).dot(data.F_R[k].vector());
    }
    if constexpr (kDerivatives) {
      data.BcS_R.col(r) = data.Bc_R[k].transpose() * data.S_R.col(r).head<3>() +
                          2.0 * data.P_R[k].cross(data.S_R.col(r).tail<3>());
      if constexpr (kExternal) data.DcS_R.col(r) = data.Dc_R[k].transpose() * data.S_R.col(r);
    }
  }
}

// With kDerivatives, d tau_r / dq_s = (Ic S_r) . dA/dq_s + (Bc^T S_r) . dV/dq_s - (Dc^T S_r) .
// S_s and d tau_r / dv_s = (Ic S_r) . dA/dv_s + (Bc^T S_r) . S_s (Ic, Bc and Dc of r's link's
// subtree); with kMass, M(r, s) = M(s, r) = (Ic S_r) . S_s; for each dof s and each r among the
// dofs of s's link and of its descendants, written down column s (all but M's mirror entries
// M(s, r)). Row by row, the entries lie nv apart in memory, which the cache cannot hold on long
// chains. @pre rowTerms ran for every link.
template <bool kExternal, bool kDerivatives, bool kMass>
void subtreeColumns(const Model& model, Data& data) {
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    const int end = detail::linkSubtreeDofEnd(model, k);
    for (int s = joint.idx_v; s < joint.idx_v + joint.nv; ++s) {
      const Vector6 S_s = data.S_R.col(s);
      Vector6 dA_dq, dA_dv;
      Vector3 dV_dq;
      if constexpr (kDerivatives) {
        dA_dq = data.dA_dq_R.col(s);
        dA_dv = data.dA_dv_R.col(s);
        dV_dq = data.dV_dq_R.col(s).head<3>();
      }
      for (int r = joint.idx_v; r < end; ++r) {
        const Vector6 IS_r = data.IcS_R.col(r);
        if constexpr (kDerivatives) {
          const Vector3 BS_r = data.BcS_R.col(r);
          data.dtau_dq(r, s) = IS_r.dot(dA_dq) + BS_r.dot(dV_dq);
          if constexpr (kExternal) data.dtau_dq(r, s) -= data.DcS_R.col(r).dot(S_s);
          data.dtau_dv(r, s) = IS_r.dot(dA_dv) + BS_r.dot(S_s.head<3>());
        }
        if constexpr (kMass) data.M(r, s) = data.M(s, r) = IS_r.dot(S_s);
      }
    }
  }
}

// Columns of link k's dofs s against the rows r of its strict ancestors' dofs: the subtree's
// force changes w_q = S_s x* F + Ic dA/dq_s + B dV/dq_s (- Dc S_s) and w_v = Ic dA/dv_s + B S_s,
// with B u = (Bc u_w, 2 u_w x P), the transport S_s x* F among them, against S_r. Half by half,
// the products' halves read entry by entry (spatialHalf says why).
template <bool kExternal>
void ancestorRows(const Model& model, Data& data, int k) {
  const Joint& joint = model.joints[k];
  const InertiaMoments& Ic = data.Ic_R[k];
  const Matrix3& Bc = data.Bc_R[k];
  const Vector3& P = data.P_R[k];
  for (int s = joint.idx_v; s < joint.idx_v + joint.nv; ++s) {
    const Force SxF = Motion(Vector6(data.S_R.col(s))).cross(data.F_R[k]);
    const Force IdA_q = Ic * Motion(Vector6(data.dA_dq_R.col(s)));
    const Force IdA_v = Ic * Motion(Vector6(data.dA_dv_R.col(s)));
    const Vector3 dV_w = data.dV_dq_R.col(s).head<3>(), S_w = data.S_R.col(s).head<3>();
    Vector3 wq_n = spatialHalf(SxF.vector(), 0) + spatialHalf(IdA_q.vector(), 0) + Bc * dV_w;
    Vector3 wq_f =
        spatialHalf(SxF.vector(), 3) + spatialHalf(IdA_q.vector(), 3) + 2.0 * dV_w.cross(P);
    if constexpr (kExternal) {
      const Vector6 DS = data.Dc_R[k] * data.S_R.col(s);
      wq_n -= spatialHalf(DS, 0);
      wq_f -= spatialHalf(DS, 3);
    }
    const Vector3 wv_n = spatialHalf(IdA_v.vector(), 0) + Bc * S_w;
    const Vector3 wv_f = spatialHalf(IdA_v.vector(), 3) + 2.0 * S_w.cross(P);
    for (int r = model.dof_parent[joint.idx_v]; r >= 0; r = model.dof_parent[r]) {
      const Vector3 Sr_w = data.S_R.col(r).head<3>(), Sr_u = data.S_R.col(r).tail<3>();
      data.dtau_dq(r, s) = Sr_w.dot(wq_n) + Sr_u.dot(wq_f);
      data.dtau_dv(r, s) = Sr_w.dot(wv_n) + Sr_u.dot(wv_f);
    }
  }
}

// The change of a joint's own S with q against its subtree's force: d tau_r / dq_s +=
// (dS_r/dq_s) . F for r, s among the dofs of a joint whose S depends on q.
void addSubspaceRows(const Model& model, Data& data, int k, const ConstVectorRef& q) {
  const Joint& joint = model.joints[k];
  const Force F_B = data.X_RB[k].actInv(data.F_R[k]);
  for (int i = 0; i < joint.nv; ++i) {
    const JointMatrix dS_dqi = subspaceDerivative(joint, q.data() + joint.idx_q, i);
    for (int r = 0; r < joint.nv; ++r) {
      data.dtau_dq(joint.idx_v + r, joint.idx_v + i) += dS_dqi.col(r).dot(F_B.vector());
    }
  }
}

// Leaves first: what each link's rows need (rowTerms), with kDerivatives its columns against its
// ancestors' rows, then with kMass its subtree sums (force, inertia, Bc, P, Dc) into its
// parent's. Then the entries of the rows, column by column (subtreeColumns: with kMass M's, with
// kDerivatives the derivatives'), and with kDerivatives the joints' dS/dq terms. @pre forwardPass
// ran, and for kDerivatives without kMass a pass with kMass.
template <bool kExternal, bool kDerivatives, bool kMass>
GCBRIDGE_FLATTEN void backwardPass(const Model& model, Data& data, const ConstVectorRef& q) {
  if constexpr (kDerivatives) {
    data.dtau_dq.setZero();
    data.dtau_dv.setZero();
  }
  for (int k = model.numLinks() - 1; k >= 0; --k) {
    rowTerms<kExternal, kDerivatives, kMass>(model, data, k);
    if constexpr (kDerivatives) ancestorRows<kExternal>(model, data, k);
    const int p = model.parents[k];
    if (!kMass || p < 0) continue;
    data.F_R[p] += data.F_R[k];
    data.Ic_R[p] += data.Ic_R[k];
    data.Bc_R[p] += data.Bc_R[k];
    data.P_R[p] += data.P_R[k];
    if constexpr (kExternal) data.Dc_R[p] += data.Dc_R[k];
  }
  subtreeColumns<kExternal, kDerivatives, kMass>(model, data);
  if constexpr (kDerivatives) {
    for (int k = 0; k < model.numLinks(); ++k) {
      if (motionSubspaceDependsOnQ(model.joints[k])) addSubspaceRows(model, data, k, q);
    }
  }
}

void checkInputs(const Model& model, const Data& data, const ConstVectorRef& q,
                 const ConstVectorRef& v, const ConstVectorRef& a, const char* a_name,
                 const char* function) {
  checkData(model, data, function);
  validateConfiguration(model, q);
  validateVelocity(model, v, "v");
  validateVelocity(model, a, a_name);
}

// The joint placements at q, and with f_ext the poses and the forces in link frames.
void placeLinks(const Model& model, Data& data, const ConstVectorRef& q,
                const ExternalForces* f_ext) {
  if (f_ext != nullptr) {
    forwardKinematics(model, data, q);
    detail::externalForcesToLinkFrames(model, data, *f_ext);
  } else {
    detail::updateJointPlacements(model, data, q);
  }
}

// What the accelerations a add to dA/dq_i of a joint whose S depends on q: dS/dq_i a, in R.
void addSubspaceAccelerationTerms(const Joint& joint, Data& data, int k, const double* q,
                                  const double* a) {
  const Eigen::Map<const Eigen::VectorXd> a_joint(a, joint.nv);
  for (int i = 0; i < joint.nv; ++i) {
    const JointMatrix dS_dqi = subspaceDerivative(joint, q, i);
    data.dA_dq_R.col(joint.idx_v + i) +=
        data.X_RB[k].act(Motion(Vector6(dS_dqi * a_joint))).vector();
  }
}

// What the joint accelerations a add to passes made at a = 0 (tau is linear in a), root first:
// link k's acceleration gains A_a(k), the sum of S_j a_j over its path, so dA/dq_j gains
// A_a(p) x S_j (p the parent); its subtree's force gains the sum over its links l of I_l A_a(l),
// which is Ic A_a(p) plus the sum over the subtree's dofs j of (Ic S_j) a_j (each dof moves the
// links below it). Then A_WB_R = A(0) + A_a and tau = S_r . F. @pre forwardPass at a = 0 and
// backwardPass with kMass ran.
void addAccelerationTerms(const Model& model, Data& data, const ConstVectorRef& q,
                          const ConstVectorRef& a) {
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    const int p = model.parents[k];
    const Motion A_p = p >= 0 ? data.A_qdd_R[p] : Motion::Zero();
    Motion& A = data.A_qdd_R[k];
    A = A_p;
    for (int j = joint.idx_v; j < joint.idx_v + joint.nv; ++j) {
      const Motion S_j(Vector6(data.S_R.col(j)));
      data.dA_dq_R.col(j) += A_p.cross(S_j).vector();
      A.vector() += S_j.vector() * a[j];
    }
    if (motionSubspaceDependsOnQ(joint)) {
      addSubspaceAccelerationTerms(joint, data, k, q.data() + joint.idx_q, a.data() + joint.idx_v);
    }
    data.A_WB_R[k] += A;
    const int n = detail::linkSubtreeDofEnd(model, k) - joint.idx_v;
    data.F_R[k] += data.Ic_R[k] * A_p;
    data.F_R[k].vector() +=
        data.IcS_R.middleCols(joint.idx_v, n).lazyProduct(a.segment(joint.idx_v, n));
    for (int r = joint.idx_v; r < joint.idx_v + joint.nv; ++r) {
      data.tau[r] = data.S_R.col(r).dot(data.F_R[k].vector());
    }
  }
}

// The RNEA derivatives' passes. @pre placeLinks ran (or the ABA, which does its work).
template <bool kExternal>
void rneaDerivativePasses(const Model& model, Data& data, const ConstVectorRef& q,
                          const ConstVectorRef& v, const ConstVectorRef& a, ReferenceFrame frame) {
  forwardPass(model, data, q, v, a, kExternal, frame);
  backwardPass<kExternal, true, true>(model, data, q);
}

void rneaDerivativesChecked(const Model& model, Data& data, const ConstVectorRef& q,
                            const ConstVectorRef& v, const ConstVectorRef& a,
                            const ExternalForces* f_ext) {
  placeLinks(model, data, q, f_ext);
  if (f_ext != nullptr) {
    rneaDerivativePasses<true>(model, data, q, v, a, f_ext->frame);
  } else {
    rneaDerivativePasses<false>(model, data, q, v, a, ReferenceFrame::Local);
  }
}

// X^T = B^T M^-1 for B^T = [1; R] (the identity on top of nv columns, other right-hand sides R
// transposed below it) with the tree factor M = L^T D L (crba.hpp), where the factor's row
// operations act on whole columns of B^T, gathered into matrix-vector products: L^T z = b from the
// leaves, z_i = b_i - sum of L(k, i) z_k over i's descendants k, which follow i; D w = z; and
// L x = w from the root, x_k = w_k - sum of L(k, i) x_i over k's ancestors, in runs of
// consecutive dofs. Each product skips rows that cannot change or are not wanted: while the leaves
// are eliminated, column i of the identity's part stays zero outside [i, e) and, as R's rows and
// columns are tree-sparse, each block of R outside [0, e) (e the end of i's subtree), so one
// contiguous range from row i + 1 to the last block's row e holds every changing row; only
// M^-1's lower triangle is solved for (rows k on of column k).
void solveWithIdentityOnTop(const Model& model, const Eigen::MatrixXd& H, Eigen::MatrixXd& B_T) {
  const int nv = model.nv;
  const Eigen::Index below = B_T.rows() - nv;
  // L^T z = b, leaves first.
  for (int i = nv - 1; i >= 0; --i) {
    const int e = detail::subtreeDofEnd(model, i);
    detail::subtractDescendantColumns(model, i, H.col(i), B_T, i + 1, below + e - i - 1);
  }
  // D w = z, then L x = w, root first.
  for (int k = 0; k < nv; ++k) B_T.col(k) *= 1.0 / H(k, k);
  for (int k = 0; k < nv; ++k) detail::subtractAncestorColumns(model, k, H.row(k), B_T, k);
}

// Y = -A B for nv x nv matrices, in panels small enough that Eigen's product keeps its packed
// copies of both on the stack (each at most half its stack limit): nothing is allocated at any nv.
void negatedProduct(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, Eigen::MatrixXd& Y) {
  constexpr Eigen::Index kPanelEntries = EIGEN_STACK_ALLOCATION_LIMIT / (2 * sizeof(double));
  const Eigen::Index n = A.rows();
  const Eigen::Index p = std::max<Eigen::Index>(1, std::min(n, kPanelEntries / n));
  for (Eigen::Index r = 0; r < n; r += p) {
    const Eigen::Index rows = std::min(p, n - r);
    for (Eigen::Index c = 0; c < n; c += p) {
      const Eigen::Index cols = std::min(p, n - c);
      Y.block(r, c, rows, cols).noalias() = -A.middleRows(r, rows) * B.middleCols(c, cols);
    }
  }
}

// d qdd / dq = -M^-1 d tau / dq, d qdd / dv likewise, and M^-1. Chain-like trees form M^-1 and
// multiply (derivatives.hpp's abaDerivativesUseDenseProducts); the others solve for all three
// at once, B = [1, d tau / dq, d tau / dv], as X^T = B^T M^-1 (M is symmetric).
// @pre data.LTDL, data.dtau_dq and data.dtau_dv.
GCBRIDGE_FLATTEN void solveForAccelerationDerivatives(const Model& model, Data& data) {
  const int nv = model.nv;
  if (abaDerivativesUseDenseProducts(model)) {
    data.Minv.setIdentity();
    solveWithIdentityOnTop(model, data.LTDL, data.Minv);
    data.Minv.triangularView<Eigen::StrictlyUpper>() = data.Minv.transpose();
    negatedProduct(data.Minv, data.dtau_dq, data.dqdd_dq);
    negatedProduct(data.Minv, data.dtau_dv, data.dqdd_dv);
    return;
  }
  Eigen::MatrixXd& B_T = data.tmp_rhs_T;
  B_T.topRows(nv).setIdentity();
  B_T.middleRows(nv, nv) = data.dtau_dq.transpose();
  B_T.bottomRows(nv) = data.dtau_dv.transpose();
  solveWithIdentityOnTop(model, data.LTDL, B_T);
  data.Minv.triangularView<Eigen::Lower>() = B_T.topRows(nv);
  data.Minv.triangularView<Eigen::StrictlyUpper>() = data.Minv.transpose();
  data.dqdd_dq = -B_T.middleRows(nv, nv).transpose();
  data.dqdd_dv = -B_T.bottomRows(nv).transpose();
}

// qdd = M^-1 (tau - h) with the tree factor, from passes run at a = 0 (which give M and the bias
// forces h), then the accelerations' terms added (tau is linear in a). @pre placeLinks ran.
template <bool kExternal>
void passesWithQddFromTheFactor(const Model& model, Data& data, const ConstVectorRef& q,
                                const ConstVectorRef& v, const ConstVectorRef& tau,
                                ReferenceFrame frame) {
  // Copied first: tau may be data.tau, which the mass pass fills with h.
  data.qdd = tau;
  forwardPass(model, data, q, v, data.zero_v, kExternal, frame);
  backwardPass<kExternal, false, true>(model, data, q);
  factorizeMassMatrix(model, data);
  data.qdd -= data.tau;
  solveMassMatrix(model, data, data.qdd);
  addAccelerationTerms(model, data, q, data.qdd);
  backwardPass<kExternal, true, false>(model, data, q);
}

// d qdd = -M^-1 d tau at a = qdd. On chain-like trees (abaDerivativesUseDenseProducts) qdd comes
// from the ABA, which costs little there next to the products and stays accurate where M is
// ill-conditioned (the ABA does placeLinks' work itself); elsewhere from the factor of M, which
// saves the ABA.
void abaDerivativesChecked(const Model& model, Data& data, const ConstVectorRef& q,
                           const ConstVectorRef& v, const ConstVectorRef& tau,
                           const ExternalForces* f_ext) {
  const bool chain_like = abaDerivativesUseDenseProducts(model);
  if (chain_like && f_ext != nullptr) {
    aba(model, data, q, v, tau, *f_ext);
    rneaDerivativePasses<true>(model, data, q, v, data.qdd, f_ext->frame);
    factorizeMassMatrix(model, data);
  } else if (chain_like) {
    detail::abaUnchecked(model, data, q, v, tau);
    rneaDerivativePasses<false>(model, data, q, v, data.qdd, ReferenceFrame::Local);
    factorizeMassMatrix(model, data);
  } else if (f_ext != nullptr) {
    placeLinks(model, data, q, f_ext);
    passesWithQddFromTheFactor<true>(model, data, q, v, tau, f_ext->frame);
  } else {
    placeLinks(model, data, q, nullptr);
    passesWithQddFromTheFactor<false>(model, data, q, v, tau, ReferenceFrame::Local);
  }
  solveForAccelerationDerivatives(model, data);
}

}  // namespace

void rneaDerivatives(const Model& model, Data& data, const ConstVectorRef& q,
                     const ConstVectorRef& v, const ConstVectorRef& a) {
  checkInputs(model, data, q, v, a, "a", "rneaDerivatives");
  rneaDerivativesChecked(model, data, q, v, a, nullptr);
}

void rneaDerivatives(const Model& model, Data& data, const ConstVectorRef& q,
                     const ConstVectorRef& v, const ConstVectorRef& a,
                     const ExternalForces& f_ext) {
  checkInputs(model, data, q, v, a, "a", "rneaDerivatives");
  rneaDerivativesChecked(model, data, q, v, a, &f_ext);
}

void abaDerivatives(const Model& model, Data& data, const ConstVectorRef& q,
                    const ConstVectorRef& v, const ConstVectorRef& tau) {
  checkInputs(model, data, q, v, tau, "tau", "abaDerivatives");
  abaDerivativesChecked(model, data, q, v, tau, nullptr);
}

void abaDerivatives(const Model& model, Data& data, const ConstVectorRef& q,
                    const ConstVectorRef& v, const ConstVectorRef& tau,
                    const ExternalForces& f_ext) {
  checkInputs(model, data, q, v, tau, "tau", "abaDerivatives");
  abaDerivativesChecked(model, data, q, v, tau, &f_ext);
}

}  // namespace gcbridge
