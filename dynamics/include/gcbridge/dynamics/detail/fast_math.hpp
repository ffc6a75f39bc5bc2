#pragma once
/// @file
/// Fast sin/cos and atan2 for joint angles, where the dynamics and the bridge spend their time on
/// revolute joints. Internal to gcbridge (namespace detail): the libraries use them, the API does
/// not offer them.

#include <cmath>

namespace gcbridge::detail {

/// sin(x) and cos(x) together, for joint angles: within 3e-16 of the exact values (absolute)
/// for |x| <= 1e5, std::sin and std::cos beyond (and for NaN or infinity). Cheaper than the C
/// library's (which takes care of every x), and the dynamics pays it once per revolute joint.
/// x is reduced by the nearest multiple k of pi/2 (Cody-Waite: pi/2 in three parts, the first two
/// with 33 significant bits so that k times them is exact for |k| < 2^20), then Taylor series
/// to r^17 and r^16 on |r| <= pi/4 (truncation below 1e-19) give sin and cos of the remainder.
inline void sinCos(double x, double& s, double& c) {
  if (!(std::abs(x) <= 1e5)) {
    s = std::sin(x);
    c = std::cos(x);
    return;
  }
  constexpr double kTwoOverPi = 0.63661977236758134308;
  constexpr double kPiOver2High = 0x1.921fb544p+0, kPiOver2Middle = 0x1.0b4611a6p-34,
                   kPiOver2Low = 0x1.3198a2e037073p-69;
  // Round to nearest without a library call: adding 1.5 * 2^52 leaves no fraction bits.
  constexpr double kRound = 0x1.8p52;
  const double k = (x * kTwoOverPi + kRound) - kRound;
  const double r = ((x - k * kPiOver2High) - k * kPiOver2Middle) - k * kPiOver2Low;
  // The series in t = r^2 by Estrin's scheme (pairs, pairs of pairs, then the halves joined by
  // t^4): a few short chains of dependent operations where Horner's rule is one long one.
  const double t = r * r, t2 = t * t, t4 = t2 * t2;
  const double sin_tail =
      ((-1.0 / 6.0 + t * (1.0 / 120.0)) + t2 * (-1.0 / 5040.0 + t * (1.0 / 362880.0))) +
      t4 * ((-1.0 / 39916800.0 + t * (1.0 / 6227020800.0)) +
            t2 * (-1.0 / 1307674368000.0 + t * (1.0 / 355687428096000.0)));
  const double cos_tail = ((-0.5 + t * (1.0 / 24.0)) + t2 * (-1.0 / 720.0 + t * (1.0 / 40320.0))) +
                          t4 * ((-1.0 / 3628800.0 + t * (1.0 / 479001600.0)) +
                                t2 * (-1.0 / 87178291200.0 + t * (1.0 / 20922789888000.0)));
  const double sin_r = r + (r * t) * sin_tail;
  const double cos_r = 1.0 + t * cos_tail;
  // x = k pi/2 + r: rotate (sin r, cos r) by k quarter turns.
  switch (static_cast<long>(k) & 3) {
    case 0:
      s = sin_r;
      c = cos_r;
      break;
    case 1:
      s = cos_r;
      c = -sin_r;
      break;
    case 2:
      s = -sin_r;
      c = -cos_r;
      break;
    default:
      s = -cos_r;
      c = sin_r;
      break;
  }
}

/// atan(i / 32) for i = 0 .. 32, rounded to nearest (computed with 200-bit mpmath).
inline constexpr double kAtanOf32nds[33] = {
    0x0.0p+0,              0x1.ffd55bba97625p-6, 0x1.ff55bb72cfdeap-5, 0x1.7ee182602f10fp-4,
    0x1.fd5ba9aac2f6ep-4, 0x1.3d6eee8c6626cp-3, 0x1.7b97b4bce5b02p-3, 0x1.b90d7529260a2p-3,
    0x1.f5b75f92c80ddp-3, 0x1.18bf5a30bf178p-2, 0x1.362773707ebccp-2, 0x1.530ad9951cd4ap-2,
    0x1.6f61941e4def1p-2, 0x1.8b24d394a1b25p-2, 0x1.a64eec3cc23fdp-2, 0x1.c0db4c94ec9f0p-2,
    0x1.dac670561bb4fp-2, 0x1.f40dd0b541418p-2, 0x1.0657e94db30d0p-1, 0x1.1255d9bfbd2a9p-1,
    0x1.1e00babdefeb4p-1, 0x1.2958e59308e31p-1, 0x1.345f01cce37bbp-1, 0x1.3f13fb89e96f4p-1,
    0x1.4978fa3269ee1p-1, 0x1.538f57b89061fp-1, 0x1.5d58987169b18p-1, 0x1.66d663923e087p-1,
    0x1.700a7c5784634p-1, 0x1.78f6bbd5d315ep-1, 0x1.819d0b7158a4dp-1, 0x1.89ff5ff57f1f8p-1,
    0x1.921fb54442d18p-1};

/// atan2(y, x), for reading joint angles: within 2 ulp of std::atan2 when the larger of |x| and
/// |y| is in [1e-30, 1e30] (a float's range), std::atan2 otherwise (zeros, NaN, infinities);
/// about twice as fast.
/// With n <= d the smaller and larger of |x| and |y|, atan(n / d) = atan(c) + atan(u) for the
/// nearest c = i/32 (found with a float division: an index off by one only widens |u| a little)
/// and u = (n - c d) / (d + c n), |u| <= 1/64, whose Taylor series to u^9 is exact to 1e-19
/// relative; the octant then comes from the signs and from which of |x|, |y| is larger.
inline double arcTan2(double y, double x) {
  const double ax = std::abs(x), ay = std::abs(y);
  if (!(ax <= 1e30 && ay <= 1e30 && (ax >= 1e-30 || ay >= 1e-30))) return std::atan2(y, x);
  const bool steep = ay > ax;
  const double n = steep ? ax : ay, d = steep ? ay : ax;
  const int i = static_cast<int>(static_cast<float>(n) / static_cast<float>(d) * 32.0f + 0.5f);
  const double c = i * (1.0 / 32.0);
  const double u = (n - c * d) / (d + c * n);
  const double u2 = u * u;
  double a = kAtanOf32nds[i] +
             (u + u * u2 * (-1.0 / 3.0 + u2 * (1.0 / 5.0 + u2 * (-1.0 / 7.0 + u2 * (1.0 / 9.0)))));
  // pi/2 and pi in two parts, so that pi/2 - a and pi - a round once.
  constexpr double kPiOver2High = 0x1.921fb54442d18p+0, kPiOver2Low = 0x1.1a62633145c07p-54;
  if (steep) a = (kPiOver2High - a) + kPiOver2Low;
  if (x < 0.0) a = (2.0 * kPiOver2High - a) + 2.0 * kPiOver2Low;
  return std::signbit(y) ? -a : a;
}

}  // namespace gcbridge::detail
