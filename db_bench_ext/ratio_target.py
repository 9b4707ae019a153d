"""A benchmark row's target: a bound on the ratio ours / anchor.

It is judged on the ratio of the medians of runs in which both were measured
side by side; the verdict also says in how many of those runs the single
run's ratio met it, since a median of a handful of noisy runs can sit on
either side of the bound.
"""


class RatioTarget:
    def __init__(self, at_least, bound, kind="target"):
        self.at_least = at_least  # higher is better
        self.bound = bound
        self.kind = kind  # "target", or "goal" for a stretch beyond it

    def met(self, ratio):
        return ratio >= self.bound if self.at_least else ratio <= self.bound

    def verdict(self, median_ratio, run_ratios):
        """Says whether the median ratio meets the bound, and in how many runs.

        >>> RatioTarget(True, 2.5).verdict(2.6, [2.4, 2.5, 3.0])
        'target >=2.5x met (2 of 3 runs)'
        >>> RatioTarget(False, 1.0).verdict(1.02, [0.9, 1.02, 1.1])
        'target <=1x NOT met (1 of 3 runs)'
        >>> RatioTarget(False, 0.5, "goal").verdict(0.5, [0.5])
        'goal <=0.5x met (1 of 1 runs)'
        """
        met_runs = sum(1 for r in run_ratios if self.met(r))
        return (f"{self.kind} {'>=' if self.at_least else '<='}{self.bound:g}x "
                f"{'met' if self.met(median_ratio) else 'NOT met'} "
                f"({met_runs} of {len(run_ratios)} runs)")


def paired_ratios(ours, theirs):
    """Each run's own ratio, the two lists being paired by run; a run whose
    anchor is 0 counts as 1.0 when ours is 0 too (both nothing), else as
    infinitely far above the anchor.

    >>> paired_ratios([2.0, 0.0, 3.0], [1.0, 0.0, 0.0])
    [2.0, 1.0, inf]
    """
    return [o / t if t else (1.0 if o == t else float("inf"))
            for o, t in zip(ours, theirs)]
