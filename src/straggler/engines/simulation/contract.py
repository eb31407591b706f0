"""The kernel contract: what every simulation engine's kernel takes, writes into and
returns, and the random-number contract, the order in which it reads the random streams
(the FCFS fast path, :mod:`.fast`, and the event engine, :mod:`.events`, follow both, and
so does the pure-Python reference, :mod:`.reference`: they are compared job by job).
A kernel is chosen and called through :mod:`.engines` and :mod:`.replication`.

Kernel contract (every engine): ``run(*encoded.kernel_args(), lam, warmup, jobs,
out, rngs)``, with ``out = (acc, batches, hist, mon, trace, workloads)`` the statistics it
writes into, a numba function (``nogil``) that returns nothing and

* simulates ``warmup + jobs`` Poisson arrivals at rate ``lam`` from a system whose
  server s holds ``workloads[s]`` of work at t = 0 (zeros: empty; FCFS per-server
  queues only, :mod:`.start`), as a job of no one's at the head of its queue
  (``encoded``: :class:`.encode.Encoded`; ``rngs``: the tuple of
  :func:`.streams.replication_streams`);
* writes into ``workloads`` each server's work left at the last arrival (per-server
  queues; its end state, from which a larger system may start, :mod:`.start`);
* records each of the last ``jobs`` jobs with :func:`.statistics.record`
  (measured index = arrival index - warmup; latency = completion - arrival;
  cost = server time of all its replicas);
* writes its first ``len(trace)`` jobs' ``(latency, cost)`` (warm-up included,
  by arrival index) into ``trace`` (shape ``(n, 2)``, usually ``(0, 2)``);
* every ``ints[I_CHECK]`` arrivals writes a checkpoint row into ``mon`` and calls
  :func:`.statistics.backlog_check` with ``flts[F_MONITOR_WAIT]``; when it fires
  (or a bounded buffer would overflow) stops with ``acc[A_STABLE] = 0`` and
  ``acc[A_REASON]`` set;
* for each measured arrival and each server it chose uniformly within a pool
  before looking at the servers (ZRed, KT, Rer, Rep: the one; FRed: one per pool;
  CoC, CoS, RIQ, FJ: the d sampled), calls :func:`.statistics.see` with whether the
  arrival found it idle (the idle evidence of the verdict);
* sets ``acc[A_ARRIVALS]``, ``acc[A_TIME]`` and ``acc[A_WORK]``.

Random-number contract (:mod:`.streams`; shared with :mod:`.reference` and any
engine that wants to be compared job by job). Per arrival:

* ARRIVALS: one value e, the interarrival time ``e / lambda``; then, only if
  J > 1, one value e' whose uniform ``1 - exp(-e')`` against ``type_cdf`` is the
  type (the type is the workload's, not drawn from the policy's routing);
* ROUTING, in this order: the servers: a one-copy policy draws its pool (one uniform against
  ``alpha[0, j]``, only with two pools) then ``start + int(u * n_pool)``; FRed
  one server in pool 0 then one in pool 1; CoC, CoS, RIQ and FJ d distinct
  servers by a partial Fisher-Yates shuffle of a permutation of 0..N-1 kept
  across jobs (place i takes ``perm[i + int(u * (N - i))]``); Rer, if the job
  will be rerouted, then its second server in the other pool;
* SIZES and SLOWDOWNS: every job takes the sizes of all the replicas its policy
  may place (:func:`.encode.replicas_per_job`: d for CoC, CoS, RIQ, FJ; 2 for
  FRed, Rer, Rep; 1 for ZRed, KT), whichever run: one value of SIZES (the first
  replica's size, or the job's X), and from SLOWDOWNS one slowdown per replica
  (sx) or the sizes of the replicas after the first (iid, mixture). Replica r gets the
  r-th size (RIQ: of the idle ones; CoS, FJ cancelling on start: in start order).
* COUPLING (mixture only, ``c = s_params[0]``): one uniform u per job, every policy;
  if ``u < c`` the job is coupled and every replica gets the first replica's size (the
  SLOWDOWNS values it takes are dropped), else as iid. The block ``cb`` is as long as
  the SIZES block ``xb`` and refilled with it, so job q's u is ``cb[xi]``, at its
  size's index. Before a chunk, the fast path's :func:`.fast_chunks.couple` writes each
  coupled job's SIZES value over the SLOWDOWNS values it will read, so its chunks run the
  mixture as iid (one loop, no test a job). Rer: a coupled job's second run is the first
  replica's size.
  With the streams seeded by the workload, policies compared on one workload see
  the same arrivals, types and sizes (:mod:`.streams`). A law per job type
  (:class:`~straggler.model.distributions.ByType`) fills SIZES (and SLOWDOWNS under iid)
  with uniforms: each value of X read is passed through
  :func:`~straggler.model.distributions.sampling.size_of_type` with the job's type (the
  identity for every other law; never a slowdown S).
"""
