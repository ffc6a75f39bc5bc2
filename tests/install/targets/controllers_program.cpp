// Links gcbridge::controllers alone and calls nothing else of gcbridge (its own dependency on
// gcbridge::dynamics must be found by the library itself): a two-variable QP.
#include <cstdio>

#include "gcbridge/controllers.hpp"

int main() {
  gcbridge::QuadraticProgram qp;
  qp.H = Eigen::MatrixXd::Identity(2, 2);
  qp.g = Eigen::VectorXd::Constant(2, -1.0);
  qp.A_eq.resize(0, 2);
  qp.b_eq.resize(0);
  qp.A_in = -Eigen::MatrixXd::Identity(2, 2);
  qp.b_in = Eigen::VectorXd::Constant(2, -0.5);
  const gcbridge::QpResult result = gcbridge::QpSolver().solve(qp);
  std::printf("controllers: %s, x = (%.2f, %.2f)\n", gcbridge::toString(result.status),
              result.x(0), result.x(1));
  return result.status == gcbridge::QpStatus::Solved ? 0 : 1;
}
