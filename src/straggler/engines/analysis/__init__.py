"""Analytic evaluation, one module per model family.

- :mod:`.queues`: classic single-queue results (Pollaczek-Khinchine, M/G/1-PS, Erlang C);
- :mod:`.threshold`: two pools with job-server affinity (threshold paper), the stability
  bounds optimised over its thresholds :mod:`.threshold_search`;
- :mod:`.order_statistics` and :mod:`.forkjoin`: the fork-join paper's formulas;
- :mod:`.cell`: the analytic answers for one grid cell, whatever its policy (the
  dispatcher); its result type is :mod:`.result`, its bounds :mod:`.bounds`, and each
  policy family's handlers have their module (:mod:`.two_pool_handlers`,
  :mod:`.d_of_n_handlers`, :mod:`.fork_join_handlers`, :mod:`.hedging_handlers`,
  :mod:`.single_copy`);
- :mod:`.hedging`: hedged requests (no paper: a pathwise latency bound, light-traffic values);
- :mod:`.cancel_delay`: which results hold when a cancelled copy keeps its server.
"""
