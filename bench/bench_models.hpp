#pragma once
// The models every benchmark runs on: the KUKA iiwa (fixed base), the DeepMimic humanoid
// (floating base) and serial revolute chains, so that figures from different programs compare.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/dynamics.hpp"

namespace gcbridge::bench {

inline constexpr double kLinkLength = 0.2;  // [m]
inline constexpr double kLinkMass = 1.0;    // [kg]
inline constexpr double kLinkRadius =
    0.02;  // [m], of the solid cylinder whose inertia each link has
inline constexpr std::uint64_t kSeed = 42;
inline constexpr int kChainLengths[] = {4, 16, 64, 256};

/// Axis of chain joint k: x for even k, y for odd k.
inline Vector3 chainAxis(int k) { return k % 2 == 0 ? Vector3::UnitX() : Vector3::UnitY(); }

/// Rotational inertia of a chain link about its COM, link axes: a solid cylinder along z.
inline Vector3 chainLinkPrincipalInertia() {
  const double r2 = kLinkRadius * kLinkRadius, l2 = kLinkLength * kLinkLength;
  const double transverse = kLinkMass * (3.0 * r2 + l2) / 12.0;
  return Vector3(transverse, transverse, kLinkMass * r2 / 2.0);
}

/// A serial chain of n revolute links: link k's frame sits at its joint, 0.2 m above link k-1's.
inline Model chainModel(int n) {
  ModelBuilder builder("chain" + std::to_string(n));
  const Matrix3 I_Lcm_L = chainLinkPrincipalInertia().asDiagonal();
  for (int k = 0; k < n; ++k) {
    const std::string link = "link" + std::to_string(k);
    builder.addLink(link, kLinkMass, Vector3(0.0, 0.0, kLinkLength / 2.0), I_Lcm_L);
    const Transform X_PJ(Matrix3::Identity(), Vector3(0.0, 0.0, k == 0 ? 0.0 : kLinkLength));
    builder.addRevolute("joint" + std::to_string(k),
                        k == 0 ? "world" : "link" + std::to_string(k - 1), link, X_PJ,
                        chainAxis(k));
  }
  return builder.build();
}

/// The shipped KUKA iiwa, fixed base.
inline Model iiwaModel() { return loadUrdf(GCBRIDGE_MODELS_DIR "/kuka_iiwa/model.urdf"); }

/// The shipped DeepMimic humanoid with a floating base (nv = 34).
inline Model humanoidModel() {
  ModelOptions floating;
  floating.floating_base = true;
  return loadUrdf(GCBRIDGE_MODELS_DIR "/humanoid_deepmimic/humanoid.urdf", floating);
}

/// CPU time per call [ns] of every benchmark that ran, by name. `median`: the median over its
/// repetitions when it ran several (--benchmark_repetitions; with or without
/// --benchmark_report_aggregates_only), else total time / iterations. `fastest`: its fastest
/// repetition (the "min" statistic registerBenchmark adds; only with repetitions). Benchmarks that
/// reported an error are left out.
struct Timings {
  std::map<std::string, double> median;
  std::map<std::string, double> fastest;
};

/// Registers a benchmark as benchmark::RegisterBenchmark does, with one more statistic over its
/// repetitions: "min", the fastest. On a shared machine a repetition is only ever slowed by the
/// others, so the fastest estimates the undisturbed cost of both sides of a ratio.
template <typename... Args>
benchmark::internal::Benchmark* registerBenchmark(const std::string& name, Args&&... args) {
  return benchmark::RegisterBenchmark(name.c_str(), std::forward<Args>(args)...)
      ->ComputeStatistics("min", [](const std::vector<double>& values) {
        return *std::min_element(values.begin(), values.end());
      });
}

/// A display reporter that hands everything to the one --benchmark_format asks for and records
/// the Timings, so that a program can print ratios between benchmarks of the same run.
class TimingRecorder : public benchmark::BenchmarkReporter {
 public:
  TimingRecorder() : display_(benchmark::CreateDefaultDisplayReporter()) {}

  bool ReportContext(const Context& context) override { return display_->ReportContext(context); }

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.error_occurred || run.iterations <= 0) continue;
      const std::string& name = run.run_name.function_name;
      const double per_call = 1e9 * run.cpu_accumulated_time / static_cast<double>(run.iterations);
      if (run.run_type == Run::RT_Aggregate) {
        // An aggregate's accumulated time is the statistic of the repetitions' totals.
        if (run.aggregate_name == "median") medians_[name] = per_call;
        if (run.aggregate_name == "min") fastest_[name] = per_call;
      } else if (run.run_type == Run::RT_Iteration) {
        Sum& sum = sums_[name];
        sum.cpu_seconds += run.cpu_accumulated_time;
        sum.iterations += static_cast<double>(run.iterations);
      }
    }
    display_->ReportRuns(runs);
  }

  void Finalize() override { display_->Finalize(); }

  Timings timings() const {
    Timings timings;
    for (const auto& [name, sum] : sums_) {
      timings.median[name] = 1e9 * sum.cpu_seconds / sum.iterations;
    }
    for (const auto& [name, median] : medians_) timings.median[name] = median;
    timings.fastest = fastest_;
    return timings;
  }

  /// Where text after the benchmark output belongs: stdout under the console display, stderr
  /// under JSON or CSV (which must stay parseable).
  std::ostream& summaryStream() const {
    return dynamic_cast<const benchmark::ConsoleReporter*>(display_.get()) != nullptr
               ? display_->GetOutputStream()
               : display_->GetErrorStream();
  }

 private:
  struct Sum {
    double cpu_seconds = 0.0;
    double iterations = 0.0;
  };
  std::unique_ptr<benchmark::BenchmarkReporter> display_;
  std::map<std::string, Sum> sums_;
  std::map<std::string, double> medians_;
  std::map<std::string, double> fastest_;
};

/// The body of a benchmark program's main: builds the subjects (a failure to load a model ends
/// the program with a message), registers their benchmarks, runs what the command line asks, then
/// calls `summarize(const Timings&, std::ostream&)` once every benchmark ran: for ratios between
/// benchmarks measured in the same run. `per_unit` describes the custom per-dof/per-link counter.
template <typename MakeSubjects, typename Register, typename Summarize>
int runBenchmarkProgram(int argc, char** argv, const char* program, const char* per_unit_name,
                        const char* per_unit, MakeSubjects&& make_subjects, Register&& register_all,
                        Summarize&& summarize) {
  decltype(make_subjects()) subjects;
  try {
    subjects = make_subjects();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 1;
  }
  register_all(subjects);
  benchmark::AddCustomContext("bullet_precision", bulletPrecisionName());
  benchmark::AddCustomContext(per_unit_name, per_unit);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  TimingRecorder recorder;  // after Initialize: it reads --benchmark_format
  benchmark::RunSpecifiedBenchmarks(&recorder);
  summarize(recorder.timings(), recorder.summaryStream());
  benchmark::Shutdown();
  return 0;
}

/// runBenchmarkProgram without a summary after the benchmarks.
template <typename MakeSubjects, typename Register>
int runBenchmarkProgram(int argc, char** argv, const char* program, const char* per_unit_name,
                        const char* per_unit, MakeSubjects&& make_subjects,
                        Register&& register_all) {
  return runBenchmarkProgram(argc, argv, program, per_unit_name, per_unit,
                             std::forward<MakeSubjects>(make_subjects),
                             std::forward<Register>(register_all),
                             [](const Timings&, std::ostream&) {});
}

}  // namespace gcbridge::bench
