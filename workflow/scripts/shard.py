# Run by `rule simulate_shard`; the work is in straggler.pipeline.simulate_shard.
import logging

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO)

from straggler.pipeline import simulate_shard

simulate_shard(
    snakemake.params.resolved,
    snakemake.params.cell,
    int(snakemake.wildcards.first),
    int(snakemake.wildcards.stop),
    snakemake.params.results,
    snakemake.output[0],
)
