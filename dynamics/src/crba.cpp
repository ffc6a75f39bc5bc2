#include "gcbridge/dynamics/crba.hpp"

#include <algorithm>
#include <string>

#include "detail.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "joints/dispatch.hpp"
#include "tree_lu.hpp"

namespace gcbridge {
namespace {

// S . F written out term by term.
inline double dot6(const double* S, const double* F) {
  return S[0] * F[0] + S[1] * F[1] + S[2] * F[2] + S[3] * F[3] + S[4] * F[4] + S[5] * F[5];
}

// Moves each link's pose, motion subspace and own inertia to the root link's frame R.
void placeLinksInRootFrame(const Model& model, Data& data) {
  const Transform X_RW = data.X_PB[0].inverse();
  for (int k = 0; k < model.numLinks(); ++k) {
    const int p = model.parents[k];
    data.X_RB[k] = p >= 0 ? data.X_RB[p] * data.X_PB[k] : X_RW * data.X_PB[k];
    data.Ic_R[k] = InertiaMoments();
    model.inertia_moments[k].addTransformedTo(data.X_RB[k], data.Ic_R[k]);
    const Joint& joint = model.joints[k];
    for (int i = joint.idx_v; i < joint.idx_v + joint.nv; ++i) {
      data.S_R.col(i) = data.X_RB[k].act(Motion(Vector6(data.S_B.col(i)))).vector();
    }
  }
}

// M(i, r) = M(r, i) = S_i . (Ic S_r) for each dof i and each r among i and its descendants (the
// dofs after i up to its subtree's end), for eight consecutive i at a time: each Ic S_r read
// serves eight products, written to eight consecutive entries of column r and down eight
// columns. (Dof by dof, the entries along a row lie nv apart in memory, which the cache cannot
// hold on long chains.) The work stays O(n d): a block's r run to the end of the largest of its
// eight subtrees, which is at most the sum of their sizes.
void fillAncestorPairs(const Model& model, Data& data) {
  constexpr int kBlock = 8;
  Eigen::MatrixXd& M = data.M;
  // S_i starts at S + 6 i: read once here, not reloaded from data for every product.
  const double* S = data.S_R.data();
  for (int first = 0; first < model.nv; first += kBlock) {
    const int next = std::min(first + kBlock, model.nv);
    int ends[kBlock];
    int block_end = 0;
    for (int i = first; i < next; ++i) {
      ends[i - first] = detail::subtreeDofEnd(model, i);
      block_end = std::max(block_end, ends[i - first]);
    }
    for (int r = first; r < block_end; ++r) {
      const double* IcS_r = &data.IcS_R(0, r);
      double* M_r = &M(0, r);
      for (int i = first; i < next && i <= r; ++i) {
        if (r < ends[i - first]) M_r[i] = M(r, i) = dot6(S + 6 * i, IcS_r);
      }
    }
  }
}

/// M in the root link's frame R (Featherstone's CRBA in a fixed frame, RBDA sec. 6.2; Pinocchio's
/// WORLD convention, with R in place of the world so that the moments stay small far from the
/// world's origin).
/// Inputs: data.X_PB and data.S_B at q. Outputs: data.M (the ancestor pairs, both triangles), and
/// data.X_RB, data.S_R, data.Ic_R and data.IcS_R.
/// Each link's pose, motion subspace and inertia are moved to R once; the composite inertias then
/// add without transforms, and M(i, j) = S_i . (Ic S_j) is one 6-vector product per ancestor dof
/// i of j.
void crbaInRootFrame(const Model& model, Data& data) {
  placeLinksInRootFrame(model, data);
  for (int k = model.numLinks() - 1; k >= 0; --k) {
    const Joint& joint = model.joints[k];
    for (int j = joint.idx_v; j < joint.idx_v + joint.nv; ++j) {
      data.IcS_R.col(j) = (data.Ic_R[k] * Motion(Vector6(data.S_R.col(j)))).vector();
    }
    const int p = model.parents[k];
    if (p >= 0) data.Ic_R[p] += data.Ic_R[k];
  }
  fillAncestorPairs(model, data);
}

// The force rule from a link's frame B to its parent's P: f_P = R_PB f_B, n_P = R_PB n_B +
// p_PB x f_P. The products go straight into the outputs: written as one expression, Eigen's
// temporaries for them stay in memory in clang's code.
inline void forceToParent(const Matrix3& R_PB, const Vector3& p_PB, const Vector3& n_B,
                          const Vector3& f_B, Vector3& n_P, Vector3& f_P) {
  f_P.noalias() = R_PB * f_B;
  n_P.noalias() = R_PB * n_B;
  n_P += p_PB.cross(f_P);
}

// Joint k's rows and columns of M (RBDA Table 6.2's inner loops, one link at a time as
// Pinocchio's LOCAL convention goes): the joint's own block M(i, j) = S_i . (Ic S_j), then
// M(i, r) = M(r, i) = S_i . F_r for each dof r of the link's descendants, whose forces F_r
// (data.IcS_B) have reached the link's frame. With `to_parent`, the joint's own forces Ic S_j are
// stored in the parent's frame, ready for the next link up.
template <typename K>
void jointEntries(const Model& model, Data& data, int k, int end, bool to_parent) {
  const Joint& joint = model.joints[k];
  const Transform& X_PB = data.X_PB[k];
  for (int jj = 0; jj < K::nv; ++jj) {
    const int j = joint.idx_v + jj;
    Vector3 n_F, f_F;
    K::compositeColumn(joint, data, data.Ic_B[k], jj, n_F, f_F);
    for (int ii = jj; ii < K::nv; ++ii) {
      data.M(joint.idx_v + ii, j) = data.M(j, joint.idx_v + ii) =
          K::subspaceDot(joint, data, ii, n_F, f_F);
    }
    if (!to_parent) continue;
    Vector3 n_P, f_P;
    forceToParent(X_PB.rotation(), X_PB.translation(), n_F, f_F, n_P, f_P);
    // Half by half: a comma initializer's alignment tests cost more than the stores.
    data.IcS_B.col(j).head<3>() = n_P;
    data.IcS_B.col(j).tail<3>() = f_P;
  }
  // Column by column, each read once for all of the joint's dofs.
  for (int r = joint.idx_v + K::nv; r < end; ++r) {
    const Vector3 n_F = data.IcS_B.col(r).head<3>(), f_F = data.IcS_B.col(r).tail<3>();
    for (int ii = 0; ii < K::nv; ++ii) {
      const int i = joint.idx_v + ii;
      data.M(i, r) = data.M(r, i) = K::subspaceDot(joint, data, ii, n_F, f_F);
    }
  }
}

// The descendants' forces F_r (data.IcS_B's columns first to end - 1) moved from link k's frame B
// to its parent's. Each is moved on its own: the loop's iterations do not wait for one another.
void moveForcesToParent(const Transform& X_PB, int first, int end, Data& data) {
  for (int r = first; r < end; ++r) {
    Vector3 n_P, f_P;
    forceToParent(X_PB.rotation(), X_PB.translation(), data.IcS_B.col(r).head<3>(),
                  data.IcS_B.col(r).tail<3>(), n_P, f_P);
    data.IcS_B.col(r).head<3>() = n_P;
    data.IcS_B.col(r).tail<3>() = f_P;
  }
}

/// M in the links' frames (RBDA Table 6.2): from the leaves to the root, the composite inertia Ic
/// of each link's subtree and its joint's rows and columns of M. The forces Ic S_j of the dofs of
/// a link's subtree move to the parent's frame together, one force transform per link and dof
/// below it (as in Pinocchio's LOCAL convention), rather than each climbing to the root alone.
/// Inputs: data.X_PB at q. Outputs: data.M (the ancestor pairs, both triangles), data.Ic_B and
/// data.IcS_B.
void crbaInLinkFrames(const Model& model, Data& data) {
  const int n = model.numLinks();
  for (int k = 0; k < n; ++k) data.Ic_B[k] = model.inertia_moments[k];
  for (int k = n - 1; k >= 0; --k) {
    const Joint& joint = model.joints[k];
    const int end = detail::linkSubtreeDofEnd(model, k);
    const int p = model.parents[k];
    // Dofs are numbered depth first: no dof lies above k when none precedes it.
    const bool to_parent = p >= 0 && joint.idx_v > 0;
    joints::dispatch(joint, [&](auto kernel) {
      using K = decltype(kernel);
      if constexpr (K::nv > 0) jointEntries<K>(model, data, k, end, to_parent);
    });
    if (p < 0) continue;
    data.Ic_B[k].addTransformedTo(data.X_PB[k], data.Ic_B[p]);
    if (to_parent) moveForcesToParent(data.X_PB[k], joint.idx_v + joint.nv, end, data);
  }
}

}  // namespace

GCBRIDGE_FLATTEN const Eigen::MatrixXd& crba(const Model& model, Data& data,
                                             const ConstVectorRef& q) {
  checkData(model, data, "crba");
  validateConfiguration(model, q);
  detail::updateJointPlacements(model, data, q);
  if (model.mean_dof_depth > kCrbaRootFrameDepth) {
    crbaInRootFrame(model, data);
  } else {
    crbaInLinkFrames(model, data);
  }
  return data.M;
}

void factorizeMassMatrix(const Model& model, Data& data) {
  checkData(model, data, "factorizeMassMatrix");
  // Featherstone's LTDL (RBDA Table 6.3): eliminate from the leaves up, touching only the
  // ancestors of each dof, so M's tree sparsity is kept. The reduction runs on the upper
  // triangle, where column i's entries on i's ancestors (rows j < i) lie in runs of contiguous
  // memory; each multiplier goes to both triangles.
  Eigen::MatrixXd& H = data.LTDL;
  H = data.M;
  for (int k = model.nv - 1; k >= 0; --k) {
    if (!(H(k, k) > 0.0)) {
      throw SingularityError("mass matrix is not positive definite at dof " + std::to_string(k) +
                             " of joint '" + model.joints[model.dof_link[k]].name + "'");
    }
    const double* H_k = H.col(k).data();
    for (int i = model.dof_parent[k]; i >= 0; i = model.dof_parent[i]) {
      const double a = H_k[i] / H_k[k];
      double* H_i = H.col(i).data();
      detail::forEachAncestorRun(model, i, [&](int first, int n) {
        for (int j = first; j < first + n; ++j) H_i[j] -= a * H_k[j];
      });
      H(k, i) = H(i, k) = a;
    }
  }
}

void solveMassMatrix(const Model& model, const Data& data, Eigen::Ref<Eigen::VectorXd> x) {
  checkData(model, data, "solveMassMatrix");
  if (x.size() != model.nv) {
    throw InvalidArgumentError("solveMassMatrix: vector has size " + std::to_string(x.size()) +
                               ", needs nv = " + std::to_string(model.nv));
  }
  const Eigen::MatrixXd& H = data.LTDL;
  const std::vector<int>& lambda = model.dof_parent;
  // L^T z = b (leaves first), then D w = z, then L x = w (root first).
  for (int k = model.nv - 1; k >= 0; --k) {
    for (int i = lambda[k]; i >= 0; i = lambda[i]) x[i] -= H(k, i) * x[k];
  }
  for (int k = 0; k < model.nv; ++k) x[k] /= H(k, k);
  for (int k = 0; k < model.nv; ++k) {
    for (int i = lambda[k]; i >= 0; i = lambda[i]) x[k] -= H(k, i) * x[i];
  }
}

const Eigen::MatrixXd& computeMassMatrixInverse(const Model& model, Data& data) {
  checkData(model, data, "computeMassMatrixInverse");
  data.Minv.setIdentity();
  for (int j = 0; j < model.nv; ++j) solveMassMatrix(model, data, data.Minv.col(j));
  return data.Minv;
}

}  // namespace gcbridge
