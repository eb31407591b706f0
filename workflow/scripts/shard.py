# Run by `rule simulate_shard`; the work is in straggler.run.pipeline.run_shard.
import logging
from pathlib import Path

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO)

from straggler.run.pipeline import run_shard

run_shard(
    snakemake.params.resolved,
    snakemake.params.cell,
    int(snakemake.wildcards.first),
    int(snakemake.wildcards.stop),
    Path(snakemake.output[0]).parents[3],  # results/<study>/units/shards/<key>/r*.json
    snakemake.output[0],
)
