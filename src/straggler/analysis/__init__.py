"""Analytic evaluation, one module per model family.

- :mod:`.queues`: classic single-queue results (Pollaczek-Khinchine, M/G/1-PS, Erlang C);
- :mod:`.threshold`: two pools with job-server affinity (threshold paper);
- :mod:`.cell`: the analytic answers for one grid cell, whatever its policy.
"""
