// A benchmark row's target: a bound on the ratio ours / anchor, judged on
// the median of runs in which both were measured side by side. The verdict
// also says in how many of those runs the single run's ratio met it, since
// a median of a handful of noisy runs can sit on either side of the bound.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace rocksdb_cuckoo {

struct RatioTarget {
  enum Direction { kAtLeast, kAtMost };
  Direction direction;
  double bound;
  // "target" or "goal" (a stretch beyond the target).
  const char* kind = "target";

  bool Met(double ratio) const {
    return direction == kAtLeast ? ratio >= bound : ratio <= bound;
  }

  // "target >=4x met (5 of 7 runs)" for the median ratio and the ratios of
  // the single runs.
  std::string Verdict(double median_ratio,
                      const std::vector<double>& run_ratios) const {
    int met_runs = 0;
    for (double r : run_ratios) met_runs += Met(r) ? 1 : 0;
    char text[96];
    snprintf(text, sizeof(text), "%s %s%.3gx %s (%d of %zu runs)", kind,
             direction == kAtLeast ? ">=" : "<=", bound,
             Met(median_ratio) ? "met" : "NOT met", met_runs,
             run_ratios.size());
    return text;
  }
};

// Each run's own ratio ours / theirs, the two sample lists being paired by
// run (the contenders took turns within each run).
inline std::vector<double> PairedRatios(const std::vector<double>& ours,
                                        const std::vector<double>& theirs) {
  std::vector<double> ratios;
  for (size_t i = 0; i < ours.size() && i < theirs.size(); ++i) {
    ratios.push_back(ours[i] / theirs[i]);
  }
  return ratios;
}

}  // namespace rocksdb_cuckoo
